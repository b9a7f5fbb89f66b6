import { afterAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "../../server/db/client.ts";
import { testDatabaseUrl } from "../support/database.ts";

const prisma = createPrismaClient(testDatabaseUrl());
afterAll(() => prisma.$disconnect());

describe("database", () => {
  it("has every migration applied and enforces (runId, stepId) uniqueness on steps", async () => {
    const rows = await prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL`;
    expect(Number(rows[0]?.n)).toBeGreaterThan(0);
    const profile = await prisma.agentProfile.create({ data: { name: `p-${Date.now()}`, model: "scripted", tools: [] } });
    const task = await prisma.task.create({
      data: { id: `t-${Date.now()}`, goal: "g", profileId: profile.id, stepBudget: 5, workspace: "/tmp" },
    });
    const run = await prisma.run.create({ data: { id: `r-${Date.now()}`, taskId: task.id } });
    await prisma.step.create({ data: { runId: run.id, index: 0, stepId: "model-0", kind: "model" } });
    await expect(prisma.step.create({ data: { runId: run.id, index: 1, stepId: "model-0", kind: "model" } })).rejects.toThrow(/Unique constraint/);
  });
});
