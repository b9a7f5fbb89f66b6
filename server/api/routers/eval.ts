import { z } from "zod";
import { idField, inputObject } from "../../domain/input-fields.ts";
import {
  evalSuiteFileSchema,
  startEvalRunInputSchema,
  evalCellsCsv,
  evalExportRows,
  applyEvalSuite,
  cancelEvalRun,
  createEvalRun,
  listEvalSuites,
  readEvalRunReport,
} from "../../features/evals/index.ts";
import { sendEvalStarted } from "../../inngest/send.ts";
import { AppError } from "../../errors.ts";
import { applySuiteOutput, evalCancelOutput, evalExportOutput, evalListOutput, evalReportOutput, evalStartOutput } from "../output-schemas-eval.ts";
import { createTRPCRouter, operatorProcedure, readProcedure } from "../trpc.ts";

const evalRunId = idField("evalRunId");

export const evalRouter = createTRPCRouter({
  /** Suites with their cases and latest runs (/evals, `eval list`). */
  list: readProcedure.output(evalListOutput).query(({ ctx }) => listEvalSuites({ prisma: ctx.prisma })),
  /** Creates or updates a suite from its file's content (`eval apply`, `eval run <file>`). */
  applySuite: operatorProcedure
    .input(evalSuiteFileSchema)
    .output(applySuiteOutput)
    .mutation(({ ctx, input }) => applyEvalSuite({ prisma: ctx.prisma, file: input })),
  /** Starts an eval run (suite × profiles × repeats) and the `eval-run` function that drives it. */
  start: operatorProcedure
    .input(startEvalRunInputSchema)
    .output(evalStartOutput)
    .mutation(async ({ ctx, input }) => {
      const created = await createEvalRun({ prisma: ctx.prisma, input, actor: ctx.actor });
      try {
        await sendEvalStarted({ evalRunId: created.evalRunId });
      } catch (error) {
        await cancelEvalRun({ prisma: ctx.prisma, evalRunId: created.evalRunId });
        throw new AppError(
          "UNAVAILABLE",
          `could not deliver longhaul/eval.started to the executor: ${error instanceof Error ? error.message : String(error)}`,
          {
            cause: error,
          },
        );
      }
      return created;
    }),
  /** Cancels a running eval run: its running cells' tasks are cancelled, pending cells never start. */
  cancel: operatorProcedure
    .input(inputObject({ evalRunId }))
    .output(evalCancelOutput)
    .mutation(({ ctx, input }) => cancelEvalRun({ prisma: ctx.prisma, evalRunId: input.evalRunId })),
  /** The report: per-profile figures, the case × profile matrix, and with `compareTo` the diff against an earlier run. */
  report: readProcedure
    .input(inputObject({ evalRunId, compareTo: idField("compareTo").optional() }))
    .output(evalReportOutput)
    .query(({ ctx, input }) =>
      readEvalRunReport({ prisma: ctx.prisma, evalRunId: input.evalRunId, ...(input.compareTo ? { compareTo: input.compareTo } : {}) }),
    ),
  /** The report as CSV (one row per cell, plain numbers, formulas neutralised) — `format: "json"` gives the same rows as JSON. */
  export: readProcedure
    .input(inputObject({ evalRunId, format: z.enum(["csv", "json"]).default("csv") }))
    .output(evalExportOutput)
    .query(async ({ ctx, input }) => {
      const r = await readEvalRunReport({ prisma: ctx.prisma, evalRunId: input.evalRunId });
      return input.format === "csv"
        ? { format: "csv" as const, content: evalCellsCsv(r.cells) }
        : { format: "json" as const, content: JSON.stringify(evalExportRows(r.cells)) };
    }),
});
