import { ulid } from "ulid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffCheckpoints, getResumePreview, listCheckpoints } from "../../server/db/checkpoint-queries.ts";
import { startSegment, saveCheckpoint } from "../../server/db/checkpoint-repository.ts";
import { createPrismaClient } from "../../server/db/client.ts";
import { getEscalationCardOrThrow } from "../../server/db/escalation-queries.ts";
import { prismaForkPorts } from "../../server/db/fork-ports.ts";
import { JsonColumnError } from "../../server/db/json-columns.ts";
import { startRun } from "../../server/db/run-repository.ts";
import { replayWorkingSet } from "../../server/db/working-set-queries.ts";
import { readReferenceTool } from "../../server/tools/read-reference.ts";
import { testDatabaseUrl } from "../support/database.ts";

// A JSON column read through its codec: a stored value of another shape (written here with raw
// SQL, as a bad migration, a manual fix or an older writer would leave it) is refused on read with
// an error naming the column and the row, instead of surfacing later as a crash on a missing field.

const prisma = createPrismaClient(testDatabaseUrl());
afterAll(() => prisma.$disconnect());

let taskId = "";
let runId = "";
let profileId = "";

beforeAll(async () => {
  const profile = await prisma.agentProfile.create({ data: { name: `json-${ulid().toLowerCase()}`, model: "scripted", tools: [] } });
  profileId = profile.id;
  taskId = `task_json_${ulid().toLowerCase()}`;
  runId = `run_json_${ulid().toLowerCase()}`;
  await prisma.task.create({ data: { id: taskId, goal: "g", profileId: profile.id, stepBudget: 100, workspace: "/tmp", input: { facts: { note: "x" } } } });
  await prisma.run.create({ data: { id: runId, taskId, cause: "initial", status: "running" } });
});

/** A task of its own with one run (for rows a test spoils), launched with input facts. */
async function freshTask(): Promise<{ taskId: string; runId: string }> {
  const t = { taskId: `task_json_${ulid().toLowerCase()}`, runId: `run_json_${ulid().toLowerCase()}` };
  await prisma.task.create({ data: { id: t.taskId, goal: "g", profileId, stepBudget: 100, workspace: "/tmp", input: { facts: { note: "x" } } } });
  await prisma.run.create({ data: { id: t.runId, taskId: t.taskId, cause: "initial", status: "running" } });
  return t;
}

