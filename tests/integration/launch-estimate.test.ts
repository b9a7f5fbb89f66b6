import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ulid } from "ulid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "../../server/api/root.ts";
import { createPrismaClient } from "../../server/db/client.ts";
import { prismaLaunchPorts } from "../../server/db/launch-ports.ts";
import { recordModelTurns } from "../support/model-turns.ts";
import { launchTask, launchTaskInputSchema, type LaunchTaskInput } from "../../server/domain/launch-task.ts";
import { launchTools } from "../../server/tools/launch-tools.ts";
import { testPrincipal } from "../support/principals.ts";
import { testDatabaseUrl } from "../support/database.ts";

// task.estimateLaunch against the test database ("a launch shows what similar tasks cost
// before it starts"): completed tasks of the profile (steps from beginStep, dollars from
// recordModelCall through the task_cost triggers); a demo scaled per package, a goal as it is; tasks
// not completed, of another demo kind or another profile do not count.
// Profile price: input 10 USD per million tokens, so 1000 prompt tokens = $0.01.

const prisma = createPrismaClient(testDatabaseUrl());
afterAll(() => prisma.$disconnect());
const api = createCaller({ prisma, actor: "est-op", principal: testPrincipal("est-op") });
const suffix = ulid().toLowerCase().slice(-8);
const profile = `est-${suffix}`;
const model = `model-${suffix}`;
const workspace = mkdtempSync(join(tmpdir(), "est-ws-"));
const ports = prismaLaunchPorts({ prisma, sendRunStarted: async () => {}, defaultWorkspace: workspace, workspaceRoots: [workspace], tools: launchTools });

/** Launches a task and marks it `status` after `steps` steps and `prompt` prompt tokens of one model call. */
async function seed(input: Omit<LaunchTaskInput, "profile">, steps: number, prompt: number, status = "completed") {
  const { taskId, runId } = await launchTask({ input: launchTaskInputSchema.parse({ ...input, profile }), actor: "est", ports });
  await recordModelTurns({ prisma, runId, model, steps, promptTokens: prompt });
  await prisma.task.update({ where: { id: taskId }, data: { status } });
}

beforeAll(async () => {
  await prisma.agentProfile.create({
    data: { name: profile, model, tools: [], stepBudget: 40, inputPricePerMTok: "10", cachedPricePerMTok: "1", outputPricePerMTok: "30" },
  });
});

describe("task.estimateLaunch", () => {
  it("says no history yet before any task of the profile completed", async () => {
    const goal = await api.task.estimateLaunch({ profile });
    expect(goal).toMatchObject({ profile, basis: "none", samples: 0, costP50Usd: null });
    expect(goal.note).toContain("No history yet");
    const demo = await api.task.estimateLaunch({ profile, demo: { kind: "license-audit", limit: 1000 } });
    expect(demo).toMatchObject({ basis: "none", method: "per-unit" });
  });

  it("estimates a demo per package from its completed demos and a goal from its completed goals", async () => {
    // Demos: 10 packages $0.01 30 steps; 20 packages $0.04 60 steps → $0.001 and $0.002 per package.
    await seed({ demo: { kind: "license-audit", limit: 10 } }, 30, 1000);
    await seed({ demo: { kind: "license-audit", limit: 20 } }, 60, 4000);
    await seed({ demo: { kind: "license-audit", limit: 5 } }, 3, 90_000, "failed"); // not completed
    await seed({ goal: "Summarise a" }, 4, 1000);
    await seed({ goal: "Summarise b" }, 8, 3000);

    const demo = await api.task.estimateLaunch({ profile, demo: { kind: "license-audit", limit: 1000 } });
    expect(demo).toMatchObject({ basis: "history", method: "per-unit", samples: 2, limits: { min: 10, max: 20 }, stepsP50: 3000 });
    expect(demo.costP50Usd).toBeCloseTo(1.5, 6);
    expect(demo.note).toContain("From 2 completed license-audit tasks of profile");
    expect(demo.note).toContain("(10–20 packages each), scaled per package");

    const goal = await api.task.estimateLaunch({ profile });
    expect(goal).toMatchObject({ basis: "history", method: "goal", samples: 2, stepsP50: 6, limits: null });
    expect(goal.costP50Usd).toBeCloseTo(0.02, 6);

    // Another demo kind, or another profile, has no history of its own.
    expect((await api.task.estimateLaunch({ profile, demo: { kind: "mcp-audit", limit: 3 } })).basis).toBe("none");
    expect((await api.task.estimateLaunch({ profile: `est-other-${suffix}` })).basis).toBe("none");
  });

  it("refuses a limit that is not a whole number, naming the field", async () => {
    await expect(api.task.estimateLaunch({ profile, demo: { kind: "license-audit", limit: 1.5 } })).rejects.toThrow(/demo\.limit: a whole number/);
  });
});
