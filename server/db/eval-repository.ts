import { ulid } from "ulid";
import { AppError } from "../errors.ts";
import { MAX_EVAL_CELLS, startEvalRunInputSchema, type EvalSuiteFile } from "../domain/eval-suite.ts";
import { buildEvalReport, diffEvalRuns, type EvalProfileReport, type EvalReportCell, type EvalRunDiff } from "../domain/eval-report.ts";
import type { EvalCheckResult } from "../domain/eval-checks.ts";
import { suggestBudgets, type BudgetSuggestion } from "../domain/budget-from-history.ts";
import type { z } from "zod";
import type { PrismaClient } from "./client.ts";
import { evalCaseChecksJson, evalCaseLaunchJson, evalCellCheckResultsJson } from "./json-columns.ts";

const newId = (prefix: string): string => `${prefix}_${ulid().toLowerCase()}`;

/**
 * Applies a suite file: creates the suite or updates it by name; cases are upserted by name (their
 * launch, checks and order replaced); cases no longer in the file stay (earlier runs' cells point
 * at them) but are no longer part of new runs. Returns the suite id and case counts.
 */
export async function applyEvalSuite({
  prisma,
  file,
}: {
  prisma: PrismaClient;
  file: EvalSuiteFile;
}): Promise<{ suiteId: string; name: string; cases: number; created: boolean }> {
  return prisma.$transaction(async (tx) => {
    const existing = await tx.evalSuite.findUnique({ where: { name: file.name } });
    const suite = existing
      ? await tx.evalSuite.update({ where: { id: existing.id }, data: { description: file.description } })
      : await tx.evalSuite.create({ data: { id: newId("suite"), name: file.name, description: file.description } });
    await tx.evalCase.updateMany({ where: { suiteId: suite.id }, data: { position: -1 } });
    for (const [position, c] of file.cases.entries()) {
      await tx.evalCase.upsert({
        where: { suiteId_key: { suiteId: suite.id, key: c.name } },
        create: {
          id: newId("case"),
          suiteId: suite.id,
          key: c.name,
          launch: evalCaseLaunchJson.encode(c.launch),
          checks: evalCaseChecksJson.encode(c.checks),
          position,
        },
        update: { launch: evalCaseLaunchJson.encode(c.launch), checks: evalCaseChecksJson.encode(c.checks), position },
      });
    }
    return { suiteId: suite.id, name: suite.name, cases: file.cases.length, created: !existing };
  });
}

/**
 * Creates an eval run: the suite's current cases (position ≥ 0) × `profiles` × `repeats`, all cells
 * pending. The caller then sends `longhaul/eval.started`. Returns the id and the cell count.
 * @throws AppError NOT_FOUND (suite), BAD_INPUT (unknown profile, more than MAX_EVAL_CELLS cells).
 */
export async function createEvalRun({
  prisma,
  input,
  actor,
}: {
  prisma: PrismaClient;
  input: z.output<typeof startEvalRunInputSchema>;
  actor: string;
}): Promise<{ evalRunId: string; cells: number }> {
  const suite = await prisma.evalSuite.findFirst({
    where: { OR: [{ name: input.suite }, { id: input.suite }] },
    include: { cases: { where: { position: { gte: 0 } }, orderBy: { position: "asc" } } },
  });
  if (!suite) throw new AppError("NOT_FOUND", `suite: no eval suite named "${input.suite}"`);
  const profiles = [...new Set(input.profiles)];
  const known = await prisma.agentProfile.findMany({ where: { name: { in: profiles } }, select: { name: true } });
  const missing = profiles.filter((p) => !known.some((k) => k.name === p));
  if (missing.length) throw new AppError("BAD_INPUT", `profiles: no agent profile named ${missing.map((m) => `"${m}"`).join(", ")}`);
  const count = suite.cases.length * profiles.length * input.repeats;
  if (count > MAX_EVAL_CELLS) throw new AppError("BAD_INPUT", `an eval run has at most ${MAX_EVAL_CELLS} cells (cases × profiles × repeats = ${count})`);
  const evalRunId = newId("evalrun");
  await prisma.$transaction([
    prisma.evalRun.create({
      data: {
        id: evalRunId,
        suiteId: suite.id,
        profiles,
        repeats: input.repeats,
        concurrency: input.concurrency,
        onEscalation: input.onEscalation,
        createdBy: actor,
      },
    }),
    prisma.evalCell.createMany({
      data: suite.cases.flatMap((c) =>
        profiles.flatMap((profile) => Array.from({ length: input.repeats }, (_, repeat) => ({ id: newId("cell"), evalRunId, caseId: c.id, profile, repeat }))),
      ),
    }),
  ]);
  return { evalRunId, cells: count };
}

