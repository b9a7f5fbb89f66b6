import { z } from "zod";
import { listCurrentWorkingSet, listStepWorkingSetChanges, listWorkingSetHistory, summariseWorkingSet } from "../../db/working-set-queries.ts";
import { createTRPCRouter, readProcedure } from "../trpc.ts";

/** Most changes (or current facts) one page returns. */
export const WORKING_SET_PAGE_MAX = 500;

const taskId = z.string().min(1, "taskId: required").max(100, "taskId: at most 100 characters");
/** Fact keys are 1–200 characters (record_fact), so a longer prefix cannot match anything. */
const keyPrefix = z.string().max(200, "keyPrefix: at most 200 characters (a fact key's limit)").default("");
const limit = z
  .number()
  .int("limit: a whole number")
  .min(1, "limit: at least 1")
  .max(WORKING_SET_PAGE_MAX, `limit: at most ${WORKING_SET_PAGE_MAX} per page; follow nextCursor for more`)
  .default(200);

export const workingSetHistoryInputSchema = z.object({
  taskId,
  keyPrefix,
  /** Exclusive: the page starts after this change (the previous page's nextCursor). */
  cursor: z
    .object({
      runId: z.string().min(1, "cursor.runId: required").max(100, "cursor.runId: at most 100 characters"),
      stepIndex: z.number().int("cursor.stepIndex: a whole number").min(-1, "cursor.stepIndex: at least -1 (a run's start)"),
      key: z.string().max(200, "cursor.key: at most 200 characters"),
    })
    .nullish(),
  limit,
});
export type WorkingSetHistoryInput = z.input<typeof workingSetHistoryInputSchema>;

export const workingSetCurrentInputSchema = z.object({
  taskId,
  keyPrefix,
  /** Exclusive: the page starts after this key (the previous page's nextCursor). */
  cursor: z.string().max(200, "cursor: at most 200 characters (a fact key)").nullish(),
  limit,
});

export const workingSetStepInputSchema = z.object({
  taskId,
  runId: z.string().min(1, "runId: required").max(100, "runId: at most 100 characters"),
  stepId: z.string().min(1, "stepId: required").max(200, "stepId: at most 200 characters"),
});

/** Working-set history of a task (step-by-step fact changes, blamed on the step that caused each). */
export const workingSetRouter = createTRPCRouter({
  /** Changes oldest first, paged by (run, step index, key); filter by key prefix. */
  history: readProcedure
    .input(workingSetHistoryInputSchema)
    .query(({ ctx, input }) => listWorkingSetHistory({ prisma: ctx.prisma, taskId: input.taskId, keyPrefix: input.keyPrefix, cursor: input.cursor ?? null, limit: input.limit })),
  /** The working set the latest run works with, by key, each fact with the change that set it. */
  current: readProcedure
    .input(workingSetCurrentInputSchema)
    .query(({ ctx, input }) => listCurrentWorkingSet({ prisma: ctx.prisma, taskId: input.taskId, keyPrefix: input.keyPrefix, cursor: input.cursor ?? null, limit: input.limit })),
  /** The changes one step caused (the step detail panel). */
  step: readProcedure.input(workingSetStepInputSchema).query(({ ctx, input }) => listStepWorkingSetChanges({ prisma: ctx.prisma, ...input })),
  /** Per-step change counts (timeline marks), current size and number of changes. */
  summary: readProcedure.input(z.object({ taskId })).query(({ ctx, input }) => summariseWorkingSet({ prisma: ctx.prisma, taskId: input.taskId })),
});
