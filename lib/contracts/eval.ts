/**
 * Words and values of the eval report shared by the server (server/domain/eval-checks.ts,
 * eval-report.ts), the report page and the CLI.
 */

/**
 * The failure class of a cell whose checks would all have passed but for a judge that gave no
 * verdict (unreachable, an error status, a reply that is neither PASS nor FAIL, after its retries):
 * an outage of the judge, not a wrong answer of the agent.
 */
export const JUDGE_UNAVAILABLE = "judge_unavailable";

/**
 * How the pass rate treats a cell whose judge gave no verdict, in the words the report page, the CLI
 * and the docs use: the cell is "not judged" and left out of the pass rate's denominator (an outage
 * of the judge says nothing about the agent), and counted apart.
 */
export const NOT_JUDGED_RULE = "cells whose judge could not answer are not judged: left out of the pass rate and pass^k, and counted apart";

/** EvalRun.status. Each eval array here is also a CHECK constraint on its column (migration status_checks). */
export const EVAL_RUN_STATUSES = ["running", "completed", "cancelled"] as const;
export type EvalRunStatus = (typeof EVAL_RUN_STATUSES)[number];

/** EvalCell.status: `pending` → `running` (its task launched) → `passed`, `failed` or `cancelled`. */
export const EVAL_CELL_STATUSES = ["pending", "running", "passed", "failed", "cancelled"] as const;
export type EvalCellStatus = (typeof EVAL_CELL_STATUSES)[number];

/** EvalRun.onEscalation: `fail` cancels a cell's task that escalates (a failure of the escalation's class), `wait` waits for a human. */
export const EVAL_ON_ESCALATION = ["fail", "wait"] as const;
export type EvalOnEscalation = (typeof EVAL_ON_ESCALATION)[number];
