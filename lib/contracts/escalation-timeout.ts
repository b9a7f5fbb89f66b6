/**
 * What happens when an open escalation's wait for a human times out (issue 18: "what happens when a
 * wait times out is said where the wait is shown"): the plan the server computes
 * (server/domain/escalation-wait.ts escalationTimeoutPlan) and its words, for the run page's banner
 * and the inbox card. Client-safe, pure.
 */
import { assigneeUser } from "./escalation.ts";

/** What happens when an open escalation's wait times out (server/domain/escalation-wait.ts escalationTimeoutPlan: task.get's and escalation.get's `timeout`). */
export interface EscalationTimeoutPlan {
  /** Reminders in all before the run stops waiting (ESCALATION_LAST_WAIT_ROUND + 1). */
  reminders: number;
  /** Reminders already sent (the opening notification is not one). */
  remindersSent: number;
  /** The next reminder's number (1-based), or null when every reminder went out and the run no longer waits. */
  nextReminder: number | null;
  /** The role the next reminder goes to (the profile's chain moves it; else it stays with its role), or null. */
  nextRole: string | null;
  /** When the current wait round times out (the last notification + the due time), or null when the run no longer waits. */
  nextTimeoutAt: Date | null;
  /** Minutes each wait round lasts (the profile's `escalationDueMinutes`). */
  rearmMinutes: number;
}

/**
 * What happens when the wait for a human times out, in words, for where the wait is shown: e.g. "If
 * no one decides by 2026-12-03 10:00:00 UTC: reminder 1 of 4 goes to the handler role again and the run
 * waits another 60 min. After reminder 4 the run stops waiting; the escalation stays open and a
 * decision still applies. Nothing is decided on its own." `format` writes the time (the reader's
 * Local/UTC setting); `role` is the escalation's role now (or a person, `user:<display name>`). Pure.
 */
export function waitTimeoutWords(plan: EscalationTimeoutPlan, role: string, format: (d: Date) => string): string {
  const tail = "the escalation stays open and a decision still applies. Nothing is decided on its own.";
  if (plan.nextReminder === null || !plan.nextTimeoutAt)
    return `The run stopped waiting after ${plan.reminders} reminder${plan.reminders === 1 ? "" : "s"}; ${tail}`;
  const to = (a: string) => assigneeUser(a) ?? `the ${a} role`;
  const next = plan.nextRole && plan.nextRole !== role ? `moves it to ${to(plan.nextRole)} (the profile's chain)` : `goes to ${to(role)} again`;
  if (plan.nextReminder >= plan.reminders)
    return `If no one decides by ${format(plan.nextTimeoutAt)}: the last reminder (${plan.nextReminder} of ${plan.reminders}) ${next} and the run stops waiting; ${tail}`;
  return (
    `If no one decides by ${format(plan.nextTimeoutAt)}: reminder ${plan.nextReminder} of ${plan.reminders} ${next} and the run waits another ` +
    `${plan.rearmMinutes} min. After reminder ${plan.reminders} the run stops waiting; ${tail}`
  );
}
