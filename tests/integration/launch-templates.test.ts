import { launchTools } from "../../server/tools/launch-tools.ts";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TRPCError } from "@trpc/server";
import { ulid } from "ulid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "../../server/api/root.ts";
import { createPrismaClient } from "../../server/db/client.ts";
import { prismaLaunchPorts } from "../../server/db/launch-ports.ts";
import { recordModelTurns } from "../support/model-turns.ts";
import { createTemplate, createTemplateFromEvalCase, launchTemplate, readTemplateHistory } from "../../server/db/template-repository.ts";
import { startSegment } from "../../server/db/checkpoint-repository.ts";
import { loopConfigOf } from "../../server/inngest/loop-config.ts";
import { initialLoopState, nextAction, type LoopConfig } from "../../server/domain/agent-loop/index.ts";
import { testPrincipal } from "../support/principals.ts";
import { prismaAdvanceEvalRunPorts } from "../../server/db/eval-ports.ts";
import { historyCeilingNote, parseBudgetBasis } from "../../server/domain/budget-from-history.ts";
import { testDatabaseUrl } from "../support/database.ts";

// Launch templates against the test database: a template launches tasks that record its
// id and take its budgets (overrides on top); "Save as template" copies a task's shape; the history
// of its completed tasks (steps from beginStep, dollars from recordModelCall through the task_cost
// triggers) gives p50/p90 and the p90 × 1.25 suggestion; /costs groups spend by template.
// Profile prices: input 10 USD per million tokens, so 1000 prompt tokens = $0.01.

const prisma = createPrismaClient(testDatabaseUrl());
afterAll(() => prisma.$disconnect());
const api = createCaller({ prisma, actor: "tmpl-op", principal: testPrincipal("tmpl-op") });
const suffix = ulid().toLowerCase().slice(-8);
const profileName = `tmpl-${suffix}`;
const workspace = mkdtempSync(join(tmpdir(), "tmpl-ws-"));
const started: { taskId: string; runId: string }[] = [];
const ports = prismaLaunchPorts({
  prisma,
  sendRunStarted: async (e) => void started.push(e),
  defaultWorkspace: workspace,
  workspaceRoots: [workspace],
  tools: launchTools,
});
const model = `model-${suffix}`;

beforeAll(async () => {
  await prisma.agentProfile.create({
    data: { name: profileName, model, tools: [], stepBudget: 33, inputPricePerMTok: "10", cachedPricePerMTok: "1", outputPricePerMTok: "30" },
  });
});

/** Marks a launched task completed after `steps` steps and `prompt` prompt tokens of one model call. */
async function complete(taskId: string, runId: string, steps: number, prompt: number) {
  await recordModelTurns({ prisma, runId, model, steps, promptTokens: prompt });
  await prisma.run.update({ where: { id: runId }, data: { status: "completed" } });
  await prisma.task.update({ where: { id: taskId }, data: { status: "completed" } });
}

