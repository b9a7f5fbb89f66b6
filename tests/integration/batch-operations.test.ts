import { beforeAll, describe, expect, it } from "vitest";
import { getBatchOrThrow, prismaBatchItemPorts, prismaBatchPorts } from "../../server/db/batch-ports.ts";
import { prismaCancelPorts } from "../../server/db/cancel-ports.ts";
import { applyBatchItem, previewBatch, startBatch, type BatchActor } from "../../server/domain/batch-tasks.ts";
import { cancelTask } from "../../server/domain/cancel-task.ts";
import { waitFor, type AgentStack } from "../support/agent-stack.ts";
import { createTestProfile, launchDemoWithProfile, waitForCancelCheckpoint } from "../support/checkpoint-helpers.ts";
import { useAgentStack } from "../support/fixtures.ts";

// Many tasks at once, on the real pieces (app child serving the Inngest functions, executor
// child, scripted model, PostgreSQL): a batch resume of every task a filter matches starts each from
// its latest checkpoint through `batch-item`, never more than LONGHAUL_BATCH_CONCURRENCY runs at once,
// with progress on the batch and one audit row per task; a batch cancel by ids cancels each; a
// preview counts what would be taken and skipped and writes nothing.

const CONCURRENCY = 2;
beforeAll(() => {
  // Inherited by the app child (the function's concurrency limit is registered from it).
  process.env.LONGHAUL_BATCH_CONCURRENCY = String(CONCURRENCY);
});

let stack: AgentStack;
useAgentStack((started) => (stack = started));

const operator: BatchActor = { name: "batch-test", userId: null, roles: ["operator"], via: "session" };

const ports = () =>
  prismaBatchPorts({
    prisma: stack.db,
    async sendItems(batchId, taskIds) {
      for (const taskId of taskIds) await stack.sendEvent("longhaul/batch.item.requested", { batchId, taskId }, `batch-item-${batchId}-${taskId}`);
    },
  });

const cancelPorts = () =>
  prismaCancelPorts({ prisma: stack.db, sendRunCancelled: (e) => stack.sendEvent("longhaul/run.cancelled", e, `run-cancelled-${e.runId}`) });

/** Launches `n` small demos under a fresh profile as `batch-test`, cancels each once it has a checkpoint; returns the profile and task ids. */
async function cancelledTasks(label: string, n: number): Promise<{ profile: string; taskIds: string[] }> {
  const profile = await createTestProfile(stack.db, label, { checkpointEverySteps: 12, autoResumeMax: 0 });
  const taskIds: string[] = [];
  for (let i = 0; i < n; i++) {
    const { taskId } = await stack.launch({ input: { demo: { kind: "license-audit", limit: 8 }, profile }, actor: operator.name });
    taskIds.push(taskId);
  }
  for (const taskId of taskIds) {
    await waitFor(`a checkpoint of ${taskId}`, () => stack.db.checkpoint.findFirst({ where: { taskId } }).then((c) => c ?? undefined), 90_000, 50);
    await cancelTask({ taskId, actor: operator.name, ports: cancelPorts() });
  }
  // Each cancel takes its own checkpoint afterwards: "latest" means after that one.
  for (const taskId of taskIds) await waitForCancelCheckpoint(stack.db, taskId);
  return { profile, taskIds };
}

/** Most runs of `runIds` running at the same instant (from their startedAt/endedAt). */
function maxOverlap(runs: { startedAt: Date; endedAt: Date | null }[]): number {
  const edges = runs.flatMap((r) => [
    { t: r.startedAt.getTime(), d: 1 },
    { t: (r.endedAt ?? new Date()).getTime(), d: -1 },
  ]);
  edges.sort((a, b) => a.t - b.t || a.d - b.d);
  let now = 0;
  let most = 0;
  for (const e of edges) most = Math.max(most, (now += e.d));
  return most;
}

