import { ulid } from "ulid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffCheckpoints, getResumePreview, listCheckpoints } from "../../server/db/checkpoint-queries.ts";
import { startSegment, saveCheckpoint } from "../../server/db/checkpoint-repository.ts";
import { createPrismaClient, type Prisma } from "../../server/db/client.ts";
import { listCommittedEffects } from "../../server/db/effect-queries.ts";
import { getEscalationCardOrThrow } from "../../server/db/escalation-queries.ts";
import { readExecutorSnapshot } from "../../server/db/executor-view-queries.ts";
import { prismaForkPorts } from "../../server/db/fork-ports.ts";
import { JsonColumnError } from "../../server/db/json-columns.ts";
import { startRun } from "../../server/db/run-repository.ts";
import { getModelPromptOrThrow } from "../../server/db/task-queries.ts";
import { evalCaseFromTemplate, listTemplates } from "../../server/db/template-repository.ts";
import { replayWorkingSet } from "../../server/db/working-set-queries.ts";
import { runsForEvent } from "../../server/executor/read-api.ts";
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

/**
 * A step of `on`'s run: `stepId` of `kind` at `index`, completed unless `fields` say otherwise
 * (its status, error, arguments, output).
 */
async function addStep(
  on: { runId: string },
  index: number,
  stepId: string,
  kind: string,
  fields: Partial<Prisma.StepUncheckedCreateInput> = {},
): Promise<{ id: string }> {
  return prisma.step.create({ data: { runId: on.runId, index, stepId, kind, status: "completed", ...fields }, select: { id: true } });
}

/** What a read of `column` in row `row` rejects with when the stored value has another shape. */
const columnError = (column: string, row: string) => ({ name: "JsonColumnError", column, row });

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

