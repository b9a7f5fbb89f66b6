/**
 * The escalated run's wait for a decision, as a pure policy (the Inngest wiring is
 * server/inngest/functions/agent-run.ts `escalate`; the loop's own policy is agent-loop `decide`).
 *
 * Per round `r` (0 … `rounds`) the run reads the escalation (step `decision-<n>-<r>`) and asks
 * {@link escalationWaitAction} with phase `read`: an applied decision ends the wait; a decision due
 * (undo window over) is applied by the run itself; anything else is waited for (`waitForEvent
 * longhaul/escalation.applied`, timeout the profile's due time). Woken by that event (phase `woken`,
 * after reading the row again) the wait ends with what the row says. Timed out (phase `timed_out`,
 * after reading the row again) a still-open escalation is re-notified (round `r + 1`), and the run
 * waits another round — until round `rounds`, after whose timeout it re-notifies once more (reminder
 * `rounds + 1`, so `rounds + 1` reminders in all) and stops waiting (`overdue`).
 */

import { escalationClock, type EscalationClock, type EscalationTimeoutPlan } from "../../lib/contracts/escalation-timeout.ts";

/**
 * The last wait round of an escalated run (rounds 0 … this, each the profile's due time long). Every
 * timeout of a still-open escalation re-notifies it (reminders 1 … ESCALATION_LAST_WAIT_ROUND + 1,
 * each moving it one role along its chain); after the last one the run stops waiting and the
 * escalation is overdue (server/inngest/functions/agent-run.ts runs the rounds).
 */
export const ESCALATION_LAST_WAIT_ROUND = 3;

/**
 * The role an overdue escalation moves to at reminder `round` (≥ 1): `chain[min(round - 1, chain.length - 1)]`,
 * or null for round 0 or an empty chain (the escalation stays with its role). Pure.
 */
export function chainRoleForRound(chain: readonly string[], round: number): string | null {
  if (round < 1 || chain.length === 0) return null;
  return chain[Math.min(round - 1, chain.length - 1)] ?? null;
}

export type { EscalationTimeoutPlan } from "../../lib/contracts/escalation-timeout.ts";

/**
 * {@link escalationTimeoutPlan} of an escalation row, with the chain and due time from its task's
 * launched profile spec: the one call the task page and the context card share.
 */
export function timeoutPlanOf(
  e: { notifications: number; lastNotifiedAt: Date | null; createdAt: Date; assigneeRole: string },
  spec: { escalationChain: readonly string[]; escalationDueMinutes: number },
): EscalationTimeoutPlan {
  return escalationTimeoutPlan({ ...e, chain: spec.escalationChain, dueMinutes: spec.escalationDueMinutes });
}

/**
 * The clock of an escalation row as the API answers it (task.get, escalation.list, escalation.get):
 * lib/contracts/escalation-timeout.ts `escalationClock` with the timeout plan of the task's launched
 * profile, by `now` (the database clock). `spec` null (not known): the row's due time, no plan.
 */
export function clockOf(
  e: { status: string; notifications: number; lastNotifiedAt: Date | null; createdAt: Date; dueAt: Date; assigneeRole: string },
  spec: { escalationChain: readonly string[]; escalationDueMinutes: number } | null,
  now: Date,
): EscalationClock & { timeout: EscalationTimeoutPlan | null } {
  const timeout = spec && e.status === "open" ? timeoutPlanOf(e, spec) : null;
  return { ...escalationClock(e, spec?.escalationDueMinutes ?? null, timeout, now), timeout };
}

/**
 * What the escalated run does when its wait times out, for the page that shows the wait (what
 * happens when a wait times out is said where the wait is shown). From the escalation's
 * `notifications` (rounds recorded, the opening included), `lastNotifiedAt` (else `createdAt`) and
 * role, and the task's profile (`escalationDueMinutes`, `escalationChain`): reminder k of
 * {@link ESCALATION_LAST_WAIT_ROUND} + 1 goes to `chainRoleForRound(chain, k)` (else the same role)
 * when the round started at the last notification has lasted the due time, and the run waits
 * another round; after the last reminder it stops waiting (the escalation stays open; a decision
 * still applies — nothing is decided on its own). Pure.
 */
export function escalationTimeoutPlan({
  notifications,
  lastNotifiedAt,
  createdAt,
  assigneeRole,
  chain,
  dueMinutes,
}: {
  notifications: number;
  lastNotifiedAt: Date | null;
  createdAt: Date;
  assigneeRole: string;
  chain: readonly string[];
  dueMinutes: number;
}): EscalationTimeoutPlan {
  const reminders = ESCALATION_LAST_WAIT_ROUND + 1;
  const remindersSent = Math.min(reminders, Math.max(0, notifications - 1));
  const nextReminder = remindersSent < reminders ? remindersSent + 1 : null;
  const roundStart = lastNotifiedAt ?? createdAt;
  return {
    reminders,
    remindersSent,
    nextReminder,
    nextRole: nextReminder === null ? null : (chainRoleForRound(chain, nextReminder) ?? assigneeRole),
    nextTimeoutAt: nextReminder === null ? null : new Date(roundStart.getTime() + dueMinutes * 60_000),
    rearmMinutes: dueMinutes,
  };
}

/** The escalation as the waiting run reads it (server/db/escalation-repository.ts `readDecision`). */
export interface DecisionView {
  status: "open" | "decided" | "applying" | "applied";
  decision: string | null;
  /** `decided` and its undo window (`applyAfter`) is over by the database clock. */
  due: boolean;
  resultRunId: string | null;
}

/** What the waiting run does next. */
export type EscalationWaitAction =
  /** The wait is over: the decision and the run it resumed as (null: none, or not known). */
  | { kind: "done"; decision: string | null; resumedAs: string | null }
  /** Apply the decision now (the domain's applyDecision), then end the wait. */
  | { kind: "apply" }
  /** Wait for `longhaul/escalation.applied` (round `round`). */
  | { kind: "wait"; round: number }
  /** After a timeout: re-notify with `renotifyRound` (null: not open any more, no re-notification), then wait round `nextRound`, or stop waiting (null: overdue). */
  | { kind: "after_timeout"; renotifyRound: number | null; nextRound: number | null };

/**
 * The next move of the escalated run's wait (pure; see the module comment): phase `read` (the row
 * read at the top of round `round`), `woken` (the applied event arrived; the row read again) or
 * `timed_out` (the wait timed out; the row read again). `rounds`: the last round (agent-run's
 * ESCALATION_LAST_WAIT_ROUND).
 */
export function escalationWaitAction({
  phase,
  round,
  decision,
  rounds,
}: {
  phase: "read" | "woken" | "timed_out";
  round: number;
  decision: DecisionView;
  rounds: number;
}): EscalationWaitAction {
  if (phase === "woken") return { kind: "done", decision: decision.decision, resumedAs: decision.resultRunId };
  if (phase === "timed_out")
    return { kind: "after_timeout", renotifyRound: decision.status === "open" ? round + 1 : null, nextRound: round < rounds ? round + 1 : null };
  if (decision.status === "applied") return { kind: "done", decision: decision.decision, resumedAs: decision.resultRunId };
  if (decision.status === "decided" && decision.due) return { kind: "apply" };
  return { kind: "wait", round };
}
