import { z } from "zod";
import { listCurrentWorkingSet, listStepWorkingSetChanges, listWorkingSetHistory, summariseWorkingSet } from "../../db/working-set-queries.ts";
import { idField, inputObject } from "../../domain/input-fields.ts";
import { workingSetCurrentOutput, workingSetHistoryOutput, workingSetStepOutput, workingSetSummaryOutput } from "../output-schemas.ts";
import { createTRPCRouter, readProcedure } from "../trpc.ts";

/** Most changes (or current facts) one page returns. */
export const WORKING_SET_PAGE_MAX = 500;

const taskId = idField("taskId");
/** Fact keys are 1–200 characters (record_fact), so a longer prefix cannot match anything. */
const keyPrefix = z
  .string("keyPrefix: must be text")
  .max(200, "keyPrefix: at most 200 characters (a fact key's limit)")
  .refine((v) => !v.includes("\0"), "keyPrefix: must not contain NUL characters (\\u0000): PostgreSQL cannot store them")
  .default("");
const limit = z
  .number()
  .int("limit: a whole number")
  .min(1, "limit: at least 1")
  .max(WORKING_SET_PAGE_MAX, `limit: at most ${WORKING_SET_PAGE_MAX} per page; follow nextCursor for more`)
  .default(200);

export const workingSetHistoryInputSchema = inputObject({
  taskId,
  keyPrefix,
  /** Exclusive: the page starts after this change (the previous page's nextCursor). */
  cursor: z
    .object(
      {
        runId: idField("cursor.runId"),
        stepIndex: z.number().int("cursor.stepIndex: a whole number").min(-1, "cursor.stepIndex: at least -1 (a run's start)"),
        key: z
          .string("cursor.key: must be text")
          .max(200, "cursor.key: at most 200 characters")
          .refine((v) => !v.includes("\0"), "cursor.key: must not contain NUL characters (\\u0000)"),
      },
      "cursor: must be {runId, stepIndex, key} (the previous page's nextCursor) or null",
    )
    .nullish(),
  limit,
});
export type WorkingSetHistoryInput = z.input<typeof workingSetHistoryInputSchema>;

export const workingSetCurrentInputSchema = inputObject({
  taskId,
  keyPrefix,
  /** Exclusive: the page starts after this key (the previous page's nextCursor). */
  cursor: z
    .string("cursor: must be text (a fact key)")
    .max(200, "cursor: at most 200 characters (a fact key)")
    .refine((v) => !v.includes("\0"), "cursor: must not contain NUL characters (\\u0000)")
    .nullish(),
  limit,
});

export const workingSetStepInputSchema = inputObject({
  taskId,
  runId: idField("runId"),
  stepId: idField("stepId", 200),
});

/** Working-set history of a task (step-by-step fact changes, blamed on the step that caused each). */
export const workingSetRouter = createTRPCRouter({
  /** Changes oldest first, paged by (run, step index, key); filter by key prefix. */
  history: readProcedure
    .input(workingSetHistoryInputSchema)
    .output(workingSetHistoryOutput)
    .query(({ ctx, input }) =>
      listWorkingSetHistory({ prisma: ctx.prisma, taskId: input.taskId, keyPrefix: input.keyPrefix, cursor: input.cursor ?? null, limit: input.limit }),
    ),
  /** The working set the latest run works with, by key, each fact with the change that set it. */
  current: readProcedure
    .input(workingSetCurrentInputSchema)
    .output(workingSetCurrentOutput)
    .query(({ ctx, input }) =>
      listCurrentWorkingSet({ prisma: ctx.prisma, taskId: input.taskId, keyPrefix: input.keyPrefix, cursor: input.cursor ?? null, limit: input.limit }),
    ),
  /** The changes one step caused (the step detail panel). */
  step: readProcedure
    .input(workingSetStepInputSchema)
    .output(workingSetStepOutput)
    .query(({ ctx, input }) => listStepWorkingSetChanges({ prisma: ctx.prisma, ...input })),
  /** Per-step change counts (timeline marks), current size and number of changes. */
  summary: readProcedure
    .input(inputObject({ taskId }))
    .output(workingSetSummaryOutput)
    .query(({ ctx, input }) => summariseWorkingSet({ prisma: ctx.prisma, taskId: input.taskId })),
});