/** The error `promise` rejects with (a test fails if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a JsonColumnError, got ${JSON.stringify(value)}`);
    },
    (e: unknown) => e,
  );
}

/** A checkpoint written the way a run writes one (through the codecs). */
async function checkpoint(afterStepId: string, on: { taskId: string; runId: string } = { taskId, runId }): Promise<string> {
  const { id } = await saveCheckpoint({
    prisma,
    data: {
      taskId: on.taskId,
      runId: on.runId,
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

  it("the checkpoint list reads budgets through the codec: an old row's missing figures read as 0, a bad one is named", async () => {
    const t = await freshTask();
    const old = await checkpoint("model-1", t);
    await prisma.$executeRaw`UPDATE checkpoint SET "budgetsUsed" = '{"steps": 4}'::jsonb WHERE id = ${old}`;
    expect((await listCheckpoints({ prisma, taskId: t.taskId })).map((c) => c.budgetsUsed)).toEqual([{ steps: 4, tokens: 0, costUsd: 0 }]);
    const bad = await checkpoint("model-2", t);
    await prisma.$executeRaw`UPDATE checkpoint SET "budgetsUsed" = '{"steps": "four"}'::jsonb WHERE id = ${bad}`;
    const error = await rejection(listCheckpoints({ prisma, taskId: t.taskId }));
    expect(error).toBeInstanceOf(JsonColumnError);
    expect((error as Error).message).toMatch(new RegExp(`^Checkpoint\\.budgetsUsed of row ${bad}: steps: `));
  });

  it("a checkpoint diff from a working set that is not an object names column and row", async () => {
    const t = await freshTask();
    const from = await checkpoint("model-1", t);
    const to = await checkpoint("model-2", t);
    await prisma.$executeRaw`UPDATE checkpoint SET "workingSet" = '["note"]'::jsonb WHERE id = ${from}`;
    const error = await rejection(diffCheckpoints({ prisma, taskId: t.taskId, fromId: from, toId: to }));
    expect(error).toMatchObject({ name: "JsonColumnError", column: "Checkpoint.workingSet", row: from });
  });

  it("a resume preview from a checkpoint whose effects lack their keys names column and row", async () => {
    const t = await freshTask();
    const id = await checkpoint("model-1", t);
    await prisma.$executeRaw`UPDATE checkpoint SET "sideEffects" = '[{"tool": "send_email", "stepId": "tool-1-0", "idempotencyKey": 5}]'::jsonb WHERE id = ${id}`;
    const error = await rejection(getResumePreview({ prisma, taskId: t.taskId, checkpointId: id }));
    expect(error).toMatchObject({ name: "JsonColumnError", column: "Checkpoint.sideEffects", row: id });
    expect((error as Error).message).toMatch(/\[0\]\.idempotencyKey: /);
  });

  it("input facts that are not an object are refused by name on the run's start, the replay and read_reference", async () => {
    const t = await freshTask();
    await prisma.$executeRaw`UPDATE task SET input = '{"facts": "note=x"}'::jsonb WHERE id = ${t.taskId}`;
    const expected = { name: "JsonColumnError", column: "Task.input", row: t.taskId };
    expect(await rejection(startRun({ prisma, taskId: t.taskId, runId: t.runId }))).toMatchObject(expected);
    expect(await rejection(replayWorkingSet({ prisma, taskId: t.taskId }))).toMatchObject(expected);
    const ctx = { prisma, taskId: t.taskId, runId: t.runId, stepId: "tool-1-0", workspace: "/tmp" };
    const read = readReferenceTool.execute({ ref: `task ${t.taskId}, input.facts."note"`, offset: 0, limit: 100 }, ctx);
    expect(await rejection(Promise.resolve(read))).toMatchObject(expected);
    expect((await rejection(diffCheckpoints({ prisma, taskId: t.taskId, fromId: null, toId: await checkpoint("model-1", t) }))) as Error).toMatchObject(
      expected,
    );
    // A task launched before facts were recorded (no `facts` key) starts from none.
    await prisma.$executeRaw`UPDATE task SET input = '{}'::jsonb WHERE id = ${t.taskId}`;
    expect((await startRun({ prisma, taskId: t.taskId, runId: t.runId })).workingSet).toEqual({});
  });

  it("the escalation card names a bad checkpoint working set and a bad undo step; an old undo step reads with defaults", async () => {
    const t = await freshTask();
    const cp = await checkpoint("model-1", t);
    const escalationId = `esc_json_${ulid().toLowerCase()}`;
    await prisma.escalation.create({
      data: { id: escalationId, taskId: t.taskId, runId: t.runId, stepId: "model-1", reason: "stall", message: "m", checkpointId: cp, dueAt: new Date() },
    });
    const undo = await prisma.step.create({
      data: { runId: t.runId, index: 9, stepId: "undo-model-1-1", kind: "human", status: "completed", arguments: { undone: "approve" }, output: {} },
    });
    // Written before the undo step recorded who decided and who undid: read as unknown, not refused.
    expect((await getEscalationCardOrThrow({ prisma, escalationId })).undos).toEqual([{ decision: "approve", decidedBy: null, undoneBy: "", undoneAt: null }]);
    await prisma.$executeRaw`UPDATE step SET arguments = '{"undone": 5}'::jsonb WHERE id = ${undo.id}`;
    expect(await rejection(getEscalationCardOrThrow({ prisma, escalationId }))).toMatchObject({
      name: "JsonColumnError",
      column: "Step.arguments",
      row: undo.id,
    });
    await prisma.$executeRaw`UPDATE checkpoint SET "workingSet" = '"x"'::jsonb WHERE id = ${cp}`;
    expect(await rejection(getEscalationCardOrThrow({ prisma, escalationId }))).toMatchObject({
      name: "JsonColumnError",
      column: "Checkpoint.workingSet",
      row: cp,
    });
  });

  it("a run replayed from an escalation's checkpoint names fact edits that are not an object", async () => {
    const t = await freshTask();
    const cp = await checkpoint("model-1", t);
    const resultRunId = `run_json_${ulid().toLowerCase()}`;
    await prisma.run.create({ data: { id: resultRunId, taskId: t.taskId, cause: "resume", status: "running", fromCheckpointId: cp } });
    const escalationId = `esc_json_${ulid().toLowerCase()}`;
    await prisma.escalation.create({
      data: {
        id: escalationId,
        taskId: t.taskId,
        runId: t.runId,
        stepId: "model-1",
        reason: "stall",
        message: "m",
        checkpointId: cp,
        dueAt: new Date(),
        status: "applied",
        resultRunId,
        fromCheckpointForResult: cp,
      },
    });
    await prisma.$executeRaw`UPDATE escalation SET "factEdits" = '["note"]'::jsonb WHERE id = ${escalationId}`;
    expect(await rejection(replayWorkingSet({ prisma, taskId: t.taskId }))).toMatchObject({
      name: "JsonColumnError",
      column: "Escalation.factEdits",
      row: escalationId,
    });
  });

  it("read_reference names a checkpoint working set that is not an object", async () => {
    const t = await freshTask();
    const cp = await checkpoint("model-1", t);
    await prisma.$executeRaw`UPDATE checkpoint SET "workingSet" = '[1, 2]'::jsonb WHERE id = ${cp}`;
    const ctx = { prisma, taskId: t.taskId, runId: t.runId, stepId: "tool-1-0", workspace: "/tmp" };
    const read = readReferenceTool.execute({ ref: `checkpoint ${cp}, workingSet."note"`, offset: 0, limit: 100 }, ctx);
    expect(await rejection(Promise.resolve(read))).toMatchObject({ name: "JsonColumnError", column: "Checkpoint.workingSet", row: cp });
  });
});
