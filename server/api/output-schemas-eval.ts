/**
 * Output schemas of the eval, launch-template and demo procedures. Strict objects typed against the
 * repositories' own result types (server/db/eval-repository.ts, template-repository.ts), so a field
 * added there and not here fails to compile or fails the call (INTERNAL_SERVER_ERROR, "Output
 * validation failed"). Times the repositories give as ISO strings stay strings here.
 */
import { z } from "zod";
import type { applyEvalSuite, cancelEvalRun, createEvalRun, EvalRunReport, listEvalSuites } from "../features/evals/index.ts";
import { evalCheckResultSchema } from "../db/json-columns.ts";
import type { evalCaseFromTemplate, launchTemplate, LaunchTemplateRow, readTemplateHistory, TemplateLaunch } from "../features/templates/index.ts";
import { budgetBasisSchema } from "../features/templates/index.ts";
import { count, launchResultShape, usd } from "./output-schemas-shared.ts";

type Result<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

const int = z.number().int();
const rate = z.number().min(0).max(1);

/** `eval.list`: suites with their case keys and runs (times as ISO strings). */
export const evalListOutput: z.ZodType<Result<typeof listEvalSuites>> = z.array(
  z.strictObject({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    cases: z.array(z.string()),
    runs: z.array(
      z.strictObject({
        id: z.string(),
        status: z.string(),
        profiles: z.array(z.string()),
        repeats: count,
        createdAt: z.string(),
        endedAt: z.string().nullable(),
      }),
    ),
  }),
);

/** `eval.applySuite`: the suite, how many cases it has, whether it was created. */
export const applySuiteOutput: z.ZodType<Result<typeof applyEvalSuite>> = z.strictObject({
  suiteId: z.string(),
  name: z.string(),
  cases: count,
  created: z.boolean(),
});

/** `eval.start`: the run and how many cells (case × profile × repeat) it has. */
export const evalStartOutput: z.ZodType<Result<typeof createEvalRun>> = z.strictObject({ evalRunId: z.string(), cells: count });

/** `eval.cancel`: whether this call cancelled it, and its status now. */
export const evalCancelOutput: z.ZodType<Result<typeof cancelEvalRun>> = z.strictObject({ cancelled: z.boolean(), status: z.string() });

/** What a budget suggestion from history says (server/domain/budget-from-history.ts BudgetSuggestion). */
const budgetSuggestionShape = {
  basis: z.enum(["history", "default"]),
  samples: count,
  stepsP50: z.number().nullable(),
  stepsP90: z.number().nullable(),
  tokensP90: z.number().nullable(),
  costP90Usd: usd.nullable(),
  stepBudget: int.nullable(),
  tokenBudget: int.nullable(),
  costBudgetUsd: usd.nullable(),
  headroom: z.number().positive(),
  note: z.string(),
};

/** `eval.report`: per-profile figures, the case × profile cells with their check results, the diff against `compareTo`, suggested budgets. */
export const evalReportOutput: z.ZodType<EvalRunReport> = z.strictObject({
  evalRunId: z.string(),
  suite: z.string(),
  status: z.string(),
  profiles: z.array(z.string()),
  repeats: count,
  concurrency: count,
  onEscalation: z.string(),
  createdAt: z.string(),
  endedAt: z.string().nullable(),
  cases: z.array(z.string()),
  report: z.array(
    z.strictObject({
      profile: z.string(),
      cells: count,
      ended: count,
      passed: count,
      notJudged: count,
      judged: count,
      passRate: rate.nullable(),
      passRateLow: rate.nullable(),
      passRateHigh: rate.nullable(),
      completionRate: rate.nullable(),
      passHatK: rate.nullable(),
      stepsP50: z.number().nullable(),
      stepsP90: z.number().nullable(),
      tokens: count,
      costPerPassUsd: usd.nullable(),
      costPerCompletedUsd: usd.nullable(),
      costUsd: usd,
      judgeCostUsd: usd,
      wasteShare: z.number().nullable(),
      escalationsPerTask: z.number().nullable(),
      durationP50Ms: z.number().nullable(),
      durationP90Ms: z.number().nullable(),
      failureClasses: z.record(z.string(), count),
    }),
  ),
  cells: z.array(
    z.strictObject({
      cellId: z.string(),
      caseKey: z.string(),
      profile: z.string(),
      repeat: int,
      status: z.string(),
      taskId: z.string().nullable(),
      taskStatus: z.string().nullable(),
      failureClass: z.string().nullable(),
      steps: count.nullable(),
      tokens: count.nullable(),
      costUsd: usd.nullable(),
      judgeCostUsd: usd.nullable(),
      wasteUsd: usd.nullable(),
      escalations: count.nullable(),
      durationMs: z.number().nullable(),
      checkResults: z.array(evalCheckResultSchema),
    }),
  ),
  diff: z
    .array(
      z.strictObject({
        caseKey: z.string(),
        profile: z.string(),
        base: z.number().nullable(),
        current: z.number().nullable(),
        change: z.enum(["regressed", "improved", "same", "new", "gone"]),
      }),
    )
    .nullable(),
  budgets: z.array(z.strictObject({ caseKey: z.string(), profile: z.string(), ...budgetSuggestionShape })),
});

