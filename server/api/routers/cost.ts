import { z } from "zod";
import { costRollup } from "../../db/cost-queries.ts";
import { taskCostTotals, taskRunCosts } from "../../db/cost-repository.ts";
import { costFiltersSchema } from "../../domain/cost-rollup.ts";
import { createTRPCRouter, managerProcedure, readProcedure } from "../trpc.ts";

const taskId = z.string().min(1, "taskId: must not be empty").max(100, "taskId: at most 100 characters");

export const costRouter = createTRPCRouter({
  /** The /costs page: headline, breakdowns, outcomes table (server/db/cost-queries.ts). */
  rollup: managerProcedure.input(costFiltersSchema).query(({ ctx, input }) => costRollup({ prisma: ctx.prisma, filters: input })),
  /** Per-task totals for a list of tasks (the task list's cost column joins this). */
  tasks: readProcedure
    .input(z.object({ taskIds: z.array(taskId).max(1000, "taskIds: at most 1000 ids") }))
    .query(async ({ ctx, input }) => [...(await taskCostTotals({ prisma: ctx.prisma, taskIds: input.taskIds })).values()]),
  /** The task page's cost split per run, with the task's totals (the runs sum to them). */
  task: readProcedure.input(z.object({ taskId })).query(({ ctx, input }) => taskRunCosts({ prisma: ctx.prisma, taskId: input.taskId })),
});
