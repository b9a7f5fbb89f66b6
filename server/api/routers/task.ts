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
import { idField, inputObject, textField } from "../../domain/input-fields.ts";
import { createTRPCRouter, operatorProcedure, ownTaskProcedure, readProcedure } from "../trpc.ts";

export const listTasksInputSchema = inputObject({
  status: z.enum(TASK_STATUSES, `status: one of ${TASK_STATUSES.join(", ")}`).optional(),
  cursor: idField("cursor").optional(),
  limit: z.number("limit: a whole number").int("limit: a whole number").min(1, "limit: at least 1").max(200, "limit: at most 200").default(50),
});

const taskIdSchema = inputObject({ taskId: idField("taskId") });
const idSchema = (field: string) => idField(field);
const guidanceSchema = textField("guidance", 10_000).optional();

export const taskRouter = createTRPCRouter({
  list: readProcedure.input(listTasksInputSchema).query(({ ctx, input }) => listTasks({ prisma: ctx.prisma, ...input })),
  get: readProcedure.input(taskIdSchema).query(({ ctx, input }) => getTaskDetailOrThrow({ prisma: ctx.prisma, taskId: input.taskId })),
  steps: readProcedure
    .input(taskIdSchema.extend({ limit: z.number("limit: a whole number").int("limit: a whole number").min(1, "limit: at least 1").max(5000, "limit: at most 5000").default(2000) }))
    .query(({ ctx, input }) => listSteps({ prisma: ctx.prisma, taskId: input.taskId, limit: input.limit })),
  step: readProcedure
    .input(inputObject({ runId: idField("runId"), stepId: idField("stepId", 200) }))
    .query(({ ctx, input }) => getStepOrThrow({ prisma: ctx.prisma, ...input })),
  launch: operatorProcedure
    .input(launchTaskInputSchema)
    .mutation(({ ctx, input }) => launchTask({ input, actor: ctx.actor, ports: prismaLaunchPorts({ prisma: ctx.prisma, sendRunStarted }) })),
  resume: ownTaskProcedure
    .input(taskIdSchema.extend({ checkpointId: idSchema("checkpointId").optional(), guidance: guidanceSchema }))
    .mutation(({ ctx, input }) =>
      resumeTask({ ...input, guidance: input.guidance || null, cause: "resume", actor: ctx.actor, ports: prismaResumePorts({ prisma: ctx.prisma, sendRunStarted }) }),
    ),
  fork: ownTaskProcedure
    .input(taskIdSchema.extend({ checkpointId: idSchema("checkpointId"), guidance: guidanceSchema }))
    .mutation(({ ctx, input }) =>
      resumeTask({ ...input, guidance: input.guidance || null, cause: "fork", actor: ctx.actor, ports: prismaResumePorts({ prisma: ctx.prisma, sendRunStarted }) }),
    ),
  requestCheckpoint: ownTaskProcedure.input(taskIdSchema).mutation(({ ctx, input }) => requestCheckpoint({ prisma: ctx.prisma, taskId: input.taskId })),
  checkpoints: readProcedure.input(taskIdSchema).query(({ ctx, input }) => listCheckpoints({ prisma: ctx.prisma, taskId: input.taskId })),
  checkpoint: readProcedure.input(inputObject({ checkpointId: idSchema("checkpointId") })).query(({ ctx, input }) => getCheckpointOrThrow({ prisma: ctx.prisma, checkpointId: input.checkpointId })),
  diff: readProcedure
    .input(taskIdSchema.extend({ fromId: idSchema("fromId").nullable(), toId: idSchema("toId") }))
    .query(({ ctx, input }) => diffCheckpoints({ prisma: ctx.prisma, ...input })),
  cancel: ownTaskProcedure
    .input(taskIdSchema)
    .mutation(({ ctx, input }) => cancelTask({ taskId: input.taskId, actor: ctx.actor, ports: prismaCancelPorts({ prisma: ctx.prisma, sendRunCancelled }) })),
});
