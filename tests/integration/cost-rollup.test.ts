import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "../../server/db/client.ts";
import { costRollup, taskCostRows } from "../../server/db/cost-queries.ts";
import { taskCostTotals, taskRunCosts } from "../../server/db/cost-repository.ts";
import { prismaResumePorts } from "../../server/db/resume-ports.ts";
import { beginStep, recordModelCall } from "../../server/db/run-repository.ts";
import {
  COMPLETED_OUTCOMES,
  costFiltersSchema,
  failureClassOf,
  outcomeOf,
  outcomeTableCells,
  outcomeTableCsv,
  toCsv,
  OUTCOME_CSV_HEADER,
  outcomeCsvCells,
  taskCostCsv,
} from "../../server/domain/cost-rollup.ts";
import { testDatabaseUrl } from "../support/database.ts";

// The rollups on a small fixed data set written through the real write paths (recordModelCall,
// beginStep, the resume port's transaction) and the PL/pgSQL summaries, with every expected figure
// worked out by hand below. Profile prices (USD per million tokens): input 10, cached 1, output 30,
// so one uncached prompt token = $0.00001, one cached = $0.000001, one completion = $0.00003.
//
// T1 completed (4 steps): model-0 ok 1000 prompt (400 cached) + 100 out = 600·1e-5 + 400·1e-6 + 100·3e-5
//    = 0.006 + 0.0004 + 0.003 = 0.0094; model-1 a 429 (unbilled, 0 tokens) and a 400 with 5000
//    counted prompt tokens (unbilled → $0), then model-1 attempt 1 ok 1000 + 50 out = 0.01 + 0.0015
//    = 0.0115. Total 0.0209, all productive.
// T2 completed (2 steps): model-0 attempt 0 ok 1000 → 0.01, then attempt 1 ok 1000 → 0.01: the first
//    becomes `retry`. checkpoint-1 500 + 100 out = 0.005 + 0.003 = 0.008. Total 0.028.
// T3 completed after a resume (3 steps): run 1 model-0 2000 → 0.02, checkpoint 0.008, then the
//    checkpoint row, then model-1 3000 → 0.03; run 1 fails (transient); resumed from the checkpoint:
//    run 1's model-1 becomes `discarded`; kept before the checkpoint 0.028. Run 2 model-1 3000 → 0.03.
//    Total 0.088 (productive 0.05, checkpoint 0.008, discarded 0.03).
// T4 dead end (1 step): model-0 1000, usage estimated → 0.01, flagged.
// T5 waiting for a human after a loop (1 step, 1 escalation): model-0 500 → 0.005.
// All: 0.0209 + 0.028 + 0.088 + 0.01 + 0.005 = 0.1519; completed 3 → 0.1519 / 3 per completed task.
// Waste 0.01 + 0.03 = 0.04; overhead 0.016; productive 0.0959. Steps of completed tasks [2, 3, 4]:
// median 3, p90 = 3 + 0.8·(4 − 3) = 3.8. T1, T2 launched Mon 2026-11-02; T3–T5 Tue 2026-11-10.

const prisma = createPrismaClient(testDatabaseUrl());
afterAll(() => prisma.$disconnect());

const tag = `cost${Date.now().toString(36)}`;
const profileName = `costs-${tag}`;
const model = `model-${tag}`;
const ids = { t1: `${tag}-t1`, t2: `${tag}-t2`, t3: `${tag}-t3`, t4: `${tag}-t4`, t5: `${tag}-t5` };

async function task(id: string, status: string, createdAt: string, profileId: string) {
  await prisma.task.create({ data: { id, goal: "g", profileId, stepBudget: 50, workspace: "/tmp", status, createdAt: new Date(createdAt) } });
  await prisma.run.create({ data: { id: `${id}-r1`, taskId: id } });
  return `${id}-r1`;
}

