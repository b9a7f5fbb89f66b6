import { z } from "zod";
import { prismaCancelPorts } from "../../db/cancel-ports.ts";
import { prismaLaunchPorts } from "../../db/launch-ports.ts";
import { launchTools } from "../../tools/launch-tools.ts";
import {
  getModelPromptOrThrow,
  getStepOrThrow,
  getTaskDetailOrThrow,
  listProfileNames,
  listSteps,
  listTasks,
  searchSteps,
  TASK_OUTCOMES,
  TASK_SORTS,
  TASK_STATUSES,
} from "../../db/task-queries.ts";
import { diffCheckpoints, getCheckpointOrThrow, getResumePreview, listCheckpoints } from "../../db/checkpoint-queries.ts";
import { requestCheckpoint } from "../../db/run-requests.ts";
import { getExecutorView } from "../../db/executor-view-queries.ts";
import { prismaResumePorts } from "../../db/resume-ports.ts";
import { cancelTask } from "../../domain/cancel-task.ts";
import { resumeTask } from "../../domain/resume-task.ts";
import { forkTask } from "../../domain/fork-task.ts";
import { prismaForkPorts } from "../../db/fork-ports.ts";
import { getBatchOrThrow, prismaBatchPorts } from "../../db/batch-ports.ts";
import { BATCH_ACTIONS, BATCH_MAX_TASKS, previewBatch, startBatch, type BatchActor } from "../../domain/batch-tasks.ts";
import { env } from "../../env.ts";
import type { Principal } from "../../auth/principal.ts";

import { launchTask, launchTaskInputSchema } from "../../domain/launch-task.ts";
import { sendBatchItems, sendRunCancelled, sendRunStarted } from "../../inngest/send.ts";
import { idempotencyKeyField, idField, inputObject, textField } from "../../domain/input-fields.ts";
import { onceByKey, requestKeyActor } from "../../db/request-keys.ts";
import { FAILURE_CLASSES } from "../../features/costs/index.ts";
import { calendarDayProblem, filterInstantProblem } from "../../../lib/contracts/dates.ts";
import { executorViewOutput, launchEstimateOutput } from "../output-schemas.ts";
import {
  batchPreviewOutput,
  batchProgressOutput,
  batchStartOutput,
  cancelOutput,
  checkpointDiffOutput,
  checkpointOutput,
  checkpointsOutput,
  forkOutput,
  launchOutput,
  profileNamesOutput,
  resumeOutput,
  resumePreviewOutput,
  searchStepsOutput,
  stepPromptOutput,
  taskDetailOutput,
  taskListOutput,
  taskStepOutput,
  taskStepsOutput,
} from "../output-schemas-task.ts";
import { runIdOutput } from "../output-schemas-shared.ts";
import { readLaunchEstimate } from "../../db/launch-estimate-queries.ts";
import { MAX_DEMO_PACKAGES } from "../../../lib/contracts/limits.ts";
import { createTRPCRouter, operatorProcedure, ownTaskProcedure, procedureFor, readProcedure } from "../trpc.ts";
import { redactSecrets, redactStepForBrowser } from "../../tools/egress-redact.ts";
import { TASK_ORIGINS } from "../../../lib/contracts/task-origin.ts";

const dateSchema = (field: string) =>
  z
    .union([z.iso.date(), z.iso.datetime({ offset: true }), z.date()], { error: `${field}: not a date (use YYYY-MM-DD or an ISO timestamp)` })
    .superRefine((v, ctx) => {
      const problem = typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v) ? calendarDayProblem(v) : null;
      if (problem) ctx.addIssue({ code: "custom", message: `${field}: ${problem}` });
    })
    .transform((v) => (v instanceof Date ? v : new Date(v)))
    .superRefine((d, ctx) => {
      const problem = filterInstantProblem(d);
      if (problem) ctx.addIssue({ code: "custom", message: `${field}: ${problem} (use YYYY-MM-DD or an ISO timestamp)` });
    });

/**
 * An instant (ISO 8601 with its zone, e.g. 2026-12-02T14:05:00Z, or a Date): `since` of the task
 * list, the "Launched since (UTC)" field — unlike `from` it is never a bare day.
 */
const instantSchema = (field: string) => {
  const error = `${field}: not an instant (use an ISO time with its zone, e.g. 2026-12-02T14:05:00Z)`;
  return z
    .union([z.iso.datetime({ offset: true, error }), z.date({ error })], { error })
    .transform((v) => (v instanceof Date ? v : new Date(v)))
    .superRefine((d, ctx) => {
      const problem = filterInstantProblem(d);
      if (problem) ctx.addIssue({ code: "custom", message: `${field}: ${problem}` });
    });
};