describe("launch templates", () => {
  const name = `audit-${suffix}`;
  let templateId = "";

  it("launches tasks that record the template and take its budgets, overrides on top", async () => {
    ({ templateId } = await createTemplate({ prisma, name, launch: { goal: "Summarise", profile: profileName, stepBudget: 12, workspace }, actor: "t" }));
    const a = await launchTemplate({ prisma, template: name, actor: "t", ports });
    const b = await launchTemplate({ prisma, template: name, overrides: { stepBudget: 20, launchKey: `k-${suffix}-b` }, actor: "t", ports });
    const rows = await prisma.task.findMany({ where: { id: { in: [a.taskId, b.taskId] } }, orderBy: { stepBudget: "asc" } });
    expect(rows.map((r) => [r.templateId, r.goal, r.stepBudget])).toEqual([
      [templateId, "Summarise", 12],
      [templateId, "Summarise", 20],
    ]);
    expect(started.map((s) => s.taskId)).toEqual([a.taskId, b.taskId]);
    // A launch key makes the template's launch idempotent like any launch.
    const again = await launchTemplate({ prisma, template: name, overrides: { launchKey: `k-${suffix}-b` }, actor: "t", ports });
    expect(again).toMatchObject({ taskId: b.taskId, deduplicated: true });
  });

  it("refuses an unknown template, a taken name and a launch that is not one", async () => {
    await expect(launchTemplate({ prisma, template: `nope-${suffix}`, actor: "t", ports })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(createTemplate({ prisma, name, launch: { goal: "x", profile: profileName }, actor: "t" })).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(createTemplate({ prisma, name: `bad-${suffix}`, launch: { profile: profileName }, actor: "t" })).rejects.toMatchObject({
      code: "BAD_INPUT",
    });
  });

  it("suggests budgets from the template's completed tasks only, after 3 of them", async () => {
    const before = await api.template.history({ template: name });
    expect(before).toMatchObject({ basis: "default", samples: 0, stepBudget: 12 });
    // Completed: steps 4, 6, 10 with $0.01, $0.02, $0.04; a fourth task stays running (not counted).
    const runs = [];
    for (let i = 0; i < 4; i++) runs.push(await launchTemplate({ prisma, template: name, actor: "t", ports }));
    await complete(runs[0]!.taskId, runs[0]!.runId, 4, 1000);
    await complete(runs[1]!.taskId, runs[1]!.runId, 6, 2000);
    await complete(runs[2]!.taskId, runs[2]!.runId, 10, 4000);
    const h = await readTemplateHistory({ prisma, template: name });
    // steps [4, 6, 10]: p50 6, p90 = 6 + 0.8·4 = 9.2 → ceil(11.5) = 12; usd p90 = 0.02 + 0.8·0.02 = 0.036 → 0.045.
    expect(h).toMatchObject({ basis: "history", samples: 3, stepsP50: 6, stepsP90: 9.2, stepBudget: 12, costP50Usd: 0.02, costP90Usd: 0.036 });
    expect(h.costBudgetUsd).toBeCloseTo(0.045, 9);
    expect(h.tokenBudget).toBe(Math.ceil(3600 * 1.25));
  });

  it("saves a task's shape as a template through the API, and lists templates with task counts", async () => {
    const task = await prisma.task.findFirstOrThrow({ where: { templateId, stepBudget: 20 } });
    const saved = await api.template.saveFromTask({ taskId: task.id, name: `copy-${suffix}` });
    const list = await api.template.list();
    const copy = list.find((t) => t.id === saved.templateId)!;
    expect(copy).toMatchObject({ fromTaskId: task.id, tasks: 0, launch: { goal: "Summarise", profile: profileName, stepBudget: 20, workspace } });
    expect(list.find((t) => t.id === templateId)).toMatchObject({ tasks: 6, completed: 3 });
    await expect(api.template.saveFromTask({ taskId: task.id, name: "Not Kebab" })).rejects.toBeInstanceOf(TRPCError);
  });

  it("groups /costs spend by template with the page's filters", async () => {
    await ports.createTaskWithRun({
      taskId: `task-${suffix}-plain`,
      runId: `run-${suffix}-plain`,
      goal: "plain",
      profileId: (await prisma.agentProfile.findUniqueOrThrow({ where: { name: profileName } })).id,
      profileVersionId: null,
      stepBudget: 5,
      tokenBudget: null,
      costBudgetUsd: null,
      requireApproval: false,
      workspace,
      input: {},
      launchKey: null,
      createdBy: "t",
    });
    await complete(`task-${suffix}-plain`, `run-${suffix}-plain`, 2, 500);
    const groups = await api.cost.byTemplate({ profile: profileName });
    expect(groups.map((g) => [g.key, g.tasks, g.completed, Number(g.usd.toFixed(8)), g.stepsPerCompleted])).toEqual([
      [name, 6, 3, 0.07, 20 / 3],
      ["", 1, 1, 0.005, 2],
    ]);
    expect(await api.cost.byTemplate({ profile: profileName, outcome: "running" })).toEqual([expect.objectContaining({ key: name, tasks: 3, usd: 0 })]);
  });

  it("turns an eval case into a template", async () => {
    const suite = await prisma.evalSuite.create({ data: { id: `suite_${suffix}`, name: `suite-${suffix}` } });
    await prisma.evalCase.create({
      data: { id: `case_${suffix}`, suiteId: suite.id, key: "small", launch: { goal: "From a case", stepBudget: 7 }, checks: [] },
    });
    const t = await createTemplateFromEvalCase({ prisma, suite: suite.name, caseKey: "small", profile: profileName, name: `case-${suffix}`, actor: "t" });
    expect(await api.template.asEvalCase({ template: t.name })).toEqual({ name: t.name, launch: { goal: "From a case", stepBudget: 7, profile: undefined } });
  });

  it("groups /costs spend by eval case, and the per-task CSV names the template and the case", async () => {
    // One task of the profile becomes an eval cell of suite-<suffix>/small.
    const task = await prisma.task.findFirstOrThrow({ where: { templateId, status: "completed" }, orderBy: { createdAt: "asc" } });
    const run = await prisma.evalRun.create({
      data: { id: `evalrun_${suffix}`, suiteId: `suite_${suffix}`, profiles: [profileName], repeats: 1, concurrency: 1, createdBy: "t" },
    });
    await prisma.evalCell.create({
      data: { id: `cell_${suffix}`, evalRunId: run.id, caseId: `case_${suffix}`, profile: profileName, repeat: 0, taskId: task.id },
    });
    const groups = await api.cost.byCase({ profile: profileName });
    const cost = await prisma.taskCost.findUniqueOrThrow({ where: { taskId: task.id } });
    expect(groups.find((g) => g.key === `suite-${suffix}/small`)).toMatchObject({
      tasks: 1,
      completed: 1,
      usd: Number(cost.costUsd),
      templateId: `case_${suffix}`,
    });
    expect(groups.reduce((n, g) => n + g.tasks, 0)).toBe(await prisma.task.count({ where: { profile: { name: profileName } } }));
    const { csv } = await api.cost.taskCsv({ profile: profileName });
    const [header, ...lines] = csv.split("\r\n");
    const columns = header!.split(",");
    const cells = lines.find((l) => l.startsWith(`${task.id},`))!.split(",");
    expect(cells[columns.indexOf("Template")]).toBe(name);
    expect(cells[columns.indexOf("Eval case")]).toBe(`suite-${suffix}/small`);
  });
});

describe("budgets from a template's history", () => {
  const name = `hist-${suffix}`;

  it("launches with the suggestion, records its basis, and a ceiling reached says how unlike the others the task is", async () => {
    await createTemplate({ prisma, name, launch: { goal: "Summarise again", profile: profileName, stepBudget: 40, workspace }, actor: "t" });
    // No history: the template's own budget, no basis.
    const first = await launchTemplate({ prisma, template: name, actor: "t", ports });
    expect(first.budgetBasis).toBeNull();
    const runs = [
      first,
      await launchTemplate({ prisma, template: name, actor: "t", ports }),
      await launchTemplate({ prisma, template: name, actor: "t", ports }),
    ];
    await complete(runs[0]!.taskId, runs[0]!.runId, 4, 1000);
    await complete(runs[1]!.taskId, runs[1]!.runId, 6, 2000);
    await complete(runs[2]!.taskId, runs[2]!.runId, 10, 4000);

    // Three completed (steps 4, 6, 10: p90 9.2): the next launch takes ceil(9.2 × 1.25) = 12 steps and records why.
    const next = await launchTemplate({ prisma, template: name, actor: "t", ports });
    const task = await prisma.task.findUniqueOrThrow({ where: { id: next.taskId } });
    expect(task.stepBudget).toBe(12);
    expect(Number(task.costBudgetUsd)).toBeCloseTo(0.045, 6);
    expect(task.budgetBasis).toMatchObject({
      source: "template",
      name,
      samples: 3,
      stepsP50: 6,
      stepsP90: 9.2,
      headroom: 1.25,
      ceilings: ["steps", "tokens", "cost"],
    });
    // A budget the operator changes is theirs: not from history.
    const chosen = await launchTemplate({ prisma, template: name, overrides: { stepBudget: 50 }, actor: "t", ports });
    expect((await prisma.task.findUniqueOrThrow({ where: { id: chosen.taskId } })).stepBudget).toBe(50);
    expect(chosen.budgetBasis?.ceilings).toEqual(["tokens", "cost"]);

    // The run starts with the basis; at its step ceiling the escalation quotes the p90.
    // The config agent-run gives the loop (server/inngest/loop-config.ts), from the segment's real start.
    const start = await startSegment({ prisma, taskId: next.taskId, runId: next.runId, checkpointId: null });
    expect(start.budgetBasis).toEqual(task.budgetBasis);
    const config = loopConfigOf(start);
    expect(config.budgetBasis).toEqual(task.budgetBasis);
    const at = (basis: LoopConfig["budgetBasis"]) =>
      nextAction(
        initialLoopState({ config: { ...config, budgetBasis: basis }, stepsUsed: 12, tokensUsed: 0, costUsd: 0, checkpointId: null, workingSetKeys: [] }),
        {
          kind: "turn_start",
          promptTokens: 100,
        },
      );
    const esc = at(start.budgetBasis);
    expect(esc).toMatchObject({ kind: "escalate", reason: "budget" });
    expect(esc.kind === "escalate" && esc.message).toBe(
      `The steps budget is reached: 12 of 12. The run stopped before the next model call. This task is not like the others: 12 steps against a p90 of 9.2 steps (3 completed tasks of template ${name}; ceiling p90 × 1.25).`,
    );
    // The same ceiling without a history basis says nothing of the others.
    const plain = at(null);
    expect(plain.kind === "escalate" && plain.message).toBe("The steps budget is reached: 12 of 12. The run stopped before the next model call.");
  });

  it("edits and deletes (archives) a template through the API: gone from the list and launches, kept for its tasks", async () => {
    await api.template.update({ template: name, description: "weekly" });
    await api.template.update({
      template: name,
      launch: { goal: "Summarise again", profile: profileName, stepBudget: 41, workspace, launchKey: "ignored-launch-key" },
    });
    const row = (await api.template.list()).find((t) => t.name === name)!;
    expect(row).toMatchObject({ description: "weekly", launch: { stepBudget: 41 } });
    expect(row.launch).not.toHaveProperty("launchKey");
    await expect(api.template.update({ template: name, launch: { profile: profileName } })).rejects.toBeInstanceOf(TRPCError);

    expect(await api.template.archive({ template: name })).toMatchObject({ archived: true });
    expect(await api.template.archive({ template: name })).toMatchObject({ archived: true });
    expect((await api.template.list()).some((t) => t.name === name)).toBe(false);
    await expect(launchTemplate({ prisma, template: name, actor: "t", ports })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await prisma.task.count({ where: { template: { name } } })).toBe(5);
  });
});

describe("budgets from an eval case's history", () => {
  const evalPorts = prismaAdvanceEvalRunPorts({
    prisma,
    tools: launchTools,
    launchPorts: ports,
    sendRunStarted: async () => {},
    sendRunCancelled: async () => {},
  });
  const suiteName = `hsuite-${suffix}`;
  const runOf = async (id: string, cells: { id: string; caseId: string; status: string; steps?: number; tokens?: number; costUsd?: string }[]) => {
    await prisma.evalRun.create({ data: { id, suiteId: `hsuite_${suffix}`, profiles: [profileName], repeats: cells.length, concurrency: 1, createdBy: "t" } });
    for (const [repeat, c] of cells.entries()) await prisma.evalCell.create({ data: { ...c, evalRunId: id, profile: profileName, repeat } });
  };

  it("launches a cell with its case's p90 × 1.25, the case's own budgets winning, and records the basis", async () => {
    await prisma.evalSuite.create({ data: { id: `hsuite_${suffix}`, name: suiteName } });
    const launchOf = { free: { goal: "Case with no budgets", workspace }, capped: { goal: "Case with its own step budget", workspace, stepBudget: 5 } };
    for (const [key, launch] of Object.entries(launchOf))
      await prisma.evalCase.create({ data: { id: `hcase_${key}_${suffix}`, suiteId: `hsuite_${suffix}`, key, launch, checks: [] } });
    // An earlier run: three passing cells per case (steps 4, 6, 10: p90 9.2), and a failed one that does not count.
    const earlier = (key: string) => [
      { id: `hc_${key}_a_${suffix}`, caseId: `hcase_${key}_${suffix}`, status: "passed", steps: 4, tokens: 1000, costUsd: "0.01" },
      { id: `hc_${key}_b_${suffix}`, caseId: `hcase_${key}_${suffix}`, status: "passed", steps: 6, tokens: 2000, costUsd: "0.02" },
      { id: `hc_${key}_c_${suffix}`, caseId: `hcase_${key}_${suffix}`, status: "passed", steps: 10, tokens: 4000, costUsd: "0.04" },
      { id: `hc_${key}_d_${suffix}`, caseId: `hcase_${key}_${suffix}`, status: "failed", steps: 90, tokens: 90000, costUsd: "0.9" },
    ];
    await runOf(`hrun1_${suffix}`, [...earlier("free"), ...earlier("capped")]);
    // This run's own passing cell is not history for its other cells.
    await runOf(`hrun2_${suffix}`, [
      { id: `hn_free_${suffix}`, caseId: `hcase_free_${suffix}`, status: "pending" },
      { id: `hn_capped_${suffix}`, caseId: `hcase_capped_${suffix}`, status: "pending" },
      { id: `hn_done_${suffix}`, caseId: `hcase_free_${suffix}`, status: "passed", steps: 500, tokens: 1, costUsd: "9" },
    ]);

    const free = await evalPorts.launchCell({ cellId: `hn_free_${suffix}`, profile: profileName, launch: launchOf.free, actor: "t" });
    const task = await prisma.task.findUniqueOrThrow({ where: { id: free.taskId } });
    // The template rule: ceil(9.2 × 1.25) = 12 steps, ceil(3600 × 1.25) = 4500 tokens, $0.036 × 1.25 = $0.045.
    expect([task.stepBudget, task.tokenBudget, Number(task.costBudgetUsd)]).toEqual([12, 4500, 0.045]);
    expect(task.budgetBasis).toEqual({
      source: "case",
      name: `${suiteName}/free`,
      samples: 3,
      stepsP50: 6,
      stepsP90: 9.2,
      tokensP90: 3600,
      costP90Usd: 0.036,
      headroom: 1.25,
      ceilings: ["steps", "tokens", "cost"],
    });
    const reached = historyCeilingNote({ kind: "steps", used: 12, limit: 12 }, parseBudgetBasis(task.budgetBasis));
    expect(reached).toBe(
      `This task is not like the others: 12 steps against a p90 of 9.2 steps (3 passing runs of eval case ${suiteName}/free; ceiling p90 × 1.25).`,
    );

    const capped = await evalPorts.launchCell({ cellId: `hn_capped_${suffix}`, profile: profileName, launch: launchOf.capped, actor: "t" });
    const cappedTask = await prisma.task.findUniqueOrThrow({ where: { id: capped.taskId } });
    expect(cappedTask.stepBudget).toBe(5);
    expect(cappedTask.budgetBasis).toMatchObject({ source: "case", ceilings: ["tokens", "cost"] });
  });
});
