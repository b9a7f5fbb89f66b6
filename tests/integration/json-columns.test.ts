import { ulid } from "ulid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSegment, saveCheckpoint } from "../../server/db/checkpoint-repository.ts";
import { createPrismaClient } from "../../server/db/client.ts";
import { prismaForkPorts } from "../../server/db/fork-ports.ts";
import { JsonColumnError } from "../../server/db/json-columns.ts";
import { testDatabaseUrl } from "../support/database.ts";

// A JSON column read through its codec: a stored value of another shape (written here with raw
// SQL, as a bad migration, a manual fix or an older writer would leave it) is refused on read with
// an error naming the column and the row, instead of surfacing later as a crash on a missing field.

const prisma = createPrismaClient(testDatabaseUrl());
afterAll(() => prisma.$disconnect());

let taskId = "";
let runId = "";

beforeAll(async () => {
  const profile = await prisma.agentProfile.create({ data: { name: `json-${ulid().toLowerCase()}`, model: "scripted", tools: [] } });
  taskId = `task_json_${ulid().toLowerCase()}`;
  runId = `run_json_${ulid().toLowerCase()}`;
  await prisma.task.create({ data: { id: taskId, goal: "g", profileId: profile.id, stepBudget: 100, workspace: "/tmp", input: { facts: { note: "x" } } } });
  await prisma.run.create({ data: { id: runId, taskId, cause: "initial", status: "running" } });
});

/** A checkpoint written the way a run writes one (through the codecs). */
async function checkpoint(afterStepId: string): Promise<string> {
  const { id } = await saveCheckpoint({
    prisma,
    data: {
      taskId,
      runId,
      reason: "interval",
      afterStepId,
      nextTurn: 1,
      nextIndex: 2,
      goal: "g",
      workingSet: { note: "x", count: 3 },
      completedSteps: [{ stepId: "tool-0-0", tool: "record_fact", summary: "recorded count" }],
      openQuestion: null,
      phase: null,
      summary: "s",
      budgetsUsed: { steps: 2, tokens: 10, costUsd: 0 },
      contextTokens: 5,
      transcriptTokens: 7,
    },
  });
  return id;
}

describe("JSON columns read through their codecs", () => {
  it("a checkpoint written through the codecs reads back as written", async () => {
    const id = await checkpoint("model-1");
    const row = await prisma.checkpoint.findUniqueOrThrow({ where: { id } });
    expect(row.workingSet).toEqual({ note: "x", count: 3 });
    expect(row.completedSteps).toEqual([{ stepId: "tool-0-0", tool: "record_fact", summary: "recorded count" }]);
    expect(row.budgetsUsed).toEqual({ steps: 2, tokens: 10, costUsd: 0 });
    expect(row.sideEffects).toEqual([]);
    const start = await startSegment({ prisma, taskId, runId, checkpointId: id });
    expect(start.workingSet).toMatchObject({ note: "x", count: 3 });
    expect(start.completedSteps).toEqual([{ stepId: "tool-0-0", tool: "record_fact", summary: "recorded count" }]);
  });

  it("a run starting from a checkpoint whose completed steps are of another shape gets an error naming column and row", async () => {
    const id = await checkpoint("model-2");
    await prisma.$executeRaw`UPDATE checkpoint SET "completedSteps" = '[{"stepId": 7}]'::jsonb WHERE id = ${id}`;
    const error = await startSegment({ prisma, taskId, runId, checkpointId: id }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonColumnError);
    expect(error).toMatchObject({ column: "Checkpoint.completedSteps", row: id });
    expect((error as Error).message).toMatch(new RegExp(`^Checkpoint\\.completedSteps of row ${id}: \\[0\\]\\.stepId: .*; \\[0\\]\\.summary: `));
  });

  it("a fork from a checkpoint whose working set is not an object is refused by name, and writes nothing", async () => {
    const id = await checkpoint("model-3");
    await prisma.$executeRaw`UPDATE checkpoint SET "workingSet" = '"not an object"'::jsonb WHERE id = ${id}`;
    const forkTaskId = `task_fork_${ulid().toLowerCase()}`;
    const ports = prismaForkPorts({ prisma, sendRunStarted: async () => {} });
    const error = await ports
      .createForkTask({
        sourceTaskId: taskId,
        sourceCheckpointId: id,
        taskId: forkTaskId,
        runId: `run_fork_${ulid().toLowerCase()}`,
        guidance: null,
        actor: "t",
        reuseEffectKeys: [],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonColumnError);
    expect((error as Error).message).toMatch(new RegExp(`^Checkpoint\\.workingSet of row ${id}: `));
    expect(await prisma.task.count({ where: { id: forkTaskId } })).toBe(0);
  });
});
