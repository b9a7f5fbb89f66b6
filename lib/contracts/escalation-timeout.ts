/**
 * An open escalation's clock, read the same way by the server (task.get, escalation.list /
 * escalation.get), every page and the CLI: when the answer is due, whether it is overdue, what the
 * run does about it (reminders to come, or all sent), and what happens when a wait times out (the
 * plan server/domain/escalation-wait.ts escalationTimeoutPlan computes) in words. A wait that times
 * out is said where the wait is shown. Client-safe, pure.
 */
import { assigneeUser, isEscalationOverdue } from "./escalation.ts";

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
 * no one decides by 2026-12-03 10:00:00 UTC: reminder 1 of 4 goes to the handler role again and the
 * next comes 60 min later. After reminder 4 no more are sent; the task still waits on a human: the
 * escalation stays open and a decision still applies. Nothing is decided on its own." Once every
 * reminder went out the run's own wait is over, but the task is still waiting on a human (a decision
 * starts the resumed run itself), so the words say that rather than "the run stopped waiting". `format` writes the time (the reader's
 * Local/UTC setting); `role` is the escalation's role now (or a person, `user:<display name>`). Pure.
 */
export function waitTimeoutWords(plan: EscalationTimeoutPlan, role: string, format: (d: Date) => string): string {
  const tail = "the task still waits on a human: the escalation stays open and a decision still applies. Nothing is decided on its own.";
  if (plan.nextReminder === null || !plan.nextTimeoutAt)
    return `All ${plan.reminders} reminder${plan.reminders === 1 ? "" : "s"} went out and no more will be sent; ${tail}`;
  const to = (a: string) => assigneeUser(a) ?? `the ${a} role`;
  const next = plan.nextRole && plan.nextRole !== role ? `moves it to ${to(plan.nextRole)} (the profile's chain)` : `goes to ${to(role)} again`;
  if (plan.nextReminder >= plan.reminders)
    return `If no one decides by ${format(plan.nextTimeoutAt)}: the last reminder (${plan.nextReminder} of ${plan.reminders}) ${next} and no more follow; ${tail}`;
  return (
    `If no one decides by ${format(plan.nextTimeoutAt)}: reminder ${plan.nextReminder} of ${plan.reminders} ${next} and the next comes ` +
    `${plan.rearmMinutes} min later. After reminder ${plan.reminders} no more are sent; ${tail}`
  );
}

/** What the run does about an escalation: waits with reminders to come, waits with every reminder sent, or no longer waits (decided). */
export type EscalationWaitPhase = "reminding" | "reminders_over" | "decided";

/** An escalation's clock as every page and the CLI show it ({@link escalationClock}). */
export interface EscalationClock {
  /**
   * When the answer is due: opened + the profile's due time, the time the run's first wait times
   * out. A reminder moving the escalation along the profile's chain gives the new role a later due
   * time (Escalation.dueAt, used to route and sort); the answer was still due at this time.
   */
  dueAt: Date;
  /** Open and its due time passed, by the database clock (lib/contracts/escalation.ts isEscalationOverdue). */
  overdue: boolean;
  /** What the run does about it. */
  phase: EscalationWaitPhase;
  /** When the next reminder goes out (the current wait round's end), or null when none will. */
  nextReminderAt: Date | null;
  /** Reminders sent so far (the opening notification is not one). */
  remindersSent: number;
}

/**
 * The one reading of an escalation's clock (the API computes it by the database clock `now`; pages
 * and the CLI show what it says, never a clock of their own): `dueAt` = `createdAt` + the profile's
 * `dueMinutes` (the row's `dueAt` when the due time is not known, i.e. before its first reminder
 * the same time), `overdue` by the one rule (`isEscalationOverdue` over the row's columns, which a
 * reminder only ever pushes later once overdue), the phase and the next reminder from `plan`. Pure.
 */
export function escalationClock(
  e: { status: string; createdAt: Date; dueAt: Date; notifications: number | null },
  dueMinutes: number | null,
  plan: EscalationTimeoutPlan | null,
  now: Date,
): EscalationClock {
  const open = e.status === "open";
  const sent = plan?.remindersSent ?? Math.max(0, (e.notifications ?? 0) - 1);
  return {
    dueAt: dueMinutes === null ? e.dueAt : new Date(e.createdAt.getTime() + dueMinutes * 60_000),
    overdue: isEscalationOverdue(e, now),
    phase: !open ? "decided" : plan && plan.nextReminder === null ? "reminders_over" : "reminding",
    nextReminderAt: open ? (plan?.nextTimeoutAt ?? null) : null,
    remindersSent: sent,
  };
}

/**
 * An escalation's due time in the words the card, the run page's banner and the CLI share: "Overdue
 * since <due>" once its due time passed, "Due <due>" before it, "Was due <due>" once decided.
 * `format` writes the time (the reader's Local/UTC setting; the CLI: UTC). Pure.
 */
export function dueWords(c: Pick<EscalationClock, "dueAt" | "overdue" | "phase">, format: (d: Date) => string): string {
  if (c.phase === "decided") return `Was due ${format(c.dueAt)}`;
  return c.overdue ? `Overdue since ${format(c.dueAt)}` : `Due ${format(c.dueAt)}`;
}
