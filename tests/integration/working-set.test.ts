import { ulid } from "ulid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "../../server/api/root.ts";
import { createPrismaClient, type Prisma } from "../../server/db/client.ts";
import { SCENARIO_GOAL } from "../../server/db/seed.ts";
import {
  listCurrentWorkingSet,
  listStepWorkingSetChanges,
  listWorkingSetHistory,
  summariseWorkingSet,
  type WorkingSetChange,
} from "../../server/db/working-set-queries.ts";
import type { AgentStack } from "../support/agent-stack.ts";
import { useAgentStack } from "../support/fixtures.ts";
import { testDatabaseUrl } from "../support/database.ts";

// The step-by-step working-set history of a task over three runs, written straight into the tables
// the agent-run function and the escalation handler write (fact, step, checkpoint, escalation, run):
//   run 1 (initial): input fact `note`; a=1, b={x:1}, a=2 (changed), c, b={x:1} again (no change);
//                    escalates at model-2 with checkpoint cp2; the handler edits b and adds d
//                    (a "human_edit" checkpoint cp3 taken after the human step human-model-2);
//   run 2 (resume from cp3): e=5;
//   run 3 (fork from cp1, taken before c was recorded): c, d, e are dropped and b set back; a=3, a=4.

const prisma = createPrismaClient(testDatabaseUrl());
afterAll(() => prisma.$disconnect());

const t0 = Date.parse("2026-01-01T10:00:00.000Z");
const at = (seconds: number) => new Date(t0 + seconds * 1000);

let taskId = "";
const run1 = `run_ws1_${ulid().toLowerCase()}`;
const run2 = `run_ws2_${ulid().toLowerCase()}`;
const run3 = `run_ws3_${ulid().toLowerCase()}`;

async function step(runId: string, stepId: string, index: number, seconds: number, kind = stepId.split("-")[0]!) {
  await prisma.step.create({ data: { runId, stepId, index, kind, tool: kind === "tool" ? "record_fact" : null, status: "completed", startedAt: at(seconds) } });
}
async function fact(runId: string, stepId: string, index: number, seconds: number, key: string, value: Prisma.InputJsonValue) {
  await step(runId, stepId, index, seconds);
  await prisma.fact.create({ data: { taskId, runId, sourceStepId: stepId, key, value, createdAt: at(seconds) } });
}
async function checkpoint(id: string, runId: string, seq: number, reason: string, afterStepId: string, seconds: number, workingSet: Prisma.InputJsonValue) {
  await prisma.checkpoint.create({
    data: {
      id,
      taskId,
      runId,
      seq,
      reason,
      afterStepId,
      nextTurn: 0,
      nextIndex: 0,
      goal: "g",
      workingSet,
      completedSteps: [],
      budgetsUsed: { steps: 0, tokens: 0, costUsd: 0 },
      sideEffects: [],
      createdAt: at(seconds),
    },
  });
}

