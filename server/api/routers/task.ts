import { z } from "zod";
import { prismaCancelPorts } from "../../db/cancel-ports.ts";
import { prismaLaunchPorts } from "../../db/launch-ports.ts";
import { getStepOrThrow, getTaskDetailOrThrow, listSteps, listTasks, TASK_STATUSES } from "../../db/task-queries.ts";
import { diffCheckpoints, getCheckpointOrThrow, listCheckpoints } from "../../db/checkpoint-queries.ts";
import { requestCheckpoint } from "../../db/run-requests.ts";
import { prismaResumePorts } from "../../db/resume-ports.ts";
import { cancelTask } from "../../domain/cancel-task.ts";
import { resumeTask } from "../../domain/resume-task.ts";

import { launchTask, launchTaskInputSchema } from "../../domain/launch-task.ts";
import { sendRunCancelled, sendRunStarted } from "../../inngest/send.ts";
import { createTRPCRouter, publicProcedure } from "../trpc.ts";

export const listTasksInputSchema = z.object({
  status: z.enum(TASK_STATUSES).optional(),
  cursor: z.string().max(100).optional(),
  limit: z.number().int().min(1).max(200).default(50),
});

const taskIdSchema = z.object({ taskId: z.string().min(1).max(100) });
const idSchema = z.string().min(1).max(100);
const guidanceSchema = z.string().trim().max(10_000, "guidance: at most 10000 characters").optional();

export const taskRouter = createTRPCRouter({
  list: publicProcedure.input(listTasksInputSchema).query(({ ctx, input }) => listTasks({ prisma: ctx.prisma, ...input })),
  get: publicProcedure.input(taskIdSchema).query(({ ctx, input }) => getTaskDetailOrThrow({ prisma: ctx.prisma, taskId: input.taskId })),
  steps: publicProcedure
    .input(taskIdSchema.extend({ limit: z.number().int().min(1).max(5000).default(2000) }))
    .query(({ ctx, input }) => listSteps({ prisma: ctx.prisma, taskId: input.taskId, limit: input.limit })),
  step: publicProcedure
    .input(z.object({ runId: z.string().min(1).max(100), stepId: z.string().min(1).max(200) }))
    .query(({ ctx, input }) => getStepOrThrow({ prisma: ctx.prisma, ...input })),
  launch: publicProcedure
    .input(launchTaskInputSchema)
    .mutation(({ ctx, input }) => launchTask({ input, actor: ctx.actor, ports: prismaLaunchPorts({ prisma: ctx.prisma, sendRunStarted }) })),
  resume: publicProcedure
    .input(taskIdSchema.extend({ checkpointId: idSchema.optional(), guidance: guidanceSchema }))
    .mutation(({ ctx, input }) =>
      resumeTask({ ...input, guidance: input.guidance || null, cause: "resume", actor: ctx.actor, ports: prismaResumePorts({ prisma: ctx.prisma, sendRunStarted }) }),
    ),
  fork: publicProcedure
    .input(taskIdSchema.extend({ checkpointId: idSchema, guidance: guidanceSchema }))
    .mutation(({ ctx, input }) =>
      resumeTask({ ...input, guidance: input.guidance || null, cause: "fork", actor: ctx.actor, ports: prismaResumePorts({ prisma: ctx.prisma, sendRunStarted }) }),
    ),
  requestCheckpoint: publicProcedure.input(taskIdSchema).mutation(({ ctx, input }) => requestCheckpoint({ prisma: ctx.prisma, taskId: input.taskId })),
  checkpoints: publicProcedure.input(taskIdSchema).query(({ ctx, input }) => listCheckpoints({ prisma: ctx.prisma, taskId: input.taskId })),
  checkpoint: publicProcedure.input(z.object({ checkpointId: idSchema })).query(({ ctx, input }) => getCheckpointOrThrow({ prisma: ctx.prisma, checkpointId: input.checkpointId })),
  diff: publicProcedure
    .input(taskIdSchema.extend({ fromId: idSchema.nullable(), toId: idSchema }))
    .query(({ ctx, input }) => diffCheckpoints({ prisma: ctx.prisma, ...input })),
  cancel: publicProcedure
    .input(taskIdSchema)
    .mutation(({ ctx, input }) => cancelTask({ taskId: input.taskId, actor: ctx.actor, ports: prismaCancelPorts({ prisma: ctx.prisma, sendRunCancelled }) })),
});
