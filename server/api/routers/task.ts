import { z } from "zod";
import { prismaCancelPorts } from "../../db/cancel-ports.ts";
import { prismaLaunchPorts } from "../../db/launch-ports.ts";
import { getStepOrThrow, getTaskDetailOrThrow, listSteps, listTasks, TASK_STATUSES } from "../../db/task-queries.ts";
import { diffCheckpoints, getCheckpointOrThrow, listCheckpoints, requestCheckpoint } from "../../db/checkpoint-queries.ts";
import { prismaResumePorts } from "../../db/resume-ports.ts";
import { cancelTask } from "../../domain/cancel-task.ts";
import { resumeTask } from "../../domain/resume-task.ts";

import { launchTask, launchTaskInputSchema } from "../../domain/launch-task.ts";
import { sendRunCancelled, sendRunStarted } from "../../inngest/send.ts";
import { createTRPCRouter, operatorProcedure, ownTaskProcedure, readProcedure } from "../trpc.ts";

export const listTasksInputSchema = z.object({
  status: z.enum(TASK_STATUSES).optional(),
  cursor: z.string().max(100).optional(),
  limit: z.number().int().min(1).max(200).default(50),
});

const taskIdSchema = z.object({ taskId: z.string().min(1).max(100) });
const idSchema = z.string().min(1).max(100);
const guidanceSchema = z.string().trim().max(10_000, "guidance: at most 10000 characters").optional();

export const taskRouter = createTRPCRouter({
  list: readProcedure.input(listTasksInputSchema).query(({ ctx, input }) => listTasks({ prisma: ctx.prisma, ...input })),
  get: readProcedure.input(taskIdSchema).query(({ ctx, input }) => getTaskDetailOrThrow({ prisma: ctx.prisma, taskId: input.taskId })),
  steps: readProcedure
    .input(taskIdSchema.extend({ limit: z.number().int().min(1).max(5000).default(2000) }))
    .query(({ ctx, input }) => listSteps({ prisma: ctx.prisma, taskId: input.taskId, limit: input.limit })),
  step: readProcedure
    .input(z.object({ runId: z.string().min(1).max(100), stepId: z.string().min(1).max(200) }))
    .query(({ ctx, input }) => getStepOrThrow({ prisma: ctx.prisma, ...input })),
  launch: operatorProcedure
    .input(launchTaskInputSchema)
    .mutation(({ ctx, input }) => launchTask({ input, actor: ctx.actor, ports: prismaLaunchPorts({ prisma: ctx.prisma, sendRunStarted }) })),
  resume: ownTaskProcedure
    .input(taskIdSchema.extend({ checkpointId: idSchema.optional(), guidance: guidanceSchema }))
    .mutation(({ ctx, input }) =>
      resumeTask({ ...input, guidance: input.guidance || null, cause: "resume", actor: ctx.actor, ports: prismaResumePorts({ prisma: ctx.prisma, sendRunStarted }) }),
    ),
  fork: ownTaskProcedure
    .input(taskIdSchema.extend({ checkpointId: idSchema, guidance: guidanceSchema }))
    .mutation(({ ctx, input }) =>
      resumeTask({ ...input, guidance: input.guidance || null, cause: "fork", actor: ctx.actor, ports: prismaResumePorts({ prisma: ctx.prisma, sendRunStarted }) }),
    ),
  requestCheckpoint: ownTaskProcedure.input(taskIdSchema).mutation(({ ctx, input }) => requestCheckpoint({ prisma: ctx.prisma, taskId: input.taskId })),
  checkpoints: readProcedure.input(taskIdSchema).query(({ ctx, input }) => listCheckpoints({ prisma: ctx.prisma, taskId: input.taskId })),
  checkpoint: readProcedure.input(z.object({ checkpointId: idSchema })).query(({ ctx, input }) => getCheckpointOrThrow({ prisma: ctx.prisma, checkpointId: input.checkpointId })),
  diff: readProcedure
    .input(taskIdSchema.extend({ fromId: idSchema.nullable(), toId: idSchema }))
    .query(({ ctx, input }) => diffCheckpoints({ prisma: ctx.prisma, ...input })),
  cancel: ownTaskProcedure
    .input(taskIdSchema)
    .mutation(({ ctx, input }) => cancelTask({ taskId: input.taskId, actor: ctx.actor, ports: prismaCancelPorts({ prisma: ctx.prisma, sendRunCancelled }) })),
});