/** Marks a running eval run cancelled (the next tick of `eval-run` cancels its cells). Returns whether it changed. */
export async function cancelEvalRun({ prisma, evalRunId }: { prisma: PrismaClient; evalRunId: string }): Promise<{ cancelled: boolean; status: string }> {
  const r = await prisma.evalRun.updateMany({ where: { id: evalRunId, status: "running" }, data: { status: "cancelled", endedAt: new Date() } });
  const run = await prisma.evalRun.findUnique({ where: { id: evalRunId }, select: { status: true } });
  if (!run) throw new AppError("NOT_FOUND", `eval run ${evalRunId} not found`);
  return { cancelled: r.count === 1, status: run.status };
}

/** A matrix cell with what the page shows for a failure (the failing checks and the values they saw). */
export interface EvalMatrixCell extends EvalReportCell {
  checkResults: EvalCheckResult[];
}

/** An eval run's report: header, per-profile figures, the case × profile matrix (cells), and the diff against `compareTo`. */
export interface EvalRunReport {
  evalRunId: string;
  suite: string;
  status: string;
  profiles: string[];
  repeats: number;
  concurrency: number;
  onEscalation: string;
  createdAt: string;
  endedAt: string | null;
  cases: string[];
  report: EvalProfileReport[];
  cells: EvalMatrixCell[];
  diff: EvalRunDiff[] | null;
  /** Per case × profile: budgets from the passing cells of that case and profile in every run of the suite. */
  budgets: ({ caseKey: string; profile: string } & BudgetSuggestion)[];
}

type ProfileBudgets = { stepBudget: number; tokenBudget: number | null; costBudgetUsd: unknown } | undefined;
type PassingCell = { steps: number | null; tokens: number | null; costUsd: unknown };

/** A case's suggestion: its passing cells' history, falling back to the case's budgets, else the profile's. */
function caseSuggestion(launch: unknown, profile: ProfileBudgets, passing: readonly PassingCell[]): BudgetSuggestion {
  const l = launch as { stepBudget?: number; tokenBudget?: number; costBudgetUsd?: number };
  const history = passing.map((x) => ({ steps: x.steps ?? 0, tokens: x.tokens ?? 0, costUsd: Number(x.costUsd ?? 0) }));
  const fallback = {
    stepBudget: l.stepBudget ?? profile?.stepBudget ?? null,
    tokenBudget: l.tokenBudget ?? profile?.tokenBudget ?? null,
    costBudgetUsd: l.costBudgetUsd ?? (profile?.costBudgetUsd == null ? null : Number(profile.costBudgetUsd)),
  };
  return suggestBudgets({ history, fallback });
}

const passingCellFields = { caseId: true, profile: true, steps: true, tokens: true, costUsd: true } as const;
const profileBudgetFields = { name: true, stepBudget: true, tokenBudget: true, costBudgetUsd: true } as const;

/**
 * Budget suggestions for each case of a suite × each of `profiles`, from the passing cells of all its
 * eval runs (suggestBudgets: p90 × 1.25, at least 3 passing runs; else the profile's budgets).
 */
export async function suiteBudgetSuggestions({ prisma, suiteId, profiles }: { prisma: PrismaClient; suiteId: string; profiles: string[] }) {
  const [cases, passing, rows] = await Promise.all([
    prisma.evalCase.findMany({ where: { suiteId, position: { gte: 0 } }, orderBy: { position: "asc" }, select: { id: true, key: true, launch: true } }),
    prisma.evalCell.findMany({ where: { evalRun: { suiteId }, status: "passed", profile: { in: profiles } }, select: passingCellFields }),
    prisma.agentProfile.findMany({ where: { name: { in: profiles } }, select: profileBudgetFields }),
  ]);
  return cases.flatMap((c) =>
    profiles.map((profile) => ({
      caseKey: c.key,
      profile,
      ...caseSuggestion(
        c.launch,
        rows.find((r) => r.name === profile),
        passing.filter((x) => x.caseId === c.id && x.profile === profile),
      ),
    })),
  );
}

/**
 * The budget suggestion an eval cell launches with: the passing cells of its case × profile in the
 * suite's other eval runs (not its own run, so every cell of a run gets the same budgets whatever
 * order the cells finish in), by the same rule as a template's (p90 × 1.25, at least 3 passing
 * runs). `name` is `suite/case`, as Task.budgetBasis records it.
 * @throws when the cell does not exist.
 */
