/**
 * One step count everywhere ("Figures that hold still and mean one thing"): the header,
 * the task list, the CLI and /costs all show the *budget's* steps, and count checkpoint and human
 * steps apart, under their own labels.
 *
 * The rule is defined once, in SQL: `longhaul_budget_step(kind)` (server/db/sql/task-cost.sql),
 * which the step-budget ceiling (server/db/run-repository.ts taskUsage), task.get, task.list, the
 * per-task cost summary `task_cost.steps` (and so /costs and its CSV) all use, through
 * server/db/step-counts.ts. {@link BUDGET_STEP_KINDS} is the same list for code that filters steps
 * it already holds (tests check the two agree).
 */

/**
 * Step kinds the step budget counts: `model` (one model call, retries included) and `tool` (one tool
 * call). `checkpoint` steps (a checkpoint being written, whose summary is paid in dollars) and
 * `human` steps (a decision on an escalation) are not budget steps.
 */
export const BUDGET_STEP_KINDS = ["model", "tool"] as const;

/** Whether a step of this kind counts against the step budget ({@link BUDGET_STEP_KINDS}). */
export function isBudgetStepKind(kind: string): boolean {
  return (BUDGET_STEP_KINDS as readonly string[]).includes(kind);
}

/**
 * A task's steps over all its runs: `budget` = model + tool steps (what `stepBudget` limits),
 * `checkpoints` = checkpoint steps, `human` = human (escalation decision) steps. Counts of step rows.
 */
export interface StepCounts {
  budget: number;
  checkpoints: number;
  human: number;
}

/**
 * The line shown under a budget-step figure naming what is counted apart, e.g. "+ 2 checkpoints ·
 * 1 human step, not in the budget"; null when there are neither.
 */
export function stepsApartLabel({ checkpoints, human }: Pick<StepCounts, "checkpoints" | "human">): string | null {
  const parts: string[] = [];
  if (checkpoints > 0) parts.push(`${checkpoints} checkpoint${checkpoints === 1 ? "" : "s"}`);
  if (human > 0) parts.push(`${human} human step${human === 1 ? "" : "s"}`);
  return parts.length ? `+ ${parts.join(" · ")}, not in the budget` : null;
}

/** What the budget's step figure counts, for titles and labels: "model and tool steps (the step budget's)". */
export const BUDGET_STEPS_MEANING = "model and tool steps (the step budget's; checkpoints and human steps are counted apart)";
