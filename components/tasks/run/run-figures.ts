/**
 * The live header's figures, as pure functions over the task ("The live header keeps up"):
 * "now" never before what the server has already recorded (clock skew between server and browser),
 * and the cost's parts adding up to its total. Active time and time waiting for a human are
 * lib/contracts/run-clock.ts runClock; the words for a wait's timeout are
 * lib/contracts/escalation-timeout.ts waitTimeoutWords. No React, no I/O: unit-tested in
 * tests/unit/run-figures.test.ts.
 */

import { wasteWords, type WasteSplitUsd } from "../../../lib/contracts/waste.ts";

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

/** A step and when it was last active (ended, or started while running). */
export interface StepActivity {
  stepId: string;
  at: Date;
}

/**
 * The header's "last step": the later of task.get's (`usage.lastStep`, read with the step counts)
 * and the timeline's newest row, so a step list that has not caught up yet never makes it lag the
 * counts beside it. Null when neither has a step. Pure.
 */
export function latestStep(a: StepActivity | null | undefined, b: StepActivity | null | undefined): StepActivity | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return b.at.getTime() > a.at.getTime() ? b : a;
}
