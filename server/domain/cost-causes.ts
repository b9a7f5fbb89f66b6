/**
 * Causes of a model HTTP attempt in the cost ledger (docs/ARCHITECTURE.md "Cost"):
 * - `productive`  its result was kept and used by the run
 * - `retry`       its result was thrown away by a step retry (an error attempt, or a successful
 *                 attempt whose step then failed and ran again with a higher executor attempt)
 * - `replay`      the step had already completed and ran again because its memoized result was lost
 * - `checkpoint`  the summary request of a checkpoint (overhead that saves work)
 * - `compaction`  the summary request of a checkpoint taken at saturation (overhead)
 * - `discarded`   work of a run after the checkpoint the task was then resumed (or forked) from
 * - `restart`     a successful attempt lost to a process restart: its step ran again at the same
 *                 executor attempt (the app or executor died before the step's result was saved)
 */
export const COST_CAUSES = ["productive", "retry", "replay", "checkpoint", "compaction", "discarded", "restart"] as const;
export type CostCause = (typeof COST_CAUSES)[number];

/** Spend that produced nothing kept (docs/ARCHITECTURE.md "Words": waste). */
export const WASTE_CAUSES: readonly CostCause[] = ["retry", "replay", "discarded", "restart"];
/** Spend that saves work later (checkpoints, compaction). */
export const OVERHEAD_CAUSES: readonly CostCause[] = ["checkpoint", "compaction"];

/** productive · overhead · waste for a cause. */
export function costSideOf(cause: CostCause): "productive" | "overhead" | "waste" {
  if (cause === "productive") return "productive";
  return OVERHEAD_CAUSES.includes(cause) ? "overhead" : "waste";
}

/**
 * The corrected cause of an earlier successful attempt of the same step when the step runs again:
 * a higher executor attempt means a step retry threw the earlier result away (`retry`); the same
 * attempt number means the process died before the result was saved and the step restarted
 * (`restart`). Only kept work (productive, checkpoint, compaction) is corrected; returns null when
 * the earlier cause stays.
 */
export function correctedEarlierCause({
  earlier,
  earlierAttempt,
  currentAttempt,
}: {
  earlier: CostCause;
  earlierAttempt: number;
  currentAttempt: number;
}): CostCause | null {
  if (earlier !== "productive" && earlier !== "checkpoint" && earlier !== "compaction") return null;
  return currentAttempt > earlierAttempt ? "retry" : "restart";
}
