import { z } from "zod";
import { listTasks, TASK_STATUSES } from "../../db/task-queries.ts";
import { createTRPCRouter, publicProcedure } from "../trpc.ts";

export const listTasksInputSchema = z.object({
  status: z.enum(TASK_STATUSES).optional(),
  cursor: z.string().max(100).optional(),
  limit: z.number().int().min(1).max(200).default(50),
});

export const taskRouter = createTRPCRouter({
  list: publicProcedure.input(listTasksInputSchema).query(({ ctx, input }) => listTasks({ prisma: ctx.prisma, ...input })),
});
