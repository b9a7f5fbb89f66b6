/**
 * Words, colours and number formats of /costs (client-safe, no React): outcomes and how they map to
 * the task list's status filter, the causes of spend in the stacked chart, money and percentages.
 */

/**
 * The outcomes of /costs (server/domain/cost-rollup.ts COST_OUTCOMES) and their words. "Completed
 * with gaps" is its own row and filter, and still counts as completed in completion rate and cost
 * per completed task (COMPLETED_OUTCOMES).
 */
export const OUTCOMES = [
  ["completed", "Completed"],
  ["completed_with_gaps", "Completed with gaps"],
  ["dead_end", "Dead end"],
  ["failed", "Failed"],
  ["cancelled", "Cancelled"],
  ["waiting", "Waiting"],
  ["running", "Running"],
] as const;
export type Outcome = (typeof OUTCOMES)[number][0];
export const OUTCOME_LABEL: Record<string, string> = Object.fromEntries(OUTCOMES);

/**
 * A /costs outcome as the task list's `status` filter (Task.status values, comma-separated). A
 * completed-with-gaps task is a completed one; the task list narrows it with {@link OUTCOME_TASK_OUTCOME}.
 */
export const OUTCOME_STATUS: Record<string, string> = {
  completed: "completed",
  completed_with_gaps: "completed",
  dead_end: "dead_end",
  failed: "failed",
  cancelled: "cancelled",
  waiting: "waiting_for_human",
  running: "queued,running",
};

/** A /costs outcome that the task list also filters by its `outcome` parameter (completed with gaps). */
export const OUTCOME_TASK_OUTCOME: Record<string, string> = { completed_with_gaps: "completed_with_gaps" };

/** Causes in the stacked chart: productive, overhead (checkpoint, compaction), waste (the rest). */
export const CAUSES = [
  { key: "productive", label: "Productive", color: "#059669" },
  { key: "checkpoint", label: "Checkpoint", color: "#2563eb" },
  { key: "compaction", label: "Compaction", color: "#60a5fa" },
  { key: "retry", label: "Retry", color: "#f59e0b" },
  { key: "replay", label: "Replay", color: "#fb923c" },
  { key: "restart", label: "Restart", color: "#ef4444" },
  { key: "discarded", label: "Discarded", color: "#b91c1c" },
] as const;

/** USD as the cost tables show it (4 decimals; "*" when part of it is estimated). */
export function money(usd: number | null | undefined, estimated = false): string {
  if (usd === null || usd === undefined) return "—";
  return `$${usd.toFixed(4)}${estimated ? "*" : ""}`;
}

/** A share 0–1 as a whole percentage ("—" when there is none). */
export const pct = (x: number | null | undefined) => (x === null || x === undefined ? "—" : `${Math.round(x * 100)}%`);

/** End of the bucket starting at `key` (YYYY-MM-DD): the same day, or six days later for a week. */
export function bucketEnd(key: string, bucket: "day" | "week"): string {
  if (bucket === "day") return key;
  const d = new Date(`${key}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 6);
  return d.toISOString().slice(0, 10);
}
