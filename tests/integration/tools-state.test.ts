import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "../../server/db/client.ts";
import { executeToolCall, type ToolContext } from "../../server/tools/registry.ts";
import { testDatabaseUrl } from "../support/database.ts";

const prisma = createPrismaClient(testDatabaseUrl());
let profileId: string;

beforeAll(async () => {
  profileId = (await prisma.agentProfile.create({ data: { name: `tools-state-${randomUUID()}`, model: "scripted", tools: [] } })).id;
});
afterAll(() => prisma.$disconnect());

async function newRun(taskId?: string) {
  const id = taskId ?? `t-${randomUUID()}`;
  if (!taskId) await prisma.task.create({ data: { id, goal: "test", profileId, stepBudget: 50, workspace: "/tmp" } });
  const runId = `r-${randomUUID()}`;
  await prisma.run.create({ data: { id: runId, taskId: id } });
  return { taskId: id, runId, step: (stepId: string): ToolContext => ({ prisma, taskId: id, runId, stepId, workspace: "/tmp" }) };
}

async function ok(name: string, args: unknown, ctx: ToolContext): Promise<unknown> {
  const r = await executeToolCall({ name, rawArguments: JSON.stringify(args), ctx });
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.output;
}

describe("record_fact", () => {
  it("a re-executed step upserts its fact instead of duplicating it, and returns the same previous value", async () => {
    const { taskId, step } = await newRun();
    expect(await ok("record_fact", { key: "package:a", value: { version: "1.0.0" } }, step("tool-1-0"))).toEqual({
      key: "package:a",
      recorded: true,
      previous: null,
    });
    expect(await ok("record_fact", { key: "package:a", value: { version: "1.0.0" } }, step("tool-1-0"))).toEqual({
      key: "package:a",
      recorded: true,
      previous: null,
    });
    expect(await prisma.fact.count({ where: { taskId } })).toBe(1);

    const second = { key: "package:a", value: { version: "2.0.0" } };
    expect(await ok("record_fact", second, step("tool-2-0"))).toEqual({ key: "package:a", recorded: true, previous: { version: "1.0.0" } });
    expect(await ok("record_fact", second, step("tool-2-0"))).toEqual({ key: "package:a", recorded: true, previous: { version: "1.0.0" } });
    const facts = await prisma.fact.findMany({ where: { taskId }, orderBy: { createdAt: "asc" } });
    expect(facts.map((f) => [f.sourceStepId, f.value, f.superseded])).toEqual([
      ["tool-1-0", { version: "1.0.0" }, true],
      ["tool-2-0", { version: "2.0.0" }, false],
    ]);
  });

  it("concurrent writers of one key leave exactly one current fact", async () => {
    const { taskId, step } = await newRun();
    await Promise.all(Array.from({ length: 6 }, (_, i) => ok("record_fact", { key: "k", value: i }, step(`tool-${i}-0`))));
    expect(await prisma.fact.count({ where: { taskId } })).toBe(6);
    expect(await prisma.fact.count({ where: { taskId, superseded: false } })).toBe(1);
  });

  it("supersedes facts of earlier runs of the same task, and stores JSON null and scalars", async () => {
    const first = await newRun();
    await ok("record_fact", { key: "count", value: 3 }, first.step("tool-1-0"));
    const second = await newRun(first.taskId);
    expect(await ok("record_fact", { key: "count", value: null }, second.step("tool-1-0"))).toEqual({ key: "count", recorded: true, previous: 3 });
    const current = await prisma.fact.findMany({ where: { taskId: first.taskId, superseded: false } });
    expect(current).toHaveLength(1);
    expect(current[0]).toMatchObject({ runId: second.runId, value: null });
  });
});

describe("write_artifact", () => {
  it("upserts by (run, step, name): a re-executed step overwrites its own row", async () => {
    const { taskId, step } = await newRun();
    const csv = "name,version,license,copyleft\né,1.0.0,MIT,false\n";
    expect(await ok("write_artifact", { name: "licenses.csv", mime: "text/csv", content: csv }, step("tool-4-0"))).toEqual({
      name: "licenses.csv",
      mime: "text/csv",
      bytes: Buffer.byteLength(csv),
    });
    await ok("write_artifact", { name: "licenses.csv", mime: "text/csv", content: csv + "b,2,ISC,false\n" }, step("tool-4-0"));
    const rows = await prisma.artifact.findMany({ where: { taskId } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ name: "licenses.csv", mime: "text/csv", content: csv + "b,2,ISC,false\n", bytes: Buffer.byteLength(csv) + 14 });
    // A later step writing the same name is a new version, not an overwrite of the earlier step's row.
    await ok("write_artifact", { name: "licenses.csv", mime: "text/csv", content: csv }, step("tool-9-0"));
    expect(await prisma.artifact.count({ where: { taskId } })).toBe(2);
  });
});