export async function cellBudgetSuggestion({
  prisma,
  cellId,
}: {
  prisma: PrismaClient;
  cellId: string;
}): Promise<{ name: string; suggestion: BudgetSuggestion }> {
  const cell = await prisma.evalCell.findUniqueOrThrow({
    where: { id: cellId },
    select: { evalRunId: true, caseId: true, profile: true, case: { select: { key: true, launch: true, suite: { select: { name: true } } } } },
  });
  const [passing, profile] = await Promise.all([
    prisma.evalCell.findMany({
      where: { caseId: cell.caseId, profile: cell.profile, status: "passed", evalRunId: { not: cell.evalRunId } },
      select: passingCellFields,
    }),
    prisma.agentProfile.findUnique({ where: { name: cell.profile }, select: profileBudgetFields }),
  ]);
  return { name: `${cell.case.suite.name}/${cell.case.key}`, suggestion: caseSuggestion(cell.case.launch, profile ?? undefined, passing) };
}

async function loadCells(prisma: PrismaClient, evalRunId: string): Promise<EvalMatrixCell[]> {
  const cells = await prisma.evalCell.findMany({
    where: { evalRunId },
    include: { case: { select: { key: true, position: true } } },
    orderBy: [{ case: { position: "asc" } }, { profile: "asc" }, { repeat: "asc" }],
  });
  const num = (d: unknown) => (d === null || d === undefined ? null : Number(d));
  return cells.map((c) => ({
    cellId: c.id,
    caseKey: c.case.key,
    profile: c.profile,
    repeat: c.repeat,
    status: c.status,
    taskId: c.taskId,
    taskStatus: c.taskStatus,
    failureClass: c.failureClass,
    steps: c.steps,
    tokens: c.tokens,
    costUsd: num(c.costUsd),
    judgeCostUsd: num(c.judgeCostUsd),
    wasteUsd: num(c.wasteUsd),
    escalations: c.escalations,
    durationMs: c.durationMs,
    checkResults: c.checkResults === null ? [] : evalCellCheckResultsJson.decode(c.checkResults, c.id),
  }));
}

/**
 * The report of an eval run (see {@link EvalRunReport}); with `compareTo`, the case × profile diff
 * against that earlier run (what regressed, what improved).
 * @throws AppError NOT_FOUND for an unknown eval run.
 */
export async function readEvalRunReport({
  prisma,
  evalRunId,
  compareTo,
}: {
  prisma: PrismaClient;
  evalRunId: string;
  compareTo?: string;
}): Promise<EvalRunReport> {
  const run = await prisma.evalRun.findUnique({ where: { id: evalRunId }, include: { suite: { select: { name: true } } } });
  if (!run) throw new AppError("NOT_FOUND", `eval run ${evalRunId} not found`);
  const cells = await loadCells(prisma, evalRunId);
  let diff: EvalRunDiff[] | null = null;
  if (compareTo) {
    const base = await prisma.evalRun.findUnique({ where: { id: compareTo }, select: { id: true } });
    if (!base) throw new AppError("NOT_FOUND", `eval run ${compareTo} not found`);
    diff = diffEvalRuns({ base: await loadCells(prisma, compareTo), current: cells });
  }
  return {
    evalRunId: run.id,
    suite: run.suite.name,
    status: run.status,
    profiles: run.profiles,
    repeats: run.repeats,
    concurrency: run.concurrency,
    onEscalation: run.onEscalation,
    createdAt: run.createdAt.toISOString(),
    endedAt: run.endedAt?.toISOString() ?? null,
    cases: [...new Set(cells.map((c) => c.caseKey))],
    report: buildEvalReport({ cells, profiles: run.profiles, repeats: run.repeats }),
    cells,
    diff,
    budgets: await suiteBudgetSuggestions({ prisma, suiteId: run.suiteId, profiles: run.profiles }),
  };
}

/** Suites with their case counts and latest runs (for /evals and `eval list`). */
export async function listEvalSuites({ prisma }: { prisma: PrismaClient }) {
  const suites = await prisma.evalSuite.findMany({
    orderBy: { name: "asc" },
    include: {
      cases: { where: { position: { gte: 0 } }, orderBy: { position: "asc" }, select: { key: true } },
      runs: { orderBy: { createdAt: "desc" }, take: 10, select: { id: true, status: true, profiles: true, repeats: true, createdAt: true, endedAt: true } },
    },
  });
  return suites.map((s) => ({
    id: s.id,
    name: s.name,
    description: s.description,
    cases: s.cases.map((c) => c.key),
    runs: s.runs.map((r) => ({ ...r, createdAt: r.createdAt.toISOString(), endedAt: r.endedAt?.toISOString() ?? null })),
  }));
}
