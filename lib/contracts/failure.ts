/**
 * Failure classes: why a task did not complete, in one vocabulary for /costs (its breakdown and
 * CSVs), the task list's filter (`failure=`), `cli resume --failure` and the eval report.
 *
 * A task's class comes from its latest run's end reason (lib/contracts/status.ts RUN_END_REASONS:
 * budget_exhausted → budget; transient, saturation, drift, loop, stall, tool_failure as they are;
 * anything else → error), dead end from the task's status. The SQL twin is longhaul_cost_failure in
 * server/db/sql/task-cost.sql; server/domain/cost-rollup.ts failureClassOf is the TypeScript one.
 */
export const FAILURE_CLASSES = ["transient", "saturation", "drift", "dead_end", "budget", "loop", "stall", "tool_failure", "error"] as const;
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
  tool_failure: "Tool failure",
  error: "Error",
};

/**
 * The classes of a failed eval cell (server/domain/eval-checks.ts classifyEvalFailure): every task
 * failure class, plus the eval's own — a check failed on a task that ended as expected
 * (`check_failed`), only a judge without a verdict stood in the way (`judge_unavailable`,
 * lib/contracts/eval.ts JUDGE_UNAVAILABLE), a person was asked (`escalation`), the cell's task was
 * cancelled (`cancelled`).
 */
export const EVAL_FAILURE_CLASSES = [...FAILURE_CLASSES, "check_failed", "judge_unavailable", "escalation", "cancelled"] as const;
export type EvalFailureClass = (typeof EVAL_FAILURE_CLASSES)[number];

/**
 * Words for an eval cell's failure class (the eval report's matrix and per-profile table): the
 * class itself in words ("tool_failure" → "tool failure"), short beside a count, except a cell no
 * judge could give a verdict on, which says so.
 */
export const EVAL_FAILURE_LABELS = Object.fromEntries(
  EVAL_FAILURE_CLASSES.map((c) => [c, c === "judge_unavailable" ? "not judged (judge unavailable)" : c.replaceAll("_", " ")]),
) as Record<EvalFailureClass, string>;