/** `eval.export`: the report's cells as CSV text or as JSON text — one string either way, not re-walked. */
export const evalExportOutput = z.discriminatedUnion("format", [
  z.strictObject({ format: z.literal("csv"), content: z.string() }),
  z.strictObject({ format: z.literal("json"), content: z.string() }),
]);

/** A template's launch as stored (launchTaskInputSchema's output without `launchKey`): the stored JSON, described field by field. */
const templateLaunchShape = {
  goal: z.string().optional(),
  demo: z
    .strictObject({
      kind: z.enum(["license-audit", "mcp-audit"]),
      limit: z.number().int().positive(),
      emailTo: z.string().optional(),
      postUrl: z.string().optional(),
    })
    .optional(),
  stepBudget: z.number().int().positive().optional(),
  tokenBudget: z.number().int().positive().optional(),
  costBudgetUsd: usd.optional(),
  workspace: z.string().optional(),
  facts: z.record(z.string(), z.unknown()).optional(),
  requireApproval: z.boolean().optional(),
};
const templateLaunch: z.ZodType<TemplateLaunch> = z.strictObject({ ...templateLaunchShape, profile: z.string() });

/** `template.list`: templates by name with their launch and task counts. */
export const templateListOutput: z.ZodType<LaunchTemplateRow[]> = z.array(
  z.strictObject({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    launch: templateLaunch,
    fromTaskId: z.string().nullable(),
    createdBy: z.string(),
    createdAt: z.string(),
    tasks: count,
    completed: count,
  }),
);

/** `template.saveFromTask`, `create`, `update`, `fromEvalCase`: the template written. */
export const templateRefOutput = z.strictObject({ templateId: z.string(), name: z.string() });

/** `template.archive`. */
export const templateArchiveOutput = z.strictObject({ templateId: z.string(), archived: z.literal(true) });

/** `template.asEvalCase`: the template's launch as an eval case's (no profile: a suite names its profiles). */
export const templateAsEvalCaseOutput: z.ZodType<Result<typeof evalCaseFromTemplate>> = z.strictObject({
  name: z.string(),
  launch: z.strictObject(templateLaunchShape),
});

/** `template.history`: what the template's completed tasks cost and took, and the budgets suggested from it. */
export const templateHistoryOutput: z.ZodType<Result<typeof readTemplateHistory>> = z.strictObject({
  ...budgetSuggestionShape,
  costP50Usd: usd.nullable(),
  template: z.string(),
});

/** `template.launch`: the launch's answer, the template, and the history its budgets came from (null: none applied). */
export const templateLaunchOutput: z.ZodType<Result<typeof launchTemplate>> = z.strictObject({
  ...launchResultShape,
  templateId: z.string(),
  budgetBasis: budgetBasisSchema.nullable(),
});

/** `demo.list`: the demos the launch form offers. */
const demoShape = {
  title: z.string(),
  description: z.string(),
  defaultLimit: z.number().int().positive(),
  stepsPerPackage: z.number().positive(),
  stepsBase: count,
  goalPreview: z.string(),
  workspace: z.string(),
};
export const demoListOutput = z.array(
  z.discriminatedUnion("kind", [
    z.strictObject({ kind: z.literal("license-audit"), ...demoShape }),
    z.strictObject({ kind: z.literal("mcp-audit"), ...demoShape, profile: z.string() }),
  ]),
);