beforeAll(async () => {
  const profile = await prisma.agentProfile.create({ data: { name: `ws-${ulid().toLowerCase()}`, model: "scripted", tools: [] } });
  taskId = `task_ws_${ulid().toLowerCase()}`;
  await prisma.task.create({
    data: { id: taskId, goal: "g", profileId: profile.id, stepBudget: 100, workspace: "/tmp", input: { facts: { note: "x" } }, createdAt: at(0) },
  });

  // Run 1.
  await prisma.run.create({ data: { id: run1, taskId, cause: "initial", status: "escalated", startedAt: at(1) } });
  await step(run1, "model-0", 0, 2);
  await fact(run1, "tool-0-0", 1, 3, "a", 1);
  await fact(run1, "tool-0-1", 2, 4, "b", { x: 1 });
  await step(run1, "model-1", 3, 5);
  await fact(run1, "tool-1-0", 4, 6, "a", 2);
  await checkpoint(`cp_ws1_${taskId}`, run1, 1, "interval", "tool-1-0", 6.5, { note: "x", a: 2, b: { x: 1 } });
  await fact(run1, "tool-1-1", 5, 7, "c", "c");
  await fact(run1, "tool-1-2", 6, 7, "b", { x: 1 });
  await step(run1, "model-2", 7, 8);
  await checkpoint(`cp_ws2_${taskId}`, run1, 2, "loop", "model-2", 9, { note: "x", a: 2, b: { x: 1 }, c: "c" });
  // The handler's decision (what applyDecision writes): the escalation, the edited checkpoint, the human step, the resumed run.
  await checkpoint(`cp_ws3_${taskId}`, run1, 3, "human_edit", "human-model-2", 20, { note: "x", a: 2, b: { x: 2 }, c: "c", d: "from human" });
  await prisma.escalation.create({
    data: {
      id: `esc_ws_${taskId}`,
      taskId,
      runId: run1,
      stepId: "model-2",
      reason: "loop",
      message: "loop",
      checkpointId: `cp_ws2_${taskId}`,
      dueAt: at(3600),
      status: "applied",
      decision: "resume",
      decidedBy: "ada",
      decidedAt: at(19),
      factEdits: { b: { x: 2 }, d: "from human" },
      resultRunId: run2,
      fromCheckpointForResult: `cp_ws3_${taskId}`,
    },
  });
  await step(run1, "human-model-2", 8, 20, "human");

  // Run 2: resumed from the edited checkpoint.
  await prisma.run.create({ data: { id: run2, taskId, cause: "resume", status: "failed", fromCheckpointId: `cp_ws3_${taskId}`, startedAt: at(21) } });
  await step(run2, "model-3", 0, 22);
  await fact(run2, "tool-3-0", 1, 23, "e", 5);

  // Run 3: forked from checkpoint 1.
  await prisma.run.create({ data: { id: run3, taskId, cause: "fork", status: "completed", fromCheckpointId: `cp_ws1_${taskId}`, startedAt: at(30) } });
  await step(run3, "model-2", 0, 31);
  // Two steps write `a` in the same millisecond, the later step's row first: the step order decides.
  await fact(run3, "tool-2-1", 2, 32, "a", 4);
  await fact(run3, "tool-2-0", 1, 32, "a", 3);
});

/** The fields that identify a change, for exact comparison. */
const brief = (c: WorkingSetChange) => ({
  runId: c.runId,
  stepId: c.stepId,
  stepIndex: c.stepIndex,
  key: c.key,
  kind: c.kind,
  before: c.before,
  after: c.after,
  cause: c.cause,
});

