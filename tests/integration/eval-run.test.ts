import { describe, expect, it } from "vitest";
import { createEvalRun, applyEvalSuite, readEvalRunReport } from "../../server/db/eval-repository.ts";
import { evalCellLaunchKey } from "../../server/db/eval-ports.ts";
import { createCaller } from "../../server/api/root.ts";
import { EVAL_EXPORT_COLUMNS, type EvalReportCell } from "../../server/domain/eval-report.ts";
import { startEvalRunInputSchema, type EvalSuiteFile } from "../../server/domain/eval-suite.ts";
import type { AgentStack } from "../support/agent-stack.ts";
import { waitFor } from "../support/executor-harness.ts";
import { useAgentStack } from "../support/fixtures.ts";
import { testPrincipal } from "../support/principals.ts";

// An eval run end to end on the real pieces: the `eval-run` function and the cells' `agent-run`s
// served by the app child, the embedded executor child, the scripted model server (the only stand-in:
// it plays the models `scripted`, `scripted-sloppy` and the judge `scripted-judge`), the test PostgreSQL.

process.env.LONGHAUL_EVAL_TICK = "1s"; // inherited by the app child
let stack: AgentStack;
useAgentStack((started) => (stack = started));

const suite = (name: string, cases: EvalSuiteFile["cases"]): EvalSuiteFile => ({ name, description: "", cases });
const audit = (limit: number, judge = false): EvalSuiteFile["cases"][number] => ({
  name: `audit-${limit}`,
  launch: { demo: { kind: "license-audit", limit } },
  checks: [
    { kind: "artifact", name: "licenses.csv", expected: "license-audit" },
    { kind: "cel", expression: "size(outbox) == 1" },
    ...(judge ? [{ kind: "judge" as const, profile: "scripted-judge", rubric: "Does every package have a known license?" }] : []),
  ],
});

async function startEval(file: EvalSuiteFile, profiles: string[], repeats: number, concurrency: number): Promise<string> {
  await applyEvalSuite({ prisma: stack.db, file });
  const { evalRunId } = await createEvalRun({
    prisma: stack.db,
    input: startEvalRunInputSchema.parse({ suite: file.name, profiles, repeats, concurrency }),
    actor: "eval-test",
  });
  await stack.sendEvent("longhaul/eval.started", { evalRunId }, `eval-started-${evalRunId}`);
  return evalRunId;
}

async function waitForEvalRun(evalRunId: string, timeoutMs = 240_000): Promise<void> {
  try {
    await waitFor(
      `eval run ${evalRunId} to complete`,
      async () => (await stack.db.evalRun.findUniqueOrThrow({ where: { id: evalRunId } })).status === "completed",
      timeoutMs,
      200,
    );
  } catch (error) {
    const cells = await stack.db.evalCell.findMany({ where: { evalRunId } });
    const tasks = await stack.db.task.findMany({ where: { id: { in: cells.map((c) => c.taskId ?? "") } }, select: { id: true, status: true } });
    const runs = await stack.db.executorRun.findMany({ where: { functionId: { contains: "eval-run" } }, orderBy: { createdAt: "desc" }, take: 3 });
    throw new Error(
      `${(error as Error).message}\ncells: ${JSON.stringify(cells.map((c) => [c.status, c.taskId]))}\ntasks: ${JSON.stringify(tasks)}\neval-run runs: ${JSON.stringify(runs.map((r) => [r.status, r.output]))}`,
    );
  }
}

const KEPT = new Set(["productive", "checkpoint", "compaction"]);

/**
 * A task's model calls step by step (key: run number and step id): the call that is the work itself
 * (status ok, cause productive, checkpoint or compaction) and whether the step was disturbed — an
 * attempt that failed or was redone (retry, replay, discarded, restart). A disturbed step's kept
 * call may be served from the cache its own earlier attempt warmed (as on a real provider, which
 * caches a prompt it processed even when the client gave up on the answer): not identical work.
 */
