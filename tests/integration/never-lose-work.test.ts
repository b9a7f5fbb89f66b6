import { describe, expect, it } from "vitest";
import { prismaCancelPorts } from "../../server/db/cancel-ports.ts";
import { startSegment, type SegmentStart } from "../../server/db/checkpoint-repository.ts";
import { prismaForkPorts } from "../../server/db/fork-ports.ts";
import { getTaskDetailOrThrow } from "../../server/db/task-queries.ts";
import { cancelTask } from "../../server/domain/cancel-task.ts";
import { forkTask } from "../../server/domain/fork-task.ts";
import { resumeTask } from "../../server/domain/resume-task.ts";
import { waitFor, type AgentStack } from "../support/agent-stack.ts";
import { createTestProfile, launchDemoWithProfile, testResumePorts, waitForRunEnd } from "../support/checkpoint-helpers.ts";
import { useAgentStack } from "../support/fixtures.ts";

// Never lose or re-open work by accident, on the real pieces (app process serving the
// Inngest functions, executor process, scripted model, PostgreSQL): a cancel takes a checkpoint of
// the state after the step in flight and Resume redoes none of it; a resume from the latest
// checkpoint keeps the facts recorded after it even when no cancel checkpoint exists; a fork is a
// new task that leaves the original exactly as it was.

let stack: AgentStack;
useAgentStack((started) => (stack = started));