let n = 0;
/** A call through the ledger's write path; createdAt is then pinned to a fixed, strictly increasing time. */
async function call(
  runId: string,
  stepId: string,
  o: {
    attempt?: number;
    p: number;
    c?: number;
    out?: number;
    status?: "ok" | "error";
    billed?: boolean;
    http?: number;
    cause?: "productive" | "checkpoint" | "retry";
    estimated?: boolean;
  },
) {
  await recordModelCall({
    prisma,
    runId,
    stepId,
    attempt: o.attempt ?? 0,
    model,
    promptTokens: o.p,
    cachedTokens: o.c ?? 0,
    completionTokens: o.out ?? 0,
    status: o.status ?? "ok",
    httpStatus: o.http ?? 200,
    billed: o.billed ?? true,
    cause: o.cause ?? "productive",
    estimated: o.estimated ?? false,
    latencyMs: 5,
  });
  n += 1;
  const last = await prisma.modelCall.findFirstOrThrow({ where: { runId, stepId }, orderBy: { createdAt: "desc" } });
  await prisma.modelCall.update({ where: { id: last.id }, data: { createdAt: new Date(Date.UTC(2026, 10, 1, 0, 0, n)) } });
}

const step = (runId: string, stepId: string, index: number, kind: "model" | "tool" = "model") => beginStep({ prisma, runId, stepId, index, kind });

beforeAll(async () => {
  const profile = await prisma.agentProfile.create({
    data: { name: profileName, model, tools: [], inputPricePerMTok: "10", cachedPricePerMTok: "1", outputPricePerMTok: "30" },
  });
  const r1 = await task(ids.t1, "completed", "2026-11-02T09:00:00Z", profile.id);
  await step(r1, "model-0", 0);
  await call(r1, "model-0", { p: 1000, c: 400, out: 100 });
  await step(r1, "tool-0-0", 1, "tool");
  await step(r1, "model-1", 2);
  await call(r1, "model-1", { p: 0, status: "error", billed: false, http: 429, cause: "retry" });
  await call(r1, "model-1", { p: 5000, status: "error", billed: false, http: 400, cause: "retry", estimated: true });
  await call(r1, "model-1", { attempt: 1, p: 1000, out: 50 });
  await step(r1, "tool-1-0", 3, "tool");

  const r2 = await task(ids.t2, "completed", "2026-11-02T10:00:00Z", profile.id);
  await step(r2, "model-0", 0);
  await call(r2, "model-0", { p: 1000 });
  await call(r2, "model-0", { attempt: 1, p: 1000 });
  await step(r2, "tool-0-0", 1, "tool");
  await call(r2, "checkpoint-1", { p: 500, out: 100, cause: "checkpoint" });

  const r3 = await task(ids.t3, "failed", "2026-11-10T09:00:00Z", profile.id);
  await step(r3, "model-0", 0);
  await call(r3, "model-0", { p: 2000 });
  await call(r3, "checkpoint-1", { p: 500, out: 100, cause: "checkpoint" });
  n += 1;
  const cp = await prisma.checkpoint.create({
    data: {
      id: `${ids.t3}-cp1`,
      taskId: ids.t3,
      runId: r3,
      seq: 1,
      reason: "interval",
      afterStepId: "model-0",
      nextTurn: 1,
      nextIndex: 1,
      goal: "g",
      workingSet: {},
      completedSteps: [],
      budgetsUsed: {},
      sideEffects: [],
      createdAt: new Date(Date.UTC(2026, 10, 1, 0, 0, n)),
    },
  });
  await step(r3, "model-1", 1);
  await call(r3, "model-1", { p: 3000 });
  await prisma.run.update({ where: { id: r3 }, data: { status: "failed", endReason: "transient" } });
  const ports = prismaResumePorts({ prisma, sendRunStarted: async () => {} });
  expect(
    await ports.claimTaskAndCreateRun({
      taskId: ids.t3,
      runId: `${ids.t3}-r2`,
      from: ["failed"],
      cause: "resume",
      checkpointId: cp.id,
      guidance: null,
      actor: "test",
    }),
  ).toBe(true);
  await step(`${ids.t3}-r2`, "model-1", 1);
  await call(`${ids.t3}-r2`, "model-1", { p: 3000 });
  await prisma.task.update({ where: { id: ids.t3 }, data: { status: "completed" } });
  await prisma.run.update({ where: { id: `${ids.t3}-r2` }, data: { status: "completed" } });

  const r4 = await task(ids.t4, "dead_end", "2026-11-10T10:00:00Z", profile.id);
  await step(r4, "model-0", 0);
  await call(r4, "model-0", { p: 1000, estimated: true });

  const r5 = await task(ids.t5, "waiting_for_human", "2026-11-10T11:00:00Z", profile.id);
  await step(r5, "model-0", 0);
  await call(r5, "model-0", { p: 500 });
  await prisma.run.update({ where: { id: r5 }, data: { status: "escalated", endReason: "loop" } });
  await prisma.escalation.create({
    data: { id: `${ids.t5}-e1`, taskId: ids.t5, runId: r5, stepId: "model-0", reason: "loop", message: "m", dueAt: new Date() },
  });
});