async function stepLedger(taskId: string) {
  const runs = await stack.db.run.findMany({ where: { taskId }, orderBy: { startedAt: "asc" }, select: { id: true } });
  const calls = await stack.db.modelCall.findMany({ where: { runId: { in: runs.map((r) => r.id) } }, orderBy: { createdAt: "asc" } });
  const steps = new Map<string, { kept: { prompt: number; cached: number; completion: number; costUsd: string } | null; disturbed: boolean }>();
  for (const c of calls) {
    const key = `${runs.findIndex((r) => r.id === c.runId)}:${c.stepId}`;
    const step = steps.get(key) ?? { kept: null, disturbed: false };
    if (c.status === "ok" && KEPT.has(c.cause) && !step.kept)
      step.kept = { prompt: c.promptTokens, cached: c.cachedTokens, completion: c.completionTokens, costUsd: c.costUsd.toFixed(8) };
    else step.disturbed = true;
    steps.set(key, step);
  }
  return steps;
}

/**
 * Identical cells (one case, one profile) cost the same — equality, not a tolerance: equal steps;
 * per model step, equal prompt and completion tokens; and equal cached tokens and dollars for every
 * step neither run disturbed (see stepLedger), which must be most of them; and the cell's own
 * figures equal when neither had waste (a retry on a loaded machine is real spend, counted as waste).
 */
async function expectIdentical(cells: readonly EvalReportCell[]): Promise<void> {
  expect(cells.length).toBeGreaterThan(1);
  const [a, ...rest] = cells;
  const base = await stepLedger(a!.taskId!);
  expect(base.size).toBeGreaterThan(0);
  for (const b of rest) {
    const what = `${b.caseKey}/${b.profile} repeat ${b.repeat} against repeat ${a!.repeat}`;
    expect(b.steps, what).toBe(a!.steps);
    const other = await stepLedger(b.taskId!);
    expect([...other.keys()], what).toEqual([...base.keys()]);
    let compared = 0;
    for (const [key, x] of base) {
      const y = other.get(key)!;
      expect({ prompt: y.kept?.prompt, completion: y.kept?.completion }, `${what}, ${key}`).toEqual({ prompt: x.kept?.prompt, completion: x.kept?.completion });
      if (x.disturbed || y.disturbed) continue;
      expect(y.kept, `${what}, ${key}`).toEqual(x.kept);
      compared++;
    }
    expect(compared, `${what}: steps compared exactly`).toBeGreaterThanOrEqual(base.size / 2);
    expect(b.judgeCostUsd, what).toBe(a!.judgeCostUsd);
    if (a!.wasteUsd === 0 && b.wasteUsd === 0) expect({ tokens: b.tokens, costUsd: b.costUsd }, what).toEqual({ tokens: a!.tokens, costUsd: a!.costUsd });
  }
}

