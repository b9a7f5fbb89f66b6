/**
 * The live header's figures, as pure functions over the task (issue 18, "The live header keeps up"):
 * active time and time waiting for a human counted apart, "now" never before what the server has
 * already recorded (clock skew between server and browser), the words for what happens when a wait
 * for a human times out, and the cost's parts adding up to its total. No React, no I/O:
 * unit-tested in tests/unit/run-figures.test.ts.
 */

import { wasteWords, type WasteSplitUsd } from "../../../lib/contracts/waste.ts";
import { assigneeUser } from "../../../lib/contracts/escalation.ts";

/** A half-open span of time in epoch ms. */
interface Span {
  from: number;
  to: number;
}

/** Total length of `spans` in ms, overlaps counted once (empty or reversed spans count 0). */
export function coveredMs(spans: readonly Span[]): number {
  const sorted = spans.filter((s) => s.to > s.from).sort((a, b) => a.from - b.from);
  let total = 0;
  let start = -Infinity;
  let end = -Infinity;
  for (const s of sorted) {
    if (s.from > end) {
      if (end > start) total += end - start;
      start = s.from;
      end = s.to;
    } else end = Math.max(end, s.to);
  }
  if (end > start) total += end - start;
  return total;
}

/** Length in ms of the parts of `a` that are also in `b` (each list's overlaps counted once). */
function overlapMs(a: readonly Span[], b: readonly Span[]): number {
  return coveredMs(a) + coveredMs(b) - coveredMs([...a, ...b]);
}

/**
 * The browser's "now" (epoch ms) corrected for a server clock that runs ahead: never earlier than the
 * latest time the server has recorded (`serverTimes`: step starts and ends, run starts…), so a step
 * the server says ended at T is never shown as ending in the future, and a duration never runs
 * backwards. A server clock that runs behind needs no correction (its times are in the past).
 */
export function observedNow(clientNow: number, serverTimes: readonly (Date | null | undefined)[]): number {
  let now = clientNow;
  for (const t of serverTimes) if (t && t.getTime() > now) now = t.getTime();
  return now;
}

/** `date` clamped to at most `now` (epoch ms): "last step" never reads "in 3 seconds". Null stays null. */
export function clampToNow(date: Date | null | undefined, now: number): Date | null {
  if (!date) return null;
  return date.getTime() > now ? new Date(now) : date;
}

/** What the clock needs of a task (task.get's fields). */
export interface ClockTask {
  status: string;
  endedAt: Date | null;
  runs: readonly { startedAt: Date; endedAt: Date | null }[];
  escalations: readonly { status: string; createdAt: Date; decidedAt?: Date | null; appliedAt?: Date | null }[];
}

/** The header's duration split (ms): time the task's runs were working, and time it waited for a human. */
export interface RunClock {
  /** Time covered by the task's runs, less the time an escalation was open in them. */
  activeMs: number;
  /** Time an escalation was open (from its creation to its decision, or to now / the task's end while open). */
  waitingMs: number;
  /** An escalation is open now: the active time stands still and the waiting time runs. */
  waiting: boolean;
  /** A run is working now (the active time runs). */
  running: boolean;
}

const SETTLED = new Set(["completed", "failed", "dead_end", "cancelled"]);

/**
 * Active time and time waiting for a human of a task at `now` (epoch ms; see {@link observedNow}).
 * A run spans its start to its end (an open run of a settled task ends with the task); an
 * escalation's wait spans its creation to its decision (`decidedAt`, else `appliedAt`), or to now
 * (the task's end once settled) while it is open. Active = runs minus waits, so the duration stops
 * while the task waits for a human and goes on when a decision resumes it. Pure.
 */
export function runClock(t: ClockTask, now: number): RunClock {
  const settledAt = SETTLED.has(t.status) ? (t.endedAt?.getTime() ?? null) : null;
  const openEnd = (from: number) => Math.max(from, settledAt ?? now);
  const runs = t.runs.map((r) => {
    const from = r.startedAt.getTime();
    return { from, to: r.endedAt ? r.endedAt.getTime() : openEnd(from) };
  });
  let waiting = false;
  const waits = t.escalations.map((e) => {
    const from = e.createdAt.getTime();
    if (e.status === "open") {
      if (settledAt === null) waiting = true;
      return { from, to: openEnd(from) };
    }
    const end = e.decidedAt ?? e.appliedAt;
    return { from, to: end ? end.getTime() : from };
  });
  return {
    activeMs: Math.max(0, coveredMs(runs) - overlapMs(runs, waits)),
    waitingMs: coveredMs(waits),
    waiting,
    running: !waiting && settledAt === null && t.runs.some((r) => r.endedAt === null),
  };
}

/** task.get's `timeout` of an open escalation (server/domain/escalation-wait.ts EscalationTimeoutPlan), dates as Dates. */
export interface TimeoutPlan {
  reminders: number;
  remindersSent: number;
  nextReminder: number | null;
  nextRole: string | null;
  nextTimeoutAt: Date | null;
  rearmMinutes: number;
}

/**
 * What happens when the wait for a human times out, in words, for where the wait is shown: e.g. "If
 * no one decides by 2026-12-03 10:00:00 UTC: reminder 1 of 4 goes to the handler role again and the run
 * waits another 60 min. After reminder 4 the run stops waiting; the escalation stays open and a
 * decision still applies. Nothing is decided on its own." `format` writes the time (the reader's
 * Local/UTC setting); `role` is the escalation's role now (or a person, `user:<display name>`). Pure.
 */
export function waitTimeoutWords(plan: TimeoutPlan, role: string, format: (d: Date) => string): string {
  const tail = "the escalation stays open and a decision still applies. Nothing is decided on its own.";
  if (plan.nextReminder === null || !plan.nextTimeoutAt)
    return `The run stopped waiting after ${plan.reminders} reminder${plan.reminders === 1 ? "" : "s"}; ${tail}`;
  const to = (a: string) => assigneeUser(a) ?? `the ${a} role`;
  const next = plan.nextRole && plan.nextRole !== role ? `moves it to ${to(plan.nextRole)} (the profile's chain)` : `goes to ${to(role)} again`;
  return (
    `If no one decides by ${format(plan.nextTimeoutAt)}: reminder ${plan.nextReminder} of ${plan.reminders} ${next} and the run waits another ` +
    `${plan.rearmMinutes} min. After reminder ${plan.reminders} the run stops waiting; ${tail}`
  );
}

/** task.get's `usage` money fields (USD): the total and the parts it is the sum of. */
export interface CostSplitUsage {
  costUsd: number;
  productiveUsd: number;
  /** Checkpoint and compaction overhead. */
  checkpointUsd: number;
  wastedUsd: number;
  waste: WasteSplitUsd;
}

/**
 * The parts of the header's cost, in words, adding up to its total (they come from one read of the
 * task's cost summary): "$0.0400 productive · $0.0100 on checkpoints · $0.0030 retried"; parts that
 * are zero are left out (productive is always named while there is any cost). Pure.
 */
export function costSplitWords(u: CostSplitUsage, format: (usd: number) => string): string {
  const parts: string[] = [];
  if (u.productiveUsd > 0 || u.costUsd > 0) parts.push(`${format(u.productiveUsd)} productive`);
  if (u.checkpointUsd > 0) parts.push(`${format(u.checkpointUsd)} on checkpoints`);
  const waste = wasteWords(u.waste, format);
  if (waste) parts.push(waste);
  return parts.join(" · ");
}
