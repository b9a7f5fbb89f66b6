import { z } from "zod";
import { prismaCancelPorts } from "../../db/cancel-ports.ts";
import { prismaLaunchPorts } from "../../db/launch-ports.ts";
import { getModelPromptOrThrow, getStepOrThrow, getTaskDetailOrThrow, listProfileNames, listSteps, listTasks, searchSteps, TASK_OUTCOMES, TASK_SORTS, TASK_STATUSES } from "../../db/task-queries.ts";
import { diffCheckpoints, getCheckpointOrThrow, listCheckpoints, requestCheckpoint } from "../../db/checkpoint-queries.ts";
import { prismaResumePorts } from "../../db/resume-ports.ts";
import { cancelTask } from "../../domain/cancel-task.ts";
import { resumeTask } from "../../domain/resume-task.ts";

import { launchTask, launchTaskInputSchema } from "../../domain/launch-task.ts";
import { sendRunCancelled, sendRunStarted } from "../../inngest/send.ts";
import { createTRPCRouter, publicProcedure } from "../trpc.ts";

const dateSchema = (field: string) =>
  z.coerce.date({ error: `${field}: not a date (use YYYY-MM-DD or an ISO timestamp)` }).refine((d) => !Number.isNaN(d.getTime()), `${field}: not a date (use YYYY-MM-DD or an ISO timestamp)`);

export const listTasksInputSchema = z.object({
  /** One status or several (any of them). */
  status: z
    .union([z.enum(TASK_STATUSES), z.array(z.enum(TASK_STATUSES)).max(TASK_STATUSES.length)])
    .transform((s) => (Array.isArray(s) ? s : [s]))
    .optional(),
  profile: z.string().max(100, "profile: at most 100 characters").optional(),
  outcome: z.enum(TASK_OUTCOMES).optional(),
  from: dateSchema("from").optional(),
  to: dateSchema("to").optional(),
  q: z.string().max(200, "q: at most 200 characters").optional(),
  sort: z.enum(TASK_SORTS).default("newest"),
  cursor: z.string().max(200).optional(),
  limit: z.number().int().min(1).max(200).default(50),
});

const taskIdSchema = z.object({ taskId: z.string().min(1).max(100) });
const idSchema = z.string().min(1).max(100);
const guidanceSchema = z.string().trim().max(10_000, "guidance: at most 10000 characters").optional();

export const taskRouter = createTRPCRouter({
  list: publicProcedure.input(listTasksInputSchema).query(({ ctx, input }) => listTasks({ prisma: ctx.prisma, ...input })),
  get: publicProcedure.input(taskIdSchema).query(({ ctx, input }) => getTaskDetailOrThrow({ prisma: ctx.prisma, taskId: input.taskId })),
  profiles: publicProcedure.query(({ ctx }) => listProfileNames({ prisma: ctx.prisma })),
  steps: publicProcedure
    .input(taskIdSchema.extend({ limit: z.number().int().min(1).max(20_000).default(10_000) }))
    .query(({ ctx, input }) => listSteps({ prisma: ctx.prisma, taskId: input.taskId, limit: input.limit })),
  /** Steps whose arguments, output, summary or error contain `text`: `<runId>:<stepId>` keys. */
  searchSteps: publicProcedure
    .input(taskIdSchema.extend({ text: z.string().trim().min(1, "text: at least 1 character").max(200, "text: at most 200 characters") }))
    .query(({ ctx, input }) => searchSteps({ prisma: ctx.prisma, taskId: input.taskId, text: input.text })),
  step: publicProcedure
    .input(z.object({ runId: z.string().min(1).max(100), stepId: z.string().min(1).max(200) }))
    .query(({ ctx, input }) => getStepOrThrow({ prisma: ctx.prisma, ...input })),
  /** The messages a model step was sent (rebuilt with the run's context builder; see getModelPromptOrThrow). */
  stepPrompt: publicProcedure
    .input(z.object({ runId: z.string().min(1).max(100), stepId: z.string().min(1).max(200) }))
    .query(({ ctx, input }) => getModelPromptOrThrow({ prisma: ctx.prisma, ...input })),
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