describe("eval run", () => {
  it("runs suite × profiles × repeats as real tasks and gives the figures worked by hand", async () => {
    const evalRunId = await startEval(suite("it-two-profiles", [audit(3), audit(8, true)]), ["scripted", "scripted-sloppy"], 2, 3);
    await waitForEvalRun(evalRunId);
    const r = await readEvalRunReport({ prisma: stack.db, evalRunId });

    // 2 cases × 2 profiles × 2 repeats = 8 cells, each one ordinary task launched through launchTask with its cell's key.
    expect(r.cells).toHaveLength(8);
    const tasks = await stack.db.task.findMany({ where: { launchKey: { in: r.cells.map((c) => evalCellLaunchKey(c.cellId)) } } });
    expect(tasks).toHaveLength(8);
    expect(new Set(r.cells.map((c) => c.taskId)).size).toBe(8);
    expect(tasks.every((t) => t.status === "completed")).toBe(true);

    // By hand: `scripted` passes all 4 cells; `scripted-sloppy` misreads the 7th package, so it passes
    // audit-3 twice and fails audit-8 twice (wrong CSV, and the judge sees UNKNOWN).
    const verdicts = r.cells.map((c) => `${c.caseKey}/${c.profile}/${c.repeat}:${c.status}`);
    expect(verdicts).toEqual([
      "audit-3/scripted/0:passed",
      "audit-3/scripted/1:passed",
      "audit-3/scripted-sloppy/0:passed",
      "audit-3/scripted-sloppy/1:passed",
      "audit-8/scripted/0:passed",
      "audit-8/scripted/1:passed",
      "audit-8/scripted-sloppy/0:failed",
      "audit-8/scripted-sloppy/1:failed",
    ]);
    const failing = r.cells.find((c) => c.status === "failed")!;
    expect(failing.failureClass).toBe("check_failed");
    expect(failing.checkResults.find((c) => c.kind === "artifact")?.detail).toMatch(/^line 8: expected ".*", got ".*UNKNOWN.*"$/);
    expect(failing.checkResults.find((c) => c.kind === "judge")).toMatchObject({ pass: false, detail: expect.stringMatching(/^FAIL/) as unknown });
    expect(failing.judgeCostUsd).toBeGreaterThan(0);

    const [good, sloppy] = r.report;
    expect(good).toMatchObject({ profile: "scripted", cells: 4, passed: 4, passRate: 1, completionRate: 1, passHatK: 1, failureClasses: {} });
    expect(sloppy).toMatchObject({
      profile: "scripted-sloppy",
      cells: 4,
      passed: 2,
      passRate: 0.5,
      completionRate: 1,
      passHatK: 0.5,
      failureClasses: { check_failed: 2 },
    });
    // Cost per passing task = all spend of the profile's cells (from the cost ledger's task_cost) ÷ passing cells.
    for (const [p, passes] of [
      [good!, 4],
      [sloppy!, 2],
    ] as const) {
      const ids = r.cells.filter((c) => c.profile === p.profile).map((c) => c.taskId!);
      const spend = (await stack.db.taskCost.findMany({ where: { taskId: { in: ids } } })).reduce((s, t) => s + Number(t.costUsd), 0);
      expect(spend).toBeGreaterThan(0);
      expect(p.costPerPassUsd).toBeCloseTo(spend / passes, 6);
      expect(p.costPerCompletedUsd).toBeCloseTo(spend / 4, 6);
    }
    // Budgets from history: two passing runs of audit-3 × scripted are too few (3 needed): the default, said so.
    expect(r.budgets.find((b) => b.caseKey === "audit-3" && b.profile === "scripted")).toMatchObject({ basis: "default", samples: 2, stepBudget: 400 });
    // The export (eval.export, the report page's Export CSV / JSON and `eval report --format`): one row
    // per cell, plain numbers, the figures of the cell and its task's ledger.
    const api = createCaller({ prisma: stack.db, actor: "eval-test", principal: testPrincipal("eval-test") });
    const csv = await api.eval.export({ evalRunId, format: "csv" });
    const [header, ...lines] = csv.content.split("\r\n");
    expect(header!.split(",")).toEqual([...EVAL_EXPORT_COLUMNS]);
    expect(lines.pop()).toBe("");
    expect(csv.content).not.toMatch(/[$%"]/);
    const csvRows = lines.map((l) => Object.fromEntries(l.split(",").map((v, i) => [EVAL_EXPORT_COLUMNS[i]!, v])));
    const json = JSON.parse((await api.eval.export({ evalRunId, format: "json" })).content) as Record<string, unknown>[];
    expect(csvRows).toHaveLength(r.cells.length);
    expect(json).toHaveLength(r.cells.length);
    for (const [i, c] of r.cells.entries()) {
      const ledger = await stack.db.taskCost.findUniqueOrThrow({ where: { taskId: c.taskId! } });
      const row = csvRows[i]!;
      expect({ ...row }).toMatchObject({ cellId: c.cellId, caseKey: c.caseKey, profile: c.profile, taskId: c.taskId, pass: String(c.status === "passed") });
      for (const k of ["steps", "tokens", "costUsd", "wasteUsd", "escalations", "durationMs"] as const)
        expect(row[k], `${c.cellId} ${k}`).toMatch(/^\d+(\.\d+)?$/);
      expect(Number(row.steps)).toBe(c.steps);
      expect(Number(row.tokens)).toBe(Number(ledger.promptTokens) + Number(ledger.completionTokens));
      expect(Number(row.costUsd)).toBe(Number(ledger.costUsd));
      expect(json[i]).toMatchObject({
        cellId: c.cellId,
        caseKey: c.caseKey,
        profile: c.profile,
        pass: c.status === "passed",
        steps: c.steps,
        tokens: Number(row.tokens),
      });
      expect(json[i]!.costUsd).toBe(Number(ledger.costUsd));
    }

    // Identical work costs the same offline: the two repeats of a case with one profile took the same
    // steps and exactly the same tokens and dollars (the ids each run mints are counted as fixed-width
    // placeholders by the scripted server: server/llm/scripted/minted-ids.ts).
    for (const k of ["audit-3", "audit-8"])
      for (const p of ["scripted", "scripted-sloppy"]) await expectIdentical(r.cells.filter((c) => c.caseKey === k && c.profile === p));
  }, 300_000);

  it("a case the offline model has no procedure for fails its status check: the cell is a dead end saying a real provider is needed", async () => {
    const goal = "Summarise the open pull requests of our repository and email the team.";
    const evalRunId = await startEval(
      suite("it-own-goal", [{ name: "own-goal", launch: { goal }, checks: [{ kind: "status", equals: "completed" }] }]),
      ["scripted"],
      1,
      1,
    );
    await waitForEvalRun(evalRunId);
    const r = await readEvalRunReport({ prisma: stack.db, evalRunId });
    expect(r.cells.map((c) => [c.caseKey, c.status, c.taskStatus])).toEqual([["own-goal", "failed", "dead_end"]]);
    const task = await stack.db.task.findUniqueOrThrow({ where: { id: r.cells[0]!.taskId! } });
    expect(task.deadEndReason).toContain("needs a real model provider");
  });

  it("prices five identical 150-package runs exactly the same", async () => {
    // The figure: five identical runs of the scripted model once cost $0.197–$0.267.
    const evalRunId = await startEval(suite("it-identical", [audit(150)]), ["scripted"], 5, 5);
    await waitForEvalRun(evalRunId);
    const r = await readEvalRunReport({ prisma: stack.db, evalRunId });
    expect(r.cells.map((c) => c.status)).toEqual(["passed", "passed", "passed", "passed", "passed"]);
    await expectIdentical(r.cells);
    expect([...(await stepLedger(r.cells[0]!.taskId!)).values()].reduce((n, s) => n + (s.kept?.cached ?? 0), 0)).toBeGreaterThan(0);
  }, 300_000);

  it("loses no case and runs none twice when the executor and the app are killed mid-run", async () => {
    const evalRunId = await startEval(suite("it-crash", [audit(6)]), ["scripted", "scripted-sloppy"], 2, 2);
    // Kill both once the first cells run and before the run ends.
    await waitFor("a cell to run", async () => (await stack.db.evalCell.count({ where: { evalRunId, status: "running" } })) > 0, 60_000, 50);
    await stack.kill("executor");
    await stack.kill("app");
    await stack.startApp();
    await stack.startExecutor();
    await waitForEvalRun(evalRunId, 360_000);
    const r = await readEvalRunReport({ prisma: stack.db, evalRunId });
    expect(r.cells.map((c) => c.status)).toEqual(["passed", "passed", "passed", "passed"]);
    const tasks = await stack.db.task.findMany({ where: { launchKey: { in: r.cells.map((c) => evalCellLaunchKey(c.cellId)) } }, select: { id: true } });
    expect(tasks.map((t) => t.id).sort()).toEqual(r.cells.map((c) => c.taskId).sort());
    expect(r.report.map((p) => p.passRate)).toEqual([1, 1]);
  }, 420_000);
});
