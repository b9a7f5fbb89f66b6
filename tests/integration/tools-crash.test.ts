import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "../../server/db/client.ts";
import { testDatabaseUrl } from "../support/database.ts";

const url = testDatabaseUrl();
const prisma = createPrismaClient(url);
afterAll(() => prisma.$disconnect());

const child = path.join(import.meta.dirname, "tools-crash-child.ts");
const tsx = path.join(process.cwd(), "node_modules", ".bin", "tsx");

function runChild(args: string[], crashAt?: string) {
  const env = { ...process.env };
  delete env.LONGHAUL_CRASH_AT;
  if (crashAt) env.LONGHAUL_CRASH_AT = crashAt;
  return spawnSync(tsx, [child, url, ...args], { env, encoding: "utf8", timeout: 60_000 });
}

describe("crash right after the side effect commits (tool:after-side-effect)", () => {
  it("the re-executed step finds the effect in the ledger: same messageId, one outbox row", async () => {
    const profile = await prisma.agentProfile.create({ data: { name: `tools-crash-${randomUUID()}`, model: "scripted", tools: [] } });
    const taskId = `t-${randomUUID()}`;
    const runId = `r-${randomUUID()}`;
    await prisma.task.create({ data: { id: taskId, goal: "crash test", profileId: profile.id, stepBudget: 5, workspace: "/tmp" } });
    await prisma.run.create({ data: { id: runId, taskId } });
    const args = [taskId, runId, "tool-4-0", JSON.stringify({ to: "compliance@example.com", subject: "Audit", body: "done" })];

    const crashed = runChild(args, "tool:after-side-effect");
    expect(crashed.status, crashed.stderr).toBe(137);
    expect(crashed.stdout).toBe("");
    expect(crashed.stderr).toContain("crash at tool:after-side-effect");
    const outbox = await prisma.outboxMessage.findMany({ where: { taskId } });
    expect(outbox).toHaveLength(1);

    const retried = runChild(args);
    expect(retried.status, retried.stderr).toBe(0);
    expect(JSON.parse(retried.stdout)).toEqual({ ok: true, output: { messageId: outbox[0]!.messageId, deduplicated: false } });
    expect(await prisma.outboxMessage.count({ where: { taskId } })).toBe(1);
    expect(await prisma.sideEffect.findFirstOrThrow({ where: { taskId } })).toMatchObject({ status: "committed", repeats: 1 });
  });
});
