import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "../../server/db/client.ts";
import { applyRoutines } from "../../server/db/migrations.ts";
import { costRollup, taskCostRows } from "../../server/db/cost-queries.ts";
import { beginStep, recordModelCall } from "../../server/db/run-repository.ts";
import { costFiltersSchema, failureClassOf, taskCostCsv } from "../../server/domain/cost-rollup.ts";
import { classifyEvalFailure } from "../../server/domain/eval-checks.ts";
import { EVAL_FAILURE_LABELS, FAILURE_CLASSES, FAILURE_LABELS } from "../../lib/contracts/failure.ts";
import { RUN_END_REASONS, TASK_STATUSES } from "../../lib/contracts/status.ts";
import { testDatabaseUrl } from "../support/database.ts";

// A run that ends tool_failure (a tool kept failing, the run escalated with that reason) is the same
// class on /costs as in the eval report: "tool failure", not "error". Two tasks of a profile of their
// own, written through the real write paths so the PL/pgSQL triggers key the rollup: F1 waiting for a
// human after a tool-failure escalation ($0.01), F2 failed after the same end reason ($0.02).

const prisma = createPrismaClient(testDatabaseUrl());
afterAll(() => prisma.$disconnect());

const tag = `fc${Date.now().toString(36)}`;
const profileName = `costs-${tag}`;
const model = `model-${tag}`;
const filters = costFiltersSchema.parse({ profile: profileName });

async function endedByToolFailure(id: string, status: "waiting_for_human" | "failed", prompt: number, profileId: string) {
  await prisma.task.create({
    data: { id, goal: "g", profileId, stepBudget: 50, workspace: "/tmp", status: "running", createdAt: new Date("2026-11-24T09:00:00Z") },
  });
  const runId = `${id}-r1`;
  await prisma.run.create({ data: { id: runId, taskId: id } });
  await beginStep({ prisma, runId, stepId: "model-0", index: 0, kind: "model" });
  await recordModelCall({
    prisma,
    runId,
    stepId: "model-0",
    attempt: 0,
    model,
    promptTokens: prompt,
    cachedTokens: 0,
    completionTokens: 0,
    status: "ok",
    httpStatus: 200,
    billed: true,
    cause: "productive",
    estimated: false,
    latencyMs: 5,
  });
  await prisma.run.update({ where: { id: runId }, data: { status: status === "failed" ? "failed" : "escalated", endReason: "tool_failure" } });
  await prisma.task.update({ where: { id }, data: { status } });
}

beforeAll(async () => {
  const profile = await prisma.agentProfile.create({
    data: { name: profileName, model, tools: [], inputPricePerMTok: "10", cachedPricePerMTok: "1", outputPricePerMTok: "30" },
  });
  await endedByToolFailure(`${tag}-f1`, "waiting_for_human", 1000, profile.id);
  await endedByToolFailure(`${tag}-f2`, "failed", 2000, profile.id);
});

describe("the tool_failure failure class on /costs", () => {
  it("keys the rollup, its breakdown and the per-task CSV as tool_failure, labelled as the eval report labels it", async () => {
    const stored = await prisma.$queryRaw<{ outcome: string; failure: string; tasks: number }[]>`
      SELECT r.outcome, r.failure, r.tasks FROM cost_rollup r JOIN agent_profile p ON p.id = r."profileId" WHERE p.name = ${profileName} ORDER BY r.outcome`;
    expect(stored).toEqual([
      { outcome: "failed", failure: "tool_failure", tasks: 1 },
      { outcome: "waiting", failure: "tool_failure", tasks: 1 },
    ]);

    const rollup = await costRollup({ prisma, filters });
    expect(rollup.byFailureClass.map((g) => [g.key, g.tasks, Number(g.usd.toFixed(6))])).toEqual([["tool_failure", 2, 0.03]]);

    const rows = await taskCostRows({ prisma, filters });
    const csv = taskCostCsv(rows).split("\n");
    const failureColumn = csv[0]!.split(",").findIndex((h) => /failure/i.test(h));
    expect(failureColumn).toBeGreaterThanOrEqual(0);
    expect(
      csv
        .slice(1)
        .filter(Boolean)
        .map((line) => line.split(",")[failureColumn]),
    ).toEqual(["tool_failure", "tool_failure"]);

    // The eval report's class for a cell whose task escalated for a failing tool, and its words, are the same.
    const evalClass = classifyEvalFailure({
      results: [{ kind: "status", label: "status", pass: false, detail: "" }],
      taskStatus: "waiting_for_human",
      endReason: "tool_failure",
      escalationReason: "tool_failure",
    });
    expect(evalClass).toBe("tool_failure");
    expect(FAILURE_LABELS.tool_failure.toLowerCase()).toBe(EVAL_FAILURE_LABELS.tool_failure);
  });

  it("the SQL class equals failureClassOf for every task status and run end reason, and is always a listed class", async () => {
    const reasons = [null, ...RUN_END_REASONS, "not_a_reason"];
    const pairs = TASK_STATUSES.flatMap((status) => reasons.map((reason) => ({ status, reason })));
    const sql = await prisma.$queryRaw<{ status: string; reason: string | null; failure: string }[]>`
      SELECT x.status, x.reason, longhaul_cost_failure(x.status, x.reason) AS failure
      FROM jsonb_to_recordset(${JSON.stringify(pairs)}::jsonb) AS x(status text, reason text)`;
    expect(sql).toHaveLength(pairs.length);
    for (const row of sql) {
      expect([row.status, row.reason, row.failure]).toEqual([row.status, row.reason, failureClassOf(row.status, row.reason) ?? ""]);
      if (row.failure) expect(FAILURE_CLASSES).toContain(row.failure);
    }
  });
  it("an upgraded database whose rollup still counts these tasks as error is rebuilt once when the routines are applied", async () => {
    // What a rollup written before the class existed holds: the same tasks, keyed "error".
    await prisma.$executeRaw`
      UPDATE cost_rollup r SET failure = 'error' FROM agent_profile p WHERE p.id = r."profileId" AND p.name = ${profileName}`;
    const before = await costRollup({ prisma, filters });
    expect(before.byFailureClass.map((g) => [g.key, g.tasks])).toEqual([["error", 2]]);

    // Every start applies server/db/sql/*.sql after the migrations; its one-time block sees the
    // tool_failure tasks the rollup does not count and rebuilds the rollup from the summaries.
    await applyRoutines(testDatabaseUrl());
    const after = await costRollup({ prisma, filters });
    expect(after.byFailureClass.map((g) => [g.key, g.tasks, Number(g.usd.toFixed(6))])).toEqual([["tool_failure", 2, 0.03]]);

    // A second start finds nothing to do: the rows stay as they are (no rebuild churns them).
    const rowsBefore = await prisma.$queryRaw<{ ctid: string }[]>`SELECT ctid::text FROM cost_rollup ORDER BY ctid`;
    await applyRoutines(testDatabaseUrl());
    const rowsAfter = await prisma.$queryRaw<{ ctid: string }[]>`SELECT ctid::text FROM cost_rollup ORDER BY ctid`;
    expect(rowsAfter).toEqual(rowsBefore);
  });
});