/** Latest value per key of every fact the task's runs recorded (the Fact rows, oldest first). */
async function recordedFacts(taskId: string, runId?: string): Promise<Record<string, unknown>> {
  const rows = await stack.db.fact.findMany({ where: { taskId, ...(runId ? { runId } : {}) }, orderBy: { createdAt: "asc" } });
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

/** Launches the demo and waits until it has a checkpoint and at least `extra` facts recorded after it. */
async function launchPastCheckpoint(label: string, extra: number) {
  const profile = await createTestProfile(stack.db, label, { checkpointEverySteps: 12, autoResumeMax: 0 });
  const { taskId, runId } = await launchDemoWithProfile(stack, { limit: 30, profile });
  const checkpoint = await waitFor(
    `a checkpoint of ${taskId} and ${extra} facts after it`,
    async () => {
      const cp = await stack.db.checkpoint.findFirst({ where: { taskId }, orderBy: { seq: "desc" } });
      if (!cp) return undefined;
      const later = await stack.db.fact.count({ where: { taskId, createdAt: { gt: cp.createdAt } } });
      return later >= extra ? cp : undefined;
    },
    90_000,
    20,
  );
  return { taskId, runId, checkpoint };
}

/** Polls until the task has its `cancelled` checkpoint (taken by the cancel-checkpoint function). */
const waitForCancelCheckpoint = (taskId: string) =>
  waitFor("the cancel checkpoint", () => stack.db.checkpoint.findFirst({ where: { taskId, reason: "cancelled" } }).then((c) => c ?? undefined), 30_000, 50);

const cancelPorts = () =>
  prismaCancelPorts({ prisma: stack.db, sendRunCancelled: (e) => stack.sendEvent("longhaul/run.cancelled", e, `run-cancelled-${e.runId}`) });

/** Resumes with the real domain; returns the new run id and the state its first segment starts from (read before it runs). */
async function resumeCapturing(taskId: string, checkpointId?: string) {
  let start: SegmentStart | undefined;
  const ports = testResumePorts(stack, async ({ taskId: t, runId: r, checkpointId: c }) => {
    start = await startSegment({ prisma: stack.db, taskId: t, runId: r, checkpointId: c });
  });
  const { runId } = await resumeTask({ taskId, ...(checkpointId ? { checkpointId } : {}), cause: "resume", actor: "never-lose-test", ports });
  return { runId, start: start! };
}

describe("cancel, then resume", () => {
  it("a cancel checkpoints the state after the step in flight; Resume starts from it and records none of those facts again", async () => {
    const { taskId, runId, checkpoint: before } = await launchPastCheckpoint("cancel-cp", 4);
    await cancelTask({ taskId, actor: "never-lose-test", ports: cancelPorts() });
    const cancelCp = await waitForCancelCheckpoint(taskId);
    // No step of the cancelled run is still running, and the checkpoint holds every fact it recorded.
    expect(await stack.db.step.count({ where: { runId, status: "running", kind: { in: ["model", "tool"] } } })).toBe(0);
    const established = await recordedFacts(taskId);
    const kept = cancelCp.workingSet as Record<string, unknown>;
    expect(Object.keys(established).length).toBeGreaterThan(Object.keys(before.workingSet as object).length);
    expect(Object.keys(established).filter((k) => !(k in kept))).toEqual([]);
    expect(cancelCp).toMatchObject({ runId, good: true });
    expect(cancelCp.seq).toBeGreaterThan(before.seq);
    // Its completed steps carry the tool calls the run made after its last checkpoint.
    const lastTool = await stack.db.step.findFirstOrThrow({ where: { runId, kind: "tool", status: "completed" }, orderBy: { index: "desc" } });
    expect(JSON.stringify(cancelCp.completedSteps)).toContain(lastTool.stepId);

    const { runId: resumed, start } = await resumeCapturing(taskId);
    expect(start.checkpointId).toBe(cancelCp.id);
    expect(start.workingSet).toEqual(kept);
    expect(start.nextTurn).toBe(cancelCp.nextTurn);
    const run = await waitForRunEnd(stack.db, resumed, 120_000);
    expect(run.status).toBe("completed");
    // Nothing the cancelled run had established was recorded again.
    const again = await stack.db.step.findMany({ where: { runId: resumed, tool: "record_fact" }, select: { arguments: true, stepId: true } });
    expect(again.filter((s) => (s.arguments as { key: string }).key in established).map((s) => s.stepId)).toEqual([]);
  });

  it("a resume from the latest checkpoint keeps the facts recorded after it when there is no cancel checkpoint", async () => {
    const { taskId, runId, checkpoint } = await launchPastCheckpoint("no-cancel-cp", 3);
    await cancelTask({ taskId, actor: "never-lose-test", ports: cancelPorts() });
    const cancelCp = await waitForCancelCheckpoint(taskId);
    // Set it aside (not good): what a resume meets when the cancel checkpoint could not be taken.
    await stack.db.checkpoint.update({ where: { id: cancelCp.id }, data: { good: false } });
    const established = await recordedFacts(taskId, runId);
    const latestGood = await stack.db.checkpoint.findFirstOrThrow({ where: { taskId, good: true }, orderBy: { seq: "desc" } });
    expect(latestGood.seq).toBeGreaterThanOrEqual(checkpoint.seq);
    const later = Object.keys(established).filter((k) => !(k in (latestGood.workingSet as object)));
    expect(later.length).toBeGreaterThan(0);
    const { start, runId: resumed } = await resumeCapturing(taskId);
    expect(start.checkpointId).toBe(latestGood.id);
    for (const [k, v] of Object.entries(established)) expect(start.workingSet[k], k).toEqual(v);
    expect((await waitForRunEnd(stack.db, resumed, 120_000)).status).toBe("completed");
  });

  it("a resume from an older checkpoint than the latest starts from that older state", async () => {
    const { taskId } = await launchPastCheckpoint("older", 1);
    await cancelTask({ taskId, actor: "never-lose-test", ports: cancelPorts() });
    await waitFor(
      "the cancel checkpoint",
      () => stack.db.checkpoint.findFirst({ where: { taskId, reason: "cancelled" } }).then((c) => c ?? undefined),
      30_000,
      50,
    );
    const first = await stack.db.checkpoint.findFirstOrThrow({ where: { taskId }, orderBy: { seq: "asc" } });
    const { start, runId } = await resumeCapturing(taskId, first.id);
    expect(start.workingSet).toEqual(first.workingSet);
    await cancelTask({ taskId, actor: "never-lose-test", ports: cancelPorts() });
    await waitForRunEnd(stack.db, runId, 60_000);
  });
});

describe("fork", () => {
  it("makes a new task linked both ways; the original's status, result, steps, cost and cost causes stay as they were", async () => {
    const profile = await createTestProfile(stack.db, "fork", { checkpointEverySteps: 8, autoResumeMax: 0 });
    const { taskId } = await launchDemoWithProfile(stack, { limit: 6, profile });
    expect(await stack.waitForTaskStatus(taskId, ["completed"], 120_000)).toBe("completed");
    const snapshot = async () => {
      const task = await stack.db.task.findUniqueOrThrow({ where: { id: taskId } });
      const causes = await stack.db.modelCall.findMany({
        where: { run: { taskId } },
        select: { id: true, cause: true, costUsd: true },
        orderBy: { id: "asc" },
      });
      const cost = await stack.db.taskCost.findUnique({ where: { taskId } });
      return {
        status: task.status,
        result: task.result,
        outcome: task.outcome,
        endedAt: task.endedAt,
        runs: await stack.db.run.count({ where: { taskId } }),
        steps: await stack.db.step.count({ where: { run: { taskId } } }),
        causes: causes.map((c) => `${c.id} ${c.cause} ${c.costUsd.toString()}`),
        cost: cost ? { costUsd: cost.costUsd.toString(), discardedUsd: cost.discardedUsd.toString(), steps: cost.steps, forks: cost.forks } : null,
      };
    };
    const before = await snapshot();
    expect(before.causes.length).toBeGreaterThan(0);
    const from = await stack.db.checkpoint.findFirstOrThrow({ where: { taskId }, orderBy: { seq: "asc" } });
    const fork = await forkTask({
      taskId,
      checkpointId: from.id,
      guidance: "try again from here",
      actor: "never-lose-test",
      ports: prismaForkPorts({ prisma: stack.db, sendRunStarted: (e) => stack.sendEvent("longhaul/run.started", e, `run-started-${e.runId}`) }),
    });
    expect(fork.taskId).not.toBe(taskId);
    expect(await stack.waitForTaskStatus(fork.taskId, ["completed"], 120_000)).toBe("completed");
    expect(await snapshot()).toEqual(before);

    const branch = await getTaskDetailOrThrow({ prisma: stack.db, taskId: fork.taskId });
    expect(branch.forkedFrom).toEqual({ taskId, checkpointId: from.id, checkpointSeq: from.seq });
    expect(branch.runs).toMatchObject([{ cause: "fork", status: "completed", guidance: "try again from here" }]);
    const original = await getTaskDetailOrThrow({ prisma: stack.db, taskId });
    expect(original.forks).toMatchObject([{ taskId: fork.taskId, checkpointId: from.id, checkpointSeq: from.seq, createdBy: "never-lose-test" }]);
    // The branch starts from the original's state at that checkpoint and keeps its own books.
    const copy = await stack.db.checkpoint.findFirstOrThrow({ where: { taskId: fork.taskId, seq: 1 } });
    expect(copy.workingSet).toEqual(from.workingSet);
    expect(branch.usage.costUsd).toBeGreaterThan(0);
    expect(await stack.db.modelCall.count({ where: { run: { taskId: fork.taskId }, cause: "discarded" } })).toBe(0);
    // The summary email the original sent is known to the branch: it is not sent twice when the
    // checkpoint covered it, and sent by the branch (its own task) otherwise.
    const originalOutbox = await stack.db.outboxMessage.count({ where: { taskId } });
    expect(originalOutbox).toBe(1);
  });
});