/** The task list's filter fields (task.list, and the selection of a batch operation). */
const taskFilterShape = {
  /** One status or several (any of them). */
  status: z
    .union([z.enum(TASK_STATUSES), z.array(z.enum(TASK_STATUSES)).min(1, "status: at least one status").max(TASK_STATUSES.length)])
    .transform((s) => (Array.isArray(s) ? s : [s]))
    .optional(),
  profile: textField("profile", 100)
    .refine((v) => v.length > 0, "profile: must not be blank")
    .optional(),
  outcome: z.enum(TASK_OUTCOMES).optional(),
  model: textField("model", 200)
    .refine((v) => v.length > 0, "model: must not be blank")
    .optional(),
  failure: z.enum(FAILURE_CLASSES, { error: `failure: one of ${FAILURE_CLASSES.join(", ")}` }).optional(),
  from: dateSchema("from").optional(),
  to: dateSchema("to").optional(),
  /** Launched at or after this instant (the list's "Launched since (UTC)"; a spec or a CLI batch scopes itself to its own tasks). */
  since: instantSchema("since").optional(),
  q: textField("q", 200)
    .refine((v) => v.length > 0, "q: must not be blank (leave it out to search nothing)")
    .optional(),
  /** Production tasks, eval cells, or both (lib/contracts/task-origin.ts); absent = both. */
  origin: z.enum(TASK_ORIGINS, { error: `origin: one of ${TASK_ORIGINS.join(", ")}` }).optional(),
};

const fromBeforeTo = (f: { from?: Date; to?: Date }) => !f.from || !f.to || f.from.getTime() < f.to.getTime();

export const listTasksInputSchema = inputObject({
  ...taskFilterShape,
  sort: z.enum(TASK_SORTS).default("newest"),
  cursor: textField("cursor", 200)
    .refine((v) => v.length > 0, "cursor: must not be blank")
    .optional(),
  limit: z.number("limit: a whole number").int("limit: a whole number").min(1, "limit: at least 1").max(200, "limit: at most 200").default(50),
}).refine(fromBeforeTo, { message: "from: must be before to", path: ["from"] });

/**
 * A batch operation's tasks: chosen by id (the list's selection column), or every task the list's
 * filter matches (at least one filter field, so "everything" is never one click away).
 */
export const batchSelectionSchema = z.union(
  [
    inputObject({ taskIds: z.array(idField("taskIds")).min(1, "taskIds: at least one task").max(BATCH_MAX_TASKS, `taskIds: at most ${BATCH_MAX_TASKS}`) }),
    inputObject({
      filter: inputObject(taskFilterShape)
        .refine(fromBeforeTo, { message: "filter.from: must be before to", path: ["from"] })
        // `origin` alone narrows nothing down to a choice (all production tasks is still "everything").
        .refine(
          ({ origin: _origin, ...f }) => Object.values(f).some((v) => v !== undefined),
          "filter: give at least one of status, profile, model, failure, from, to, since, q",
        ),
    }),
  ],
  { error: "selection: give taskIds or a filter" },
);

export const batchInputSchema = inputObject({
  action: z.enum(BATCH_ACTIONS, { error: `action: one of ${BATCH_ACTIONS.join(", ")}` }),
  selection: batchSelectionSchema,
});

/** The actor of a batch: its resumes and cancels are this principal's, checked task by task as the single-task buttons are. */
function batchActor(principal: Principal): BatchActor {
  return {
    name: principal.name,
    userId: principal.userId,
    roles: principal.roles,
    via: principal.via === "token" ? `token:${principal.tokenId ?? "?"}` : "session",
  };
}

const batchProcedure = procedureFor("operator", "admin");

const taskIdSchema = inputObject({ taskId: idField("taskId") });
const idSchema = (field: string) => idField(field);
const guidanceSchema = textField("guidance", 10_000).optional();
/** The idempotency key of a mutation: the same key from the same actor for the same action is one action (server/db/request-keys.ts). */
const keySchema = idempotencyKeyField().optional();