describe("working-set history", () => {
  it("lists every change across runs in order, blamed on the step (or run start) that caused it", async () => {
    const page = await listWorkingSetHistory({ prisma, taskId, limit: 100 });
    expect(page.changes.map(brief)).toEqual([
      { runId: run1, stepId: null, stepIndex: -1, key: "note", kind: "added", before: undefined, after: "x", cause: "input" },
      { runId: run1, stepId: "tool-0-0", stepIndex: 1, key: "a", kind: "added", before: undefined, after: 1, cause: "record_fact" },
      { runId: run1, stepId: "tool-0-1", stepIndex: 2, key: "b", kind: "added", before: undefined, after: { x: 1 }, cause: "record_fact" },
      { runId: run1, stepId: "tool-1-0", stepIndex: 4, key: "a", kind: "changed", before: 1, after: 2, cause: "record_fact" },
      { runId: run1, stepId: "tool-1-1", stepIndex: 5, key: "c", kind: "added", before: undefined, after: "c", cause: "record_fact" },
      // tool-1-2 recorded b with its current value: no change.
      { runId: run1, stepId: "human-model-2", stepIndex: 8, key: "b", kind: "changed", before: { x: 1 }, after: { x: 2 }, cause: "human_edit" },
      { runId: run1, stepId: "human-model-2", stepIndex: 8, key: "d", kind: "added", before: undefined, after: "from human", cause: "human_edit" },
      { runId: run2, stepId: "tool-3-0", stepIndex: 1, key: "e", kind: "added", before: undefined, after: 5, cause: "record_fact" },
      { runId: run3, stepId: null, stepIndex: -1, key: "b", kind: "changed", before: { x: 2 }, after: { x: 1 }, cause: "run_start" },
      { runId: run3, stepId: null, stepIndex: -1, key: "c", kind: "removed", before: "c", after: undefined, cause: "run_start" },
      { runId: run3, stepId: null, stepIndex: -1, key: "d", kind: "removed", before: "from human", after: undefined, cause: "run_start" },
      { runId: run3, stepId: null, stepIndex: -1, key: "e", kind: "removed", before: 5, after: undefined, cause: "run_start" },
      { runId: run3, stepId: "tool-2-0", stepIndex: 1, key: "a", kind: "changed", before: 2, after: 3, cause: "record_fact" },
      { runId: run3, stepId: "tool-2-1", stepIndex: 2, key: "a", kind: "changed", before: 3, after: 4, cause: "record_fact" },
    ]);
    expect(page.total).toBe(14);
    expect(page.nextCursor).toBeNull();
    expect(page.runs.map((r) => [r.id, r.ordinal, r.cause])).toEqual([
      [run1, 1, "initial"],
      [run2, 2, "resume"],
      [run3, 3, "fork"],
    ]);
    // Removed facts carry no `after`, added ones no `before` (a null value would be a value).
    const removed = page.changes.find((c) => c.kind === "removed")!;
    expect("after" in removed).toBe(false);
    expect(page.changes.find((c) => c.key === "e" && c.kind === "removed")?.checkpointId).toBe(`cp_ws1_${taskId}`);
    expect(page.changes.find((c) => c.cause === "human_edit")?.at).toEqual(at(19));
  });

  it("pages by (run, step index, key) without losing or repeating a change, and filters by key prefix", async () => {
    const all = (await listWorkingSetHistory({ prisma, taskId, limit: 100 })).changes;
    const walked: WorkingSetChange[] = [];
    let cursor = null;
    let pages = 0;
    do {
      const page: Awaited<ReturnType<typeof listWorkingSetHistory>> = await listWorkingSetHistory({ prisma, taskId, cursor, limit: 3 });
      expect(page.changes.length).toBeLessThanOrEqual(3);
      walked.push(...page.changes);
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor && pages < 20);
    expect(pages).toBe(5);
    expect(walked.map(brief)).toEqual(all.map(brief));

    const onlyA = await listWorkingSetHistory({ prisma, taskId, keyPrefix: "a", limit: 100 });
    expect(onlyA.changes.map((c) => [c.runId, c.stepId, c.before, c.after])).toEqual([
      [run1, "tool-0-0", undefined, 1],
      [run1, "tool-1-0", 1, 2],
      [run3, "tool-2-0", 2, 3],
      [run3, "tool-2-1", 3, 4],
    ]);
    expect(onlyA.total).toBe(4);
  });

  it("gives one step's changes, per-step counts and the current working set with its blame", async () => {
    const human = await listStepWorkingSetChanges({ prisma, taskId, runId: run1, stepId: "human-model-2" });
    expect(human.map((c) => [c.key, c.kind])).toEqual([
      ["b", "changed"],
      ["d", "added"],
    ]);
    expect(await listStepWorkingSetChanges({ prisma, taskId, runId: run1, stepId: "model-1" })).toEqual([]);

    const summary = await summariseWorkingSet({ prisma, taskId });
    expect(summary.totalChanges).toBe(14);
    expect(summary.currentSize).toBe(3);
    expect(summary.steps).toContainEqual({ runId: run3, stepId: null, added: 0, changed: 1, removed: 3 });
    expect(summary.steps).toContainEqual({ runId: run1, stepId: "human-model-2", added: 1, changed: 1, removed: 0 });
    expect(summary.steps.find((s) => s.stepId === "tool-1-2")).toBeUndefined();

    const current = await listCurrentWorkingSet({ prisma, taskId, limit: 2 });
    expect(current.total).toBe(3);
    expect(current.facts.map((f) => [f.key, f.value, f.change.runId, f.change.stepId])).toEqual([
      ["a", 4, run3, "tool-2-1"],
      ["b", { x: 1 }, run3, null],
    ]);
    expect(current.nextCursor).toBe("b");
    const rest = await listCurrentWorkingSet({ prisma, taskId, cursor: "b", limit: 2 });
    expect(rest.facts.map((f) => [f.key, f.value, f.change.cause])).toEqual([["note", "x", "input"]]);
    expect(rest.nextCursor).toBeNull();
  });

  it("validates input at the tRPC boundary with messages naming the field and the limit", async () => {
    const caller = createCaller({ prisma, actor: "test", principal: { userId: null, name: "test", email: null, roles: ["manager"], via: "token" } });
    await expect(caller.workingSet.history({ taskId, limit: 501 })).rejects.toThrow(/limit: at most 500/);
    await expect(caller.workingSet.history({ taskId, keyPrefix: "k".repeat(201) })).rejects.toThrow(/keyPrefix: at most 200 characters/);
    await expect(caller.workingSet.history({ taskId, cursor: { runId: "run_elsewhere", stepIndex: 0, key: "a" } })).rejects.toThrow(
      /cursor.runId: run run_elsewhere is not a run of task/,
    );
    await expect(caller.workingSet.summary({ taskId: "task_missing" })).rejects.toThrow(/task task_missing not found/);
    const page = await caller.workingSet.history({ taskId, keyPrefix: "e" });
    expect(page.changes.map((c) => [c.runId, c.kind])).toEqual([
      [run2, "added"],
      [run3, "removed"],
    ]);
  });
});

