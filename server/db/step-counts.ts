import type { StepCounts } from "../../lib/contracts/step-count.ts";
import { Prisma, type PrismaClient } from "./client.ts";

export type { StepCounts } from "../../lib/contracts/step-count.ts";

/**
 * SQL select columns counting the steps aliased `s` (a `step` row, in an aggregate over `step s`):
 * `"budgetSteps"` = the budget's steps (SQL `longhaul_budget_step(kind)`, server/db/sql/task-cost.sql:
 * model and tool steps), `"checkpointSteps"` = checkpoint steps, `"humanSteps"` = human steps (bigint
 * each; read them with {@link stepCountsOf}). One step count everywhere, shared by task.get,
 * task.list and the ceiling; task_cost.steps (/costs) counts with the same SQL function.
 */
export const STEP_COUNT_COLUMNS = Prisma.sql`count(s.id) FILTER (WHERE longhaul_budget_step(s.kind)) AS "budgetSteps",
  count(s.id) FILTER (WHERE s.kind = 'checkpoint') AS "checkpointSteps",
  count(s.id) FILTER (WHERE s.kind = 'human') AS "humanSteps"`;

/** SQL condition: the step aliased `s` is a budget step (model or tool; `longhaul_budget_step`). */
export const IS_BUDGET_STEP = Prisma.sql`longhaul_budget_step(s.kind)`;

/** The row shape {@link STEP_COUNT_COLUMNS} adds to a query's result. */
export interface StepCountColumns {
  budgetSteps: bigint | number | null;
  checkpointSteps: bigint | number | null;
  humanSteps: bigint | number | null;
}

/** {@link StepCounts} from a row with {@link STEP_COUNT_COLUMNS} (missing row or NULL = 0). */
export function stepCountsOf(row: StepCountColumns | undefined | null): StepCounts {
  return {
    budget: Number(row?.budgetSteps ?? 0),
    checkpoints: Number(row?.checkpointSteps ?? 0),
    human: Number(row?.humanSteps ?? 0),
  };
}

/** A task's {@link StepCounts} over all its runs (one aggregate over step ⋈ run; index run(taskId, startedAt)). */
export async function taskStepCounts({ prisma, taskId }: { prisma: PrismaClient; taskId: string }): Promise<StepCounts> {
  const [row] = await prisma.$queryRaw<StepCountColumns[]>`
    SELECT ${STEP_COUNT_COLUMNS} FROM step s JOIN run r ON r.id = s."runId" WHERE r."taskId" = ${taskId}`;
  return stepCountsOf(row);
}