/** An escalation (stall at step model-1) of `on`'s run, taken at checkpoint `checkpointId`; `decided` adds its decision's columns. */
async function escalation(
  on: { taskId: string; runId: string },
  checkpointId: string,
  decided: Partial<Prisma.EscalationUncheckedCreateInput> = {},
): Promise<string> {
  const id = `esc_json_${ulid().toLowerCase()}`;
  await prisma.escalation.create({
    data: { id, taskId: on.taskId, runId: on.runId, stepId: "model-1", reason: "stall", message: "m", checkpointId, dueAt: new Date(), ...decided },
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
    expect(error).toMatchObject(columnError("Checkpoint.workingSet", from));
  });

  it("a resume preview from a checkpoint whose effects lack their keys names column and row", async () => {
    const t = await freshTask();
    const id = await checkpoint("model-1", t);
    await prisma.$executeRaw`UPDATE checkpoint SET "sideEffects" = '[{"tool": "send_email", "stepId": "tool-1-0", "idempotencyKey": 5}]'::jsonb WHERE id = ${id}`;
    const error = await rejection(getResumePreview({ prisma, taskId: t.taskId, checkpointId: id }));
    expect(error).toMatchObject(columnError("Checkpoint.sideEffects", id));
    expect((error as Error).message).toMatch(/\[0\]\.idempotencyKey: /);
  });

  it("input facts that are not an object are refused by name on the run's start, the replay and read_reference", async () => {
    const t = await freshTask();
    await prisma.$executeRaw`UPDATE task SET input = '{"facts": "note=x"}'::jsonb WHERE id = ${t.taskId}`;
    const expected = columnError("Task.input", t.taskId);
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
    const escalationId = await escalation(t, cp);
    const undo = await addStep(t, 9, "undo-model-1-1", "human", { arguments: { undone: "approve" }, output: {} });
    // Written before the undo step recorded who decided and who undid: read as unknown, not refused.
    expect((await getEscalationCardOrThrow({ prisma, escalationId })).undos).toEqual([{ decision: "approve", decidedBy: null, undoneBy: "", undoneAt: null }]);
    await prisma.$executeRaw`UPDATE step SET arguments = '{"undone": 5}'::jsonb WHERE id = ${undo.id}`;
    expect(await rejection(getEscalationCardOrThrow({ prisma, escalationId }))).toMatchObject(columnError("Step.arguments", undo.id));
    await prisma.$executeRaw`UPDATE checkpoint SET "workingSet" = '"x"'::jsonb WHERE id = ${cp}`;
    expect(await rejection(getEscalationCardOrThrow({ prisma, escalationId }))).toMatchObject(columnError("Checkpoint.workingSet", cp));
  });

  it("a run replayed from an escalation's checkpoint names fact edits that are not an object", async () => {
    const t = await freshTask();
    const cp = await checkpoint("model-1", t);
    const resultRunId = `run_json_${ulid().toLowerCase()}`;
    await prisma.run.create({ data: { id: resultRunId, taskId: t.taskId, cause: "resume", status: "running", fromCheckpointId: cp } });
    const escalationId = await escalation(t, cp, { status: "applied", resultRunId, fromCheckpointForResult: cp });
    await prisma.$executeRaw`UPDATE escalation SET "factEdits" = '["note"]'::jsonb WHERE id = ${escalationId}`;
    expect(await rejection(replayWorkingSet({ prisma, taskId: t.taskId }))).toMatchObject(columnError("Escalation.factEdits", escalationId));
  });

  it("read_reference names a checkpoint working set that is not an object", async () => {
    const t = await freshTask();
    const cp = await checkpoint("model-1", t);
    await prisma.$executeRaw`UPDATE checkpoint SET "workingSet" = '[1, 2]'::jsonb WHERE id = ${cp}`;
    const ctx = { prisma, taskId: t.taskId, runId: t.runId, stepId: "tool-1-0", workspace: "/tmp" };
    const read = readReferenceTool.execute({ ref: `checkpoint ${cp}, workingSet."note"`, offset: 0, limit: 100 }, ctx);
    expect(await rejection(Promise.resolve(read))).toMatchObject(columnError("Checkpoint.workingSet", cp));
  });

  it("a start from a compacted checkpoint names compaction sizes of another type", async () => {
    const t = await freshTask();
    const sizes = { limitTokens: 100, afterTokens: 50, providerLimitTokens: "lots" };
    const step = await addStep(t, 1, "compact-1", "checkpoint", { output: { checkpointId: null, sizes, referenced: [] } });
    const cp = await checkpoint("compact-1", t);
    expect(await rejection(startSegment({ prisma, taskId: t.taskId, runId: t.runId, checkpointId: cp }))).toMatchObject(columnError("Step.output", step.id));
    expect((await rejection(startSegment({ prisma, taskId: t.taskId, runId: t.runId, checkpointId: cp }))) as Error).toHaveProperty(
      "message",
      expect.stringMatching(/sizes\.providerLimitTokens: /),
    );
  });

  it("a committed effect whose recorded result is not an object is named by its key", async () => {
    const t = await freshTask();
    const key = `${t.taskId}:${t.runId}:tool-1-0`;
    await prisma.sideEffect.create({
      data: { idempotencyKey: key, fingerprint: "f", taskId: t.taskId, runId: t.runId, stepId: "tool-1-0", tool: "send_email", arguments: { to: "a@b.c" } },
    });
    await prisma.$executeRaw`UPDATE side_effect SET status = 'committed', "committedAt" = now(), result = '"sent"'::jsonb WHERE "idempotencyKey" = ${key}`;
    expect(await rejection(listCommittedEffects({ prisma, taskId: t.taskId }))).toMatchObject(columnError("SideEffect.result", key));
  });

  it("a model prompt rebuilt over a turn whose tool calls are not a list, or a failed tool step whose output is not an object, names the step", async () => {
    const t = await freshTask();
    const turn = await addStep(t, 0, "model-0", "model", { output: { content: null, toolCalls: [{ id: "c1", name: "record_fact", arguments: "{}" }] } });
    const failed = { status: "failed", error: "[invalid_arguments] key", output: { error: { code: "invalid_arguments" } } };
    const tool = await addStep(t, 1, "tool-0-0", "tool", failed);
    await addStep(t, 2, "model-1", "model", { status: "running" });
    const prompt = async () => getModelPromptOrThrow({ prisma, runId: t.runId, stepId: "model-1" });
    expect((await prompt()).messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: "c1", content: expect.stringContaining("invalid_arguments") });
    await prisma.$executeRaw`UPDATE step SET output = '"boom"'::jsonb WHERE id = ${tool.id}`;
    expect(await rejection(prompt())).toMatchObject(columnError("Step.output", tool.id));
    await prisma.$executeRaw`UPDATE step SET output = '{"content": null, "toolCalls": "record_fact"}'::jsonb WHERE id = ${turn.id}`;
    expect(await rejection(prompt())).toMatchObject(columnError("Step.output", turn.id));
  });

  it("a template's launch reads through its codec: an old row gets the default profile, one of another shape is named", async () => {
    const id = `tmpl_json_${ulid().toLowerCase()}`;
    const name = `json-${ulid().toLowerCase()}`;
    // Written without the profile (the launch schema's default): read as the schema gives it.
    await prisma.launchTemplate.create({ data: { id, name, launch: { goal: "audit" }, createdBy: "t" } });
    expect((await listTemplates({ prisma })).find((r) => r.id === id)?.launch).toEqual({ goal: "audit", profile: "scripted" });
    await prisma.$executeRaw`UPDATE launch_template SET launch = '{"goal": 5}'::jsonb WHERE id = ${id}`;
    const expected = columnError("LaunchTemplate.launch", id);
    expect(await rejection(evalCaseFromTemplate({ prisma, template: name }))).toMatchObject(expected);
    expect(await rejection(listTemplates({ prisma }))).toMatchObject(expected);
    await prisma.launchTemplate.delete({ where: { id } });
  });

  it("the executor view still shows a queue item whose payload is not an object, without its hashed id", async () => {
    const t = await freshTask();
    const executorRunId = ulid();
    await prisma.executorRun.create({
      data: {
        id: executorRunId,
        functionId: "f",
        status: "running",
        event: { name: "longhaul/run.started", data: { runId: t.runId } },
        events: [],
        maxAttempts: 1,
      },
    });
    const item = await prisma.executorQueueItem.create({
      data: { jobId: `${executorRunId}-step`, runId: executorRunId, kind: "step", payload: { hashedId: "h1" } },
    });
    expect((await readExecutorSnapshot({ prisma, runId: t.runId }))?.items).toMatchObject([{ hashedId: "h1" }]);
    await prisma.$executeRaw`UPDATE executor_queue_item SET payload = '["h1"]'::jsonb WHERE id = ${item.id}`;
    // A view for finding what is wrong: one bad row must not take the whole page down.
    expect((await readExecutorSnapshot({ prisma, runId: t.runId }))?.items).toMatchObject([{ kind: "step", hashedId: null }]);
    // The request log's ops are the SDK's 206 answer as sent: entries that are no op object are skipped.
    await prisma.executorOp.create({
      data: { runId: executorRunId, kind: "step", status: 206, durationMs: 1, ops: [null, 7, ["x"], { id: "h2", op: "StepError", name: "tool-1" }] },
    });
    expect(await readExecutorSnapshot({ prisma, runId: t.runId })).toMatchObject({ names: { h2: "tool-1" }, failedStep: "tool-1" });
  });

  it("the executor's read API names a stored event that is not an object", async () => {
    const id = ulid();
    await prisma.executorEvent.create({ data: { id, name: "i/go", data: {}, raw: { name: "i/go", data: {}, id, ts: 1 }, ts: 1n } });
    expect(await runsForEvent(prisma, id)).toEqual([]);
    await prisma.$executeRaw`UPDATE executor_event SET raw = '"i/go"'::jsonb WHERE id = ${id}`;
    expect(await rejection(runsForEvent(prisma, id))).toMatchObject(columnError("ExecutorEvent.raw", id));
  });
});