describe("working-set history of a real escalation with edited facts", () => {
  let stack: AgentStack;
  useAgentStack((started) => (stack = started));

  it("blames the handler's edits on the human step and the resumed run's facts on its record_fact steps", async () => {
    // scripted-loop repeats one call until the loop detector escalates; resumed with guidance it reads the README and finishes.
    const { taskId, runId } = await stack.launch({
      input: { goal: SCENARIO_GOAL, profile: "scripted-loop", facts: { "launch:note": "from the form" } },
      actor: "working-set-test",
    });
    expect(await stack.waitForTaskStatus(taskId, ["waiting_for_human", "completed", "failed", "dead_end"])).toBe("waiting_for_human");
    const esc = await stack.waitForOpenEscalation(taskId);
    await stack.decide({
      input: {
        escalationId: esc.id,
        decision: "resume",
        guidance: "Stop listing the folder: read the README and finish.",
        factEdits: { "launch:note": "edited by the handler", "handler:hint": { read: "README.md" } },
      },
      actor: "handler-ws",
    });
    expect(await stack.waitForTaskStatus(taskId, ["completed", "failed", "dead_end"], 60_000)).toBe("completed");
    const runs = await stack.db.run.findMany({ where: { taskId }, orderBy: { startedAt: "asc" } });
    expect(runs.map((r) => r.cause)).toEqual(["initial", "resume"]);
    const resumed = runs[1]!;
    const factRows = await stack.db.fact.findMany({ where: { runId: resumed.id }, orderBy: { createdAt: "asc" } });
    expect(factRows.length).toBeGreaterThan(0);

    const { changes } = await listWorkingSetHistory({ prisma: stack.db, taskId, limit: 500 });
    const humanStepId = `human-${esc.stepId}`;
    const humanIndex = (await stack.db.step.findUniqueOrThrow({ where: { runId_stepId: { runId, stepId: humanStepId } } })).index;
    expect(changes.map(brief)).toEqual([
      { runId, stepId: null, stepIndex: -1, key: "launch:note", kind: "added", before: undefined, after: "from the form", cause: "input" },
      {
        runId,
        stepId: humanStepId,
        stepIndex: humanIndex,
        key: "handler:hint",
        kind: "added",
        before: undefined,
        after: { read: "README.md" },
        cause: "human_edit",
      },
      {
        runId,
        stepId: humanStepId,
        stepIndex: humanIndex,
        key: "launch:note",
        kind: "changed",
        before: "from the form",
        after: "edited by the handler",
        cause: "human_edit",
      },
      // Then what the resumed run recorded, each on its own record_fact step.
      ...(await Promise.all(
        factRows.map(async (f) => ({
          runId: resumed.id,
          stepId: f.sourceStepId,
          stepIndex: (await stack.db.step.findUniqueOrThrow({ where: { runId_stepId: { runId: resumed.id, stepId: f.sourceStepId } } })).index,
          key: f.key,
          kind: "added",
          before: undefined,
          after: f.value,
          cause: "record_fact",
        })),
      )),
    ]);
    const human = await listStepWorkingSetChanges({ prisma: stack.db, taskId, runId, stepId: humanStepId });
    expect(human.map((c) => c.key)).toEqual(["handler:hint", "launch:note"]);
    const current = await listCurrentWorkingSet({ prisma: stack.db, taskId, limit: 100 });
    expect(current.facts.find((f) => f.key === "launch:note")).toMatchObject({ value: "edited by the handler", change: { stepId: humanStepId } });
  });
});
