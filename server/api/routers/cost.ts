import { z } from "zod";
import { idField, inputObject } from "../../domain/input-fields.ts";
import {
  costByCase,
  costByTemplate,
  costRollup,
  taskCostRows,
  taskCostTotals,
  taskRunCosts,
  costFiltersSchema,
  taskCostCsv,
} from "../../features/costs/index.ts";
import { costByTemplateOutput, costRollupOutput, costTaskCsvOutput, costTaskOutput, costTasksOutput } from "../output-schemas-cost.ts";
import { createTRPCRouter, managerProcedure, readProcedure } from "../trpc.ts";

const taskId = idField("taskId");

export const costRouter = createTRPCRouter({
  /** The /costs page: headline, breakdowns, outcomes table (server/db/cost-queries.ts). */
  rollup: managerProcedure
    .input(costFiltersSchema)
    .output(costRollupOutput)
    .query(({ ctx, input }) => costRollup({ prisma: ctx.prisma, filters: input })),
  /** One row per task in scope of the same filters, as CSV data (task id, launch time, profile, model, outcome, failure class, steps, tokens, cost, waste). */
  taskCsv: managerProcedure
    .input(costFiltersSchema)
    .output(costTaskCsvOutput)
    .query(async ({ ctx, input }) => ({ csv: taskCostCsv(await taskCostRows({ prisma: ctx.prisma, filters: input })) })),
  /** The /costs page's "group by launch template": the same filters, spend per template (server/db/cost-queries.ts costByTemplate). */
  byTemplate: managerProcedure
    .input(costFiltersSchema)
    .output(costByTemplateOutput)
    .query(({ ctx, input }) => costByTemplate({ prisma: ctx.prisma, filters: input })),
  /** The /costs page's "group by eval case": spend per suite/case (server/db/cost-queries.ts costByCase). */
  byCase: managerProcedure
    .input(costFiltersSchema)
    .output(costByTemplateOutput)
    .query(({ ctx, input }) => costByCase({ prisma: ctx.prisma, filters: input })),
  /** Per-task totals for a list of tasks (the task list's cost column joins this). */
  tasks: readProcedure
    .input(inputObject({ taskIds: z.array(taskId, "taskIds: a list of task ids").min(1, "taskIds: at least 1 id").max(1000, "taskIds: at most 1000 ids") }))
    .output(costTasksOutput)
    .query(async ({ ctx, input }) => [...(await taskCostTotals({ prisma: ctx.prisma, taskIds: input.taskIds })).values()]),
  /** The task page's cost split per run, with the task's totals (the runs sum to them). */
  task: readProcedure
    .input(inputObject({ taskId }))
    .output(costTaskOutput)
    .query(({ ctx, input }) => taskRunCosts({ prisma: ctx.prisma, taskId: input.taskId })),
});
