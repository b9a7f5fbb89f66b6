/**
 * Failure classes of a task that did not complete, as /costs breaks spend down and the task list
 * filters (`failure=`): from the latest run's end reason (budget_exhausted → budget; transient,
 * saturation, drift, loop, stall as they are; anything else → error), dead end from the task's
 * status. The SQL twin is longhaul_cost_failure in server/db/sql/task-cost.sql.
 */
export const FAILURE_CLASSES = ["transient", "saturation", "drift", "dead_end", "budget", "loop", "stall", "error"] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

/** Words for a failure class (task list filter, /costs rows). */
export const FAILURE_LABELS: Record<FailureClass, string> = {
  transient: "Transient error",
  saturation: "Context saturation",
  drift: "Drift",
  dead_end: "Dead end",
  budget: "Budget",
  loop: "Loop",
  stall: "Stall",
  error: "Error",
};