export const taskRouter = createTRPCRouter({
  list: readProcedure
    .input(listTasksInputSchema)
    .output(taskListOutput)
    .query(({ ctx, input }) => listTasks({ prisma: ctx.prisma, ...input })),
  get: readProcedure
    .input(taskIdSchema)
    .output(taskDetailOutput)
    .query(({ ctx, input }) => getTaskDetailOrThrow({ prisma: ctx.prisma, taskId: input.taskId })),
  profiles: readProcedure.output(profileNamesOutput).query(({ ctx }) => listProfileNames({ prisma: ctx.prisma })),
  steps: readProcedure
    .input(
      taskIdSchema.extend({
        limit: z.number("limit: a whole number").int("limit: a whole number").min(1, "limit: at least 1").max(20_000, "limit: at most 20000").default(10_000),
      }),
    )
    .output(taskStepsOutput)
    // The request's signal: a list the browser stopped waiting for (page closed or left) stops in PostgreSQL too.
    .query(({ ctx, input, signal }) => listSteps({ prisma: ctx.prisma, taskId: input.taskId, limit: input.limit, signal })),
  /** Steps whose arguments, output, summary or error contain `text`: `<runId>:<stepId>` keys. */
  searchSteps: readProcedure
    .input(taskIdSchema.extend({ text: textField("text", 200).pipe(z.string().min(1, "text: at least 1 character")) }))
    .output(searchStepsOutput)
    .query(({ ctx, input }) => searchSteps({ prisma: ctx.prisma, taskId: input.taskId, text: input.text })),
  step: readProcedure
    .input(inputObject({ runId: idField("runId"), stepId: idField("stepId", 200) }))
    .output(taskStepOutput)
    // Secrets the agent read or wrote are cut from what the browser gets; the stored row stays exact.
    .query(async ({ ctx, input }) => redactStepForBrowser(await getStepOrThrow({ prisma: ctx.prisma, ...input }))),
  /** The messages a model step was sent (rebuilt with the run's context builder; see getModelPromptOrThrow), secrets redacted. */
  stepPrompt: readProcedure
    .input(inputObject({ runId: idField("runId"), stepId: idField("stepId", 200) }))
    .output(stepPromptOutput)
    .query(async ({ ctx, input }) => (await redactSecrets(await getModelPromptOrThrow({ prisma: ctx.prisma, ...input }))).value),
  /** What the executor is doing with a run now (running, queued, sleeping, waiting, retrying …), or why that is unavailable; see getExecutorView. */
  executorView: readProcedure
    .input(inputObject({ runId: idField("runId") }))
    .output(executorViewOutput)
    .query(({ ctx, input }) => getExecutorView({ prisma: ctx.prisma, runId: input.runId })),
  /**
   * What similar completed tasks cost, shown on the launch form before Launch: for a goal,
   * the profile's completed goal tasks; for a demo, its completed tasks of that kind scaled per package
   * to `demo.limit` (readLaunchEstimate).
   */
  estimateLaunch: readProcedure
    .input(
      inputObject({
        profile: textField("profile", 100).refine((v) => v.length > 0, "profile: must not be blank"),
        demo: z
          .object({
            kind: z.enum(["license-audit", "mcp-audit"], "demo.kind: license-audit or mcp-audit"),
            limit: z
              .number("demo.limit: a whole number")
              .int("demo.limit: a whole number")
              .min(1, "demo.limit: at least 1")
              .max(MAX_DEMO_PACKAGES, `demo.limit: at most ${MAX_DEMO_PACKAGES}`),
          })
          .optional(),
      }),
    )
    .output(launchEstimateOutput)
    .query(({ ctx, input }) => readLaunchEstimate({ prisma: ctx.prisma, ...input })),
  /** Its launchKey is its idempotency key: the same key from the same actor is one launch, also when two arrive at once. */
  launch: operatorProcedure
    .input(launchTaskInputSchema)
    .output(launchOutput)
    .mutation(({ ctx, input }) =>
      onceByKey({
        prisma: ctx.prisma,
        actor: requestKeyActor(ctx.principal),
        action: "task.launch",
        key: input.launchKey,
        input,
        run: () => launchTask({ input, actor: ctx.actor, ports: prismaLaunchPorts({ prisma: ctx.prisma, sendRunStarted, tools: launchTools }) }),
      }),
    ),
  resume: ownTaskProcedure
    .input(taskIdSchema.extend({ checkpointId: idSchema("checkpointId").optional(), guidance: guidanceSchema, idempotencyKey: keySchema }))
    .output(resumeOutput)
    .mutation(({ ctx, input }) =>
      onceByKey({
        prisma: ctx.prisma,
        actor: requestKeyActor(ctx.principal),
        action: "task.resume",
        key: input.idempotencyKey,
        input,
        run: () =>
          resumeTask({
            taskId: input.taskId,
            checkpointId: input.checkpointId,
            guidance: input.guidance || null,
            cause: "resume",
            actor: ctx.actor,
            ports: prismaResumePorts({ prisma: ctx.prisma, sendRunStarted }),
          }),
      }),
    ),
  /** A new task branched off a checkpoint of this one (linked both ways); the original is not touched. */
  fork: ownTaskProcedure
    .input(
      taskIdSchema.extend({
        checkpointId: idSchema("checkpointId"),
        guidance: guidanceSchema,
        /**
         * Side effects the task committed after the checkpoint to do again: their idempotency keys (as
         * task.resumePreview lists them in `effectsAfter`), or "all". The others are reused (default: all).
         */
        redoEffects: z
          .union([z.literal("all"), z.array(idField("redoEffects", 400)).max(1000, "redoEffects: at most 1000 keys")], {
            error: 'redoEffects: "all" or a list of idempotency keys',
          })
          .optional(),
        idempotencyKey: keySchema,
      }),
    )
    .output(forkOutput)
    .mutation(({ ctx, input }) =>
      onceByKey({
        prisma: ctx.prisma,
        actor: requestKeyActor(ctx.principal),
        action: "task.fork",
        key: input.idempotencyKey,
        input,
        run: () =>
          forkTask({
            taskId: input.taskId,
            checkpointId: input.checkpointId,
            guidance: input.guidance || null,
            redoEffects: input.redoEffects ?? [],
            actor: ctx.actor,
            ports: prismaForkPorts({ prisma: ctx.prisma, sendRunStarted }),
          }),
      }),
    ),
  requestCheckpoint: ownTaskProcedure
    .input(taskIdSchema)
    .output(runIdOutput)
    .mutation(({ ctx, input }) => requestCheckpoint({ prisma: ctx.prisma, taskId: input.taskId })),
  /** What a resume or fork from a checkpoint (default: the latest good one) keeps and what it will redo; see getResumePreview. */
  resumePreview: readProcedure
    .input(taskIdSchema.extend({ checkpointId: idSchema("checkpointId").optional() }))
    .output(resumePreviewOutput)
    // The effects' one-line summaries quote tool arguments: secrets in them are cut before the browser.
    .query(
      async ({ ctx, input }) =>
        (await redactSecrets(await getResumePreview({ prisma: ctx.prisma, taskId: input.taskId, checkpointId: input.checkpointId ?? null }))).value,
    ),
  checkpoints: readProcedure
    .input(taskIdSchema)
    .output(checkpointsOutput)
    .query(({ ctx, input }) => listCheckpoints({ prisma: ctx.prisma, taskId: input.taskId })),
  checkpoint: readProcedure
    .input(inputObject({ checkpointId: idSchema("checkpointId") }))
    .output(checkpointOutput)
    .query(({ ctx, input }) => getCheckpointOrThrow({ prisma: ctx.prisma, checkpointId: input.checkpointId })),
  diff: readProcedure
    .input(taskIdSchema.extend({ fromId: idSchema("fromId").nullable(), toId: idSchema("toId") }))
    .output(checkpointDiffOutput)
    .query(({ ctx, input }) => diffCheckpoints({ prisma: ctx.prisma, ...input })),
  /** What a batch resume or cancel would do: tasks matched, taken, skipped (by reason), estimated cost. Writes nothing. */
  batchPreview: batchProcedure
    .input(batchInputSchema)
    .output(batchPreviewOutput)
    .query(({ ctx, input }) =>
      previewBatch({
        ...input,
        actor: batchActor(ctx.principal),
        concurrency: env().LONGHAUL_BATCH_CONCURRENCY,
        ports: prismaBatchPorts({ prisma: ctx.prisma, sendItems: sendBatchItems }),
      }),
    ),
  /** Starts a batch resume (each task from its latest checkpoint) or cancel; applied task by task under a concurrency cap. */
  batchStart: batchProcedure
    .input(batchInputSchema.extend({ guidance: guidanceSchema, idempotencyKey: keySchema }))
    .output(batchStartOutput)
    .mutation(({ ctx, input }) =>
      onceByKey({
        prisma: ctx.prisma,
        actor: requestKeyActor(ctx.principal),
        action: "task.batchStart",
        key: input.idempotencyKey,
        input,
        run: () =>
          startBatch({
            action: input.action,
            selection: input.selection,
            guidance: input.guidance || null,
            actor: batchActor(ctx.principal),
            concurrency: env().LONGHAUL_BATCH_CONCURRENCY,
            ports: prismaBatchPorts({ prisma: ctx.prisma, sendItems: sendBatchItems }),
          }),
      }),
    ),
  /** A batch's progress: items by status (pending, running, done, skipped, failed) and each item. */
  batch: readProcedure
    .input(inputObject({ batchId: idField("batchId") }))
    .output(batchProgressOutput)
    .query(({ ctx, input }) => getBatchOrThrow({ prisma: ctx.prisma, batchId: input.batchId })),
  cancel: ownTaskProcedure
    .input(taskIdSchema)
    .output(cancelOutput)
    .mutation(({ ctx, input }) => cancelTask({ taskId: input.taskId, actor: ctx.actor, ports: prismaCancelPorts({ prisma: ctx.prisma, sendRunCancelled }) })),
});
