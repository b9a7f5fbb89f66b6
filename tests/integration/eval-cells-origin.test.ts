import { ulid } from "ulid";
import { afterAll, describe, expect, it } from "vitest";
import { createCaller } from "../../server/api/root.ts";
import { createPrismaClient } from "../../server/db/client.ts";
import { testPrincipal } from "../support/principals.ts";
import { testDatabaseUrl } from "../support/database.ts";

// Eval cells are ordinary tasks: the task list marks them with their eval run and hides them unless
// asked (production by default on the page), and /costs says what of the spend in scope was eval
// cells. Real PostgreSQL.

const prisma = createPrismaClient(testDatabaseUrl());
afterAll(() => prisma.$disconnect());

describe("eval cells among production tasks", () => {
  it("are marked with their eval run, filtered by origin, and counted apart on /costs", async () => {
    const suffix = ulid().toLowerCase();
    const profile = await prisma.agentProfile.create({ data: { name: `origin-${suffix}`, model: "scripted", tools: [] } });
    const task = (id: string) =>
      prisma.task.create({
        data: { id, goal: `goal ${suffix}`, profileId: profile.id, status: "completed", stepBudget: 10, workspace: "/tmp", createdBy: "ops" },
      });
    const prod = `task_p${suffix}`;
    const cellTask = `task_e${suffix}`;
    await task(prod);
    await task(cellTask);
    const suite = await prisma.evalSuite.create({ data: { id: `suite_${suffix}`, name: `suite-${suffix}` } });
    const evalCase = await prisma.evalCase.create({ data: { id: `case_${suffix}`, suiteId: suite.id, key: "a", launch: {}, checks: [] } });
    const run = await prisma.evalRun.create({
      data: { id: `evalrun_${suffix}`, suiteId: suite.id, profiles: [profile.name], repeats: 1, concurrency: 1, createdBy: "ops" },
    });
    await prisma.evalCell.create({
      data: { id: `cell_${suffix}`, evalRunId: run.id, caseId: evalCase.id, profile: profile.name, repeat: 0, taskId: cellTask },
    });

    const api = createCaller({ prisma, actor: "ops", principal: testPrincipal("ops", ["operator", "manager"]) });
    const ids = async (origin?: "production" | "eval" | "all") =>
      (await api.task.list({ profile: profile.name, ...(origin ? { origin } : {}) })).rows.map((r) => [r.id, r.evalRun]);
    expect(await ids("production")).toEqual([[prod, null]]);
    expect(await ids("eval")).toEqual([[cellTask, { id: run.id, suite: suite.name }]]);
    expect((await ids()).map(([id]) => id).sort()).toEqual([cellTask, prod].sort());
    expect((await ids("all")).length).toBe(2);

    const rollup = await api.cost.rollup({ profile: profile.name });
    expect(rollup.headline.evalCells).toEqual({ tasks: 1, usd: 0 });
  });
});