describe("batch operations", () => {
  it("resumes every task a filter matches from its latest checkpoint, at most LONGHAUL_BATCH_CONCURRENCY at once, one audit row each", async () => {
    const { profile, taskIds } = await cancelledTasks("batch-resume", 4);
    // One more task of the profile that completed: the filter matches status cancelled only.
    const { taskId: done } = await launchDemoWithProfile(stack, { limit: 8, profile });
    await stack.waitForTaskStatus(done, ["completed"], 90_000);
    const selection = { filter: { status: ["cancelled"], profile } };

    const preview = await previewBatch({ action: "resume", selection, actor: operator, concurrency: CONCURRENCY, ports: ports() });
    expect(preview).toMatchObject({ matched: 4, skipped: [], unestimated: 0, concurrency: CONCURRENCY });
    expect([...preview.taskIds].sort()).toEqual([...taskIds].sort());
    // The estimate is the completed task's spend, once per task (the profile's median of one).
    const doneCost = Number((await stack.db.$queryRaw<{ c: string }[]>`SELECT "costUsd"::text AS c FROM task_cost WHERE "taskId" = ${done}`)[0]!.c);
    expect(preview.estimatedUsd).toBeCloseTo(doneCost * 4, 5);
    expect(await stack.db.batchOperation.count({ where: { actor: operator.name } })).toBe(0);

    const latest = Object.fromEntries(
      await Promise.all(
        taskIds.map(async (t) => [t, (await stack.db.checkpoint.findFirstOrThrow({ where: { taskId: t, good: true }, orderBy: { seq: "desc" } })).id] as const),
      ),
    );
    const started = await startBatch({ action: "resume", selection, actor: operator, concurrency: CONCURRENCY, ports: ports() });
    expect(started.taskIds).toHaveLength(4);

    const progress = await waitFor(
      "the batch to finish",
      async () => {
        const p = await getBatchOrThrow({ prisma: stack.db, batchId: started.batchId });
        return p.finished ? p : undefined;
      },
      240_000,
      200,
    );
    expect(progress.counts).toEqual({ pending: 0, running: 0, done: 4, skipped: 0, failed: 0 });
    const runs = await stack.db.run.findMany({ where: { taskId: { in: taskIds }, cause: "resume" } });
    expect(runs).toHaveLength(4);
    for (const r of runs) {
      expect(r.status).toBe("completed");
      expect(r.fromCheckpointId, r.taskId).toBe(latest[r.taskId]);
    }
    expect(maxOverlap(runs)).toBeLessThanOrEqual(CONCURRENCY);
    const audit = await stack.db.auditEvent.findMany({ where: { target: started.batchId } });
    expect(audit.map((a) => a.taskId).sort()).toEqual([...taskIds].sort());
    expect(new Set(audit.map((a) => a.action))).toEqual(new Set(["task.batch.resume"]));
    expect(audit.every((a) => a.actor === operator.name)).toBe(true);
  }, 420_000);

  it("cancels tasks chosen by id, skips what it may not act on, and a repeated item changes nothing", async () => {
    const profile = await createTestProfile(stack.db, "batch-cancel", { autoResumeMax: 0 });
    const mine = await stack.launch({ input: { demo: { kind: "license-audit", limit: 40 }, profile }, actor: operator.name });
    const theirs = await stack.launch({ input: { demo: { kind: "license-audit", limit: 40 }, profile }, actor: "someone-else" });
    const selection = { taskIds: [mine.taskId, theirs.taskId] };
    const preview = await previewBatch({ action: "cancel", selection, actor: operator, concurrency: CONCURRENCY, ports: ports() });
    expect(preview.taskIds).toEqual([mine.taskId]);
    expect(preview.skipped).toEqual([{ reason: "launched by someone else (an operator acts on their own tasks)", count: 1 }]);
    expect(preview.estimatedUsd).toBe(0);

    const started = await startBatch({ action: "cancel", selection, actor: operator, concurrency: CONCURRENCY, ports: ports() });
    await waitFor("the batch cancel", async () => (await getBatchOrThrow({ prisma: stack.db, batchId: started.batchId })).finished || undefined, 60_000, 100);
    expect((await stack.db.task.findUniqueOrThrow({ where: { id: mine.taskId } })).status).toBe("cancelled");
    expect((await stack.db.task.findUniqueOrThrow({ where: { id: theirs.taskId } })).status).not.toBe("cancelled");
    // Applying the item again (a retry after it was recorded) finds it settled: nothing happens twice.
    const again = await applyBatchItem({
      batchId: started.batchId,
      taskId: mine.taskId,
      cap: CONCURRENCY,
      ports: prismaBatchItemPorts({ prisma: stack.db, sendRunStarted: async () => {}, sendRunCancelled: async () => {} }),
    });
    expect(again).toEqual({ kind: "gone" });
    const audit = await stack.db.auditEvent.findMany({ where: { target: started.batchId } });
    expect(audit.map((a) => [a.taskId, a.action])).toEqual([[mine.taskId, "task.batch.cancel"]]);
    await cancelTask({ taskId: theirs.taskId, actor: "someone-else", ports: cancelPorts() });
  }, 180_000);

  it("refuses a batch that would act on nothing, naming why", async () => {
    const profile = await createTestProfile(stack.db, "batch-none", {});
    await expect(
      startBatch({ action: "resume", selection: { filter: { profile } }, actor: operator, concurrency: CONCURRENCY, ports: ports() }),
    ).rejects.toThrow("selection: no task to resume (it matches no task)");
  });
});