const close = (actual: number | null | undefined, expected: number) => expect(actual).toBeCloseTo(expected, 8);

describe("cost rollups on a fixed data set", () => {
  it("prices cached tokens as cached, leaves unbilled attempts at $0, and corrects retry and discarded causes", async () => {
    const t1 = await prisma.modelCall.findMany({ where: { runId: `${ids.t1}-r1` }, orderBy: { createdAt: "asc" } });
    expect(t1.map((c) => [Number(c.costUsd), c.billed, c.cause])).toEqual([
      [0.0094, true, "productive"],
      [0, false, "retry"],
      [0, false, "retry"],
      [0.0115, true, "productive"],
    ]);
    expect(t1.every((c) => c.priceVersion === `profile:${profileName}`)).toBe(true);
    const t2 = await prisma.modelCall.findMany({ where: { runId: `${ids.t2}-r1` }, orderBy: { createdAt: "asc" } });
    expect(t2.map((c) => c.cause)).toEqual(["retry", "productive", "checkpoint"]);
    const t3 = await prisma.modelCall.findMany({ where: { run: { taskId: ids.t3 } }, orderBy: { createdAt: "asc" } });
    expect(t3.map((c) => `${c.runId.slice(-2)}:${c.stepId}:${c.cause}`)).toEqual([
      "r1:model-0:productive",
      "r1:checkpoint-1:checkpoint",
      "r1:model-1:discarded",
      "r2:model-1:productive",
    ]);
  });

  it("computes the headline, breakdowns and outcomes table worked out by hand", async () => {
    const r = await costRollup({ prisma, filters: costFiltersSchema.parse({ profile: profileName }) });
    const h = r.headline;
    expect([h.tasks, h.completed]).toEqual([5, 3]);
    close(h.completionRate, 3 / 5);
    close(h.usd, 0.1519);
    close(h.costPerCompletedUsd, 0.1519 / 3);
    close(h.wasteUsd, 0.04);
    close(h.wasteShare, 0.04 / 0.1519);
    close(h.overheadUsd, 0.016);
    close(h.productiveUsd, 0.0959);
    close(h.stepsMedian, 3);
    close(h.stepsP90, 3.8);
    close(h.estimatedUsd, 0.01);
    expect(h.estimatedCalls).toBe(2);
    expect([h.calls, h.unbilledCalls, h.escalations]).toEqual([13, 2, 1]);
    expect(h.resume.tasks).toBe(1);
    close(h.resume.keptUsd, 0.028);
    close(h.resume.discardedUsd, 0.03);
    close(h.resume.savedUsd, 0.028);
    close(h.resume.restartCostUsd, 0.058);
    expect(h.priceVersions).toEqual([`profile:${profileName}`]);
    close(r.byCause.retry, 0.01);
    close(r.byCause.discarded, 0.03);
    close(r.byCause.checkpoint, 0.016);
    expect(r.byOutcome.map((g) => [g.key, g.tasks, Math.round(g.usd * 1e6)])).toEqual([
      ["completed", 3, 136900],
      ["dead_end", 1, 10000],
      ["waiting", 1, 5000],
    ]);
    expect(r.byFailureClass.map((g) => [g.key, Math.round(g.usd * 1e6)])).toEqual([
      ["dead_end", 10000],
      ["loop", 5000],
    ]);
    expect(r.byPeriod.map((g) => [g.key, g.tasks, g.completed, Math.round(g.usd * 1e6)])).toEqual([
      ["2026-11-02", 2, 2, 48900],
      ["2026-11-10", 3, 1, 103000],
    ]);
    expect(r.byModel.map((g) => g.key)).toEqual([model]);
    expect(r.byPeriod.map((g) => g.priceVersions)).toEqual([[`profile:${profileName}`], [`profile:${profileName}`]]);
    expect(r.outcomes).toHaveLength(1);
    const row = r.outcomes[0]!;
    expect([row.profile, row.model, row.launched, row.completed]).toEqual([profileName, model, 5, 3]);
    close(row.stepsPerCompleted, 3);
    close(row.escalationsPerTask, 0.2);
    close(row.costPerCompletedUsd, 0.1519 / 3);
    expect(outcomeTableCells(r.outcomes)).toEqual([
      [profileName, model, "5", "3", "60%", "3.0", "0.20", "$0.1519*", "$0.0506*", `profile:${profileName}`, "yes"],
    ]);
    expect(outcomeTableCsv(r.outcomes)).toBe(toCsv(OUTCOME_CSV_HEADER, outcomeCsvCells(r.outcomes)));
    expect(r.outcomeCsv.trimEnd().split("\r\n")[1]).toBe(`${profileName},${model},5,3,0.6,3,0.2,0.1519,0.05063333,profile:${profileName},yes`);
  });

  it("filters by week and outcome", async () => {
    const week = await costRollup({ prisma, filters: costFiltersSchema.parse({ profile: profileName, from: "2026-11-09", to: "2026-11-15", bucket: "week" }) });
    expect([week.headline.tasks, week.headline.completed]).toEqual([3, 1]);
    close(week.headline.usd, 0.103);
    expect(week.byPeriod.map((g) => g.key)).toEqual(["2026-11-09"]);
    const failed = await costRollup({ prisma, filters: costFiltersSchema.parse({ profile: profileName, outcome: "dead_end" }) });
    expect([failed.headline.tasks, failed.headline.completed, failed.headline.costPerCompletedUsd]).toEqual([1, 0, null]);
  });

  it("the per-task CSV's day range holds each launch day whole, its first and last millisecond included", async () => {
    const edges = await prisma.agentProfile.create({ data: { name: `${profileName}-edges`, model, tools: [] } });
    const at = ["2026-11-01T23:59:59.999Z", "2026-11-02T00:00:00.000Z", "2026-11-02T23:59:59.999Z", "2026-11-03T00:00:00.000Z"];
    for (const [i, iso] of at.entries()) await task(`${tag}-edge${i}`, "completed", iso, edges.id);
    const rows = await taskCostRows({ prisma, filters: costFiltersSchema.parse({ profile: edges.name, from: "2026-11-02", to: "2026-11-02" }) });
    expect(rows.map((r) => r.launchedAt.toISOString())).toEqual([at[1], at[2]]);
    const open = await taskCostRows({ prisma, filters: costFiltersSchema.parse({ profile: edges.name, to: "2026-11-01" }) });
    expect(open.map((r) => r.launchedAt.toISOString())).toEqual([at[0]]);
  });

  it("task totals are the sum of the task's runs, and match a rebuild from the ledger", async () => {
    const split = await taskRunCosts({ prisma, taskId: ids.t3 });
    expect(split.runs.map((r) => Math.round(r.usd * 1e6))).toEqual([58000, 30000]);
    close(
      split.totals.usd,
      split.runs.reduce((s, r) => s + r.usd, 0),
    );
    close(split.runs[0]!.byCause.discarded, 0.03);
    const before = await taskCostTotals({ prisma, taskIds: Object.values(ids) });
    await prisma.$queryRaw`SELECT longhaul_task_cost_rebuild()`;
    const after = await taskCostTotals({ prisma, taskIds: Object.values(ids) });
    expect([...after.values()]).toEqual([...before.values()]);
    const t4 = after.get(ids.t4)!;
    expect([t4.estimatedCalls, t4.estimatedUsd]).toEqual([1, 0.01]);
  });

  it("the rollup tables kept by the triggers equal a rebuild from the ledger", async () => {
    // cost_rollup rows of this profile, by hand: T1, T2 completed on 2026-11-02 (0.0209 + 0.028);
    // on 2026-11-10 T3 completed (0.088, resumed), T4 dead end (0.01 estimated), T5 waiting after a loop (0.005).
    const snapshot = async () => ({
      rollup: (
        await prisma.$queryRaw<Record<string, unknown>[]>`
          SELECT to_char(r.day, 'YYYY-MM-DD') AS day, r.model, r.outcome, r.failure, r."priceVersions", r.tasks, r.completed, r.calls,
                 r."billedCalls", r."estimatedCalls", r."costUsd"::text AS usd, r."productiveUsd"::text, r."retryUsd"::text, r."replayUsd"::text,
                 r."checkpointUsd"::text, r."compactionUsd"::text, r."discardedUsd"::text, r."restartUsd"::text, r."estimatedUsd"::text,
                 r."stepsCompleted", r.escalations, r.resumed, r."resumeKeptUsd"::text, r."resumeDiscardedUsd"::text
          FROM cost_rollup r JOIN agent_profile p ON p.id = r."profileId" WHERE p.name = ${profileName}
          ORDER BY r.day, r.outcome, r.failure`
      ).map((row): Record<string, unknown> => ({ ...row, usd: Number(row.usd) })),
      steps: await prisma.$queryRaw<Record<string, unknown>[]>`
        SELECT to_char(h.day, 'YYYY-MM-DD') AS day, h.steps, h.tasks FROM cost_steps h JOIN agent_profile p ON p.id = h."profileId"
        WHERE p.name = ${profileName} ORDER BY h.day, h.steps`,
    });
    const before = await snapshot();
    expect(before.rollup.map((r) => [r.day, r.outcome, r.failure, r.tasks, r.completed, r.usd, r.stepsCompleted, r.resumed])).toEqual([
      ["2026-11-02", "completed", "", 2, 2, 0.0489, 6, 0],
      ["2026-11-10", "completed", "", 1, 1, 0.088, 3, 1],
      ["2026-11-10", "dead_end", "dead_end", 1, 0, 0.01, 0, 0],
      ["2026-11-10", "waiting", "loop", 1, 0, 0.005, 0, 0],
    ]);
    expect(before.steps).toEqual([
      { day: "2026-11-02", steps: 2, tasks: 1 },
      { day: "2026-11-02", steps: 4, tasks: 1 },
      { day: "2026-11-10", steps: 3, tasks: 1 },
    ]);
    await prisma.$queryRaw`SELECT longhaul_task_cost_rebuild()`;
    expect(await snapshot()).toEqual(before);
  });

  it("the rollup's SQL classifies outcomes and failure classes as the domain does", async () => {
    const statuses = ["queued", "running", "waiting_for_human", "completed", "dead_end", "failed", "cancelled"];
    const reasons = [null, "budget_exhausted", "loop", "stall", "transient", "saturation", "drift", "error", "cancelled_by_user", "tool_failed"];
    const pairs = statuses.flatMap((status) => reasons.map((reason) => ({ status, reason })));
    const sql = await prisma.$queryRaw<{ status: string; reason: string | null; outcome: string; failure: string }[]>`
      SELECT x.status, x.reason, longhaul_cost_outcome(x.status, NULL) AS outcome, longhaul_cost_failure(x.status, x.reason) AS failure
      FROM jsonb_to_recordset(${JSON.stringify(pairs)}::jsonb) AS x(status text, reason text)`;
    expect(sql).toHaveLength(pairs.length);
    for (const row of sql) {
      expect([row.status, row.reason, row.outcome, row.failure]).toEqual([
        row.status,
        row.reason,
        outcomeOf(row.status),
        failureClassOf(row.status, row.reason) ?? "",
      ]);
    }
  });
});

