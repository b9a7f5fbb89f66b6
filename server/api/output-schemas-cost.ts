/**
 * Output schemas of the cost procedures docs/CONTRACTS.md documents ("Costs": `cost.rollup`,
 * `cost.task`, `cost.tasks`), strict like server/api/output-schemas.ts: a field the code returns and
 * the contract does not name fails the call (INTERNAL_SERVER_ERROR "Output validation failed") in
 * the tests that call them. Each is typed against the query's own result type, so schema and code
 * cannot drift at compile time. All money is USD as a plain number.
 */
import { z } from "zod";
import type { CostRollup, CostTemplateGroup, RunCostSplit, TaskCostTotals } from "../features/costs/index.ts";
import {
  COST_CAUSES,
  type CostCause,
  COST_DATE_BASIS,
  COST_OUTCOMES,
  FAILURE_CLASSES,
  costFiltersSchema,
  type CostGroup,
  type OutcomeRow,
} from "../features/costs/index.ts";

const usd = z.number().finite();
const count = z.number().int().nonnegative();

/** Spend by cause (server/domain/cost-causes.ts COST_CAUSES), every cause present. */
const byCause: z.ZodType<Record<CostCause, number>> = z.strictObject(Object.fromEntries(COST_CAUSES.map((c) => [c, usd])) as Record<CostCause, typeof usd>);

const groupShape = {
  key: z.string(),
  tasks: count,
  completed: count,
  usd,
  productiveUsd: usd,
  overheadUsd: usd,
  wasteUsd: usd,
  estimatedUsd: usd,
  costPerCompletedUsd: usd.nullable(),
  priceVersions: z.array(z.string()),
};
const costGroup: z.ZodType<CostGroup> = z.strictObject(groupShape);

const outcomeRow: z.ZodType<OutcomeRow> = z.strictObject({
  profile: z.string(),
  model: z.string(),
  launched: count,
  completed: count,
  stepsPerCompleted: z.number().nonnegative().nullable(),
  escalationsPerTask: z.number().nonnegative(),
  usd,
  costPerCompletedUsd: usd.nullable(),
  estimatedUsd: usd,
  priceVersions: z.array(z.string()),
});

/** `cost.rollup` (docs/CONTRACTS.md "Costs"): the /costs page, `cli costs`, in one shape. */
export const costRollupOutput: z.ZodType<CostRollup> = z.strictObject({
  filters: costFiltersSchema,
  dateBasis: z.literal(COST_DATE_BASIS),
  headline: z.strictObject({
    tasks: count,
    completed: count,
    completionRate: z.number().min(0).max(1).nullable(),
    usd,
    costPerCompletedUsd: usd.nullable(),
    stepsMedian: z.number().nonnegative().nullable(),
    stepsP90: z.number().nonnegative().nullable(),
    productiveUsd: usd,
    overheadUsd: usd,
    wasteUsd: usd,
    wasteShare: z.number().nullable(),
    estimatedUsd: usd,
    estimatedCalls: count,
    calls: count,
    unbilledCalls: count,
    escalations: count,
    resume: z.strictObject({ tasks: count, keptUsd: usd, discardedUsd: usd, restartCostUsd: usd, resumeCostUsd: usd, savedUsd: usd }),
    priceVersions: z.array(z.string()),
    mixedPrices: z.boolean(),
    evalCells: z.strictObject({ tasks: count, usd }),
  }),
  byCause,
  byProfile: z.array(costGroup),
  byModel: z.array(costGroup),
  byOutcome: z.array(z.strictObject({ ...groupShape, key: z.enum(COST_OUTCOMES) })),
  byFailureClass: z.array(z.strictObject({ ...groupShape, key: z.enum(FAILURE_CLASSES) })),
  byPeriod: z.array(z.strictObject({ ...groupShape, byCause })),
  outcomes: z.array(outcomeRow),
  outcomeTable: z.strictObject({ header: z.array(z.string()), rows: z.array(z.array(z.string())) }),
  outcomeCsv: z.string(),
  queryMs: z.number().nonnegative(),
});

/** One task's totals (`cost.tasks` rows, `cost.task`'s `totals`). */
const taskCostTotals: z.ZodType<TaskCostTotals> = z.strictObject({
  taskId: z.string(),
  usd,
  productiveUsd: usd,
  overheadUsd: usd,
  wasteUsd: usd,
  estimatedUsd: usd,
  estimatedCalls: count,
  calls: count,
  tokens: count,
  steps: count,
  priceVersion: z.string().nullable(),
  priceVersions: z.array(z.string()),
});

/** `cost.tasks({taskIds})`: one totals row per known task. */
export const costTasksOutput = z.array(taskCostTotals);

const runCostSplit: z.ZodType<RunCostSplit> = z.strictObject({
  runId: z.string(),
  runCause: z.string(),
  status: z.string(),
  startedAt: z.date(),
  calls: count,
  promptTokens: count,
  cachedTokens: count,
  completionTokens: count,
  reasoningTokens: count,
  cacheWriteTokens: count,
  usd,
  byCause,
  estimatedUsd: usd,
  estimatedCalls: count,
  unbilledCalls: count,
  priceVersions: z.array(z.string()),
});

/** `cost.task({taskId})`: the per-run split, which sums to the task's totals. */
export const costTaskOutput = z.strictObject({ runs: z.array(runCostSplit), totals: taskCostTotals });

/** `cost.byTemplate` and `cost.byCase`: spend per launch template (or per eval suite/case), the rollup's group figures plus the template's id and steps per completed task. */
export const costByTemplateOutput: z.ZodType<CostTemplateGroup[]> = z.array(
  z.strictObject({ ...groupShape, templateId: z.string().nullable(), stepsPerCompleted: z.number().nonnegative().nullable() }),
);

/** `cost.taskCsv`: the CSV text (one row per task in scope) as one string, never re-walked row by row. */
export const costTaskCsvOutput = z.strictObject({ csv: z.string() });