// Completed with gaps: its own outcome on /costs, still a completed task. A profile of its
// own: G1 completed with gaps (3 steps, $0.01), G2 completed clean (1 step, $0.02), G3 running
// (2 steps, $0.005) that then completes with gaps in one update (the trigger path), G4 completed
// whose outcome alone is corrected to completed_with_gaps afterwards (5 steps, $0.001).
describe("completed with gaps as a /costs outcome", () => {
  const gtag = `${tag}g`;
  const gProfile = `costs-${gtag}`;
  const g = { g1: `${gtag}-g1`, g2: `${gtag}-g2`, g3: `${gtag}-g3`, g4: `${gtag}-g4` };
  const filters = (extra: Record<string, string> = {}) => costFiltersSchema.parse({ profile: gProfile, ...extra });

  beforeAll(async () => {
    const profile = await prisma.agentProfile.create({
      data: { name: gProfile, model, tools: [], inputPricePerMTok: "10", cachedPricePerMTok: "1", outputPricePerMTok: "30" },
    });
    const make = async (id: string, status: string, outcome: string | null, steps: number, prompt: number) => {
      await prisma.task.create({
        data: { id, goal: "g", profileId: profile.id, stepBudget: 50, workspace: "/tmp", status, outcome, createdAt: new Date("2026-11-20T09:00:00Z") },
      });
      const runId = `${id}-r1`;
      await prisma.run.create({ data: { id: runId, taskId: id } });
      for (let i = 0; i < steps; i++) await step(runId, `model-${i}`, i);
      await call(runId, "model-0", { p: prompt });
    };
    await make(g.g1, "completed", "completed_with_gaps", 3, 1000);
    await make(g.g2, "completed", "completed", 1, 2000);
    await make(g.g3, "running", null, 2, 500);
    await make(g.g4, "completed", "completed", 5, 100);
    await prisma.task.update({ where: { id: g.g3 }, data: { status: "completed", outcome: "completed_with_gaps" } });
    await prisma.task.update({ where: { id: g.g4 }, data: { outcome: "completed_with_gaps" } });
  });

  it("counts in its own outcome row and filter, and as completed for completion rate and cost per completed task", async () => {
    const all = await costRollup({ prisma, filters: filters() });
    expect([all.headline.tasks, all.headline.completed]).toEqual([4, 4]);
    close(all.headline.costPerCompletedUsd, 0.036 / 4);
    expect(all.byOutcome.map((o) => [o.key, o.tasks, o.completed, Math.round(o.usd * 1e6)]).sort()).toEqual([
      ["completed", 1, 1, 20000],
      ["completed_with_gaps", 3, 3, 16000],
    ]);
    // Steps per completed task over all four: [1, 2, 3, 5] → median 2.5.
    expect(all.headline.stepsMedian).toBe(2.5);
    expect(all.outcomes.map((r) => [r.launched, r.completed])).toEqual([[4, 4]]);

    const gaps = await costRollup({ prisma, filters: filters({ outcome: "completed_with_gaps" }) });
    expect([gaps.headline.tasks, gaps.headline.completed]).toEqual([3, 3]);
    close(gaps.headline.usd, 0.016);
    // Only the gap tasks' steps: [2, 3, 5] → median 3.
    expect(gaps.headline.stepsMedian).toBe(3);
    const clean = await costRollup({ prisma, filters: filters({ outcome: "completed" }) });
    expect([clean.headline.tasks, clean.headline.completed, clean.headline.stepsMedian]).toEqual([1, 1, 1]);
  });

  it("the per-task CSV names the outcome, and its outcome filter agrees with the rollup", async () => {
    const rows = await taskCostRows({ prisma, filters: filters() });
    const byId = new Map(rows.map((r) => [r.taskId, outcomeOf(r.status, r.outcome ?? null)]));
    expect(Object.values(g).map((id) => byId.get(id))).toEqual(["completed_with_gaps", "completed", "completed_with_gaps", "completed_with_gaps"]);
    const csv = taskCostCsv(rows.filter((r) => r.taskId === g.g1));
    expect(csv.split("\r\n")[1]).toMatch(new RegExp(`^${g.g1},2026-11-20T09:00:00Z,${gProfile},${model},completed_with_gaps,,3,1000,0.01,0,,,0,0,0,0,0$`));
    const gapRows = await taskCostRows({ prisma, filters: filters({ outcome: "completed_with_gaps" }) });
    expect(gapRows.map((r) => r.taskId).sort()).toEqual([g.g1, g.g3, g.g4].sort());
  });

  it("the rollup tables kept by the triggers equal a rebuild, outcome by outcome", async () => {
    const snapshot = async () => ({
      rollup: await prisma.$queryRaw<Record<string, unknown>[]>`
        SELECT r.outcome, r.tasks, r.completed, r."costUsd"::text AS usd, r."stepsCompleted"
        FROM cost_rollup r JOIN agent_profile p ON p.id = r."profileId" WHERE p.name = ${gProfile} ORDER BY r.outcome`,
      steps: await prisma.$queryRaw<Record<string, unknown>[]>`
        SELECT h.outcome, h.steps, h.tasks FROM cost_steps h JOIN agent_profile p ON p.id = h."profileId"
        WHERE p.name = ${gProfile} ORDER BY h.outcome, h.steps`,
    });
    const before = await snapshot();
    expect(before.rollup).toEqual([
      { outcome: "completed", tasks: 1, completed: 1, usd: "0.02000000", stepsCompleted: 1 },
      { outcome: "completed_with_gaps", tasks: 3, completed: 3, usd: "0.01600000", stepsCompleted: 10 },
    ]);
    expect(before.steps).toEqual([
      { outcome: "completed", steps: 1, tasks: 1 },
      { outcome: "completed_with_gaps", steps: 2, tasks: 1 },
      { outcome: "completed_with_gaps", steps: 3, tasks: 1 },
      { outcome: "completed_with_gaps", steps: 5, tasks: 1 },
    ]);
    await prisma.$queryRaw`SELECT longhaul_task_cost_rebuild()`;
    expect(await snapshot()).toEqual(before);
  });

  it("the SQL outcome mirrors outcomeOf with Task.outcome", async () => {
    const pairs = ["queued", "running", "completed", "failed", "cancelled"].flatMap((status) =>
      [null, "completed", "completed_with_gaps"].map((outcome) => ({ status, outcome })),
    );
    const sql = await prisma.$queryRaw<{ status: string; outcome: string | null; key: string; done: boolean }[]>`
      SELECT x.status, x.outcome, longhaul_cost_outcome(x.status, x.outcome) AS key, longhaul_cost_done(longhaul_cost_outcome(x.status, x.outcome)) AS done
      FROM jsonb_to_recordset(${JSON.stringify(pairs)}::jsonb) AS x(status text, outcome text)`;
    expect(sql).toHaveLength(pairs.length);
    for (const row of sql) {
      const expected = outcomeOf(row.status, row.outcome);
      expect([row.status, row.outcome, row.key, row.done]).toEqual([row.status, row.outcome, expected, COMPLETED_OUTCOMES.includes(expected)]);
    }
  });
});
