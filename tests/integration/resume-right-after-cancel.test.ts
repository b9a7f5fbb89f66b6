import { describe, expect, it } from "vitest";
import { waitForCancelledStepsToSettle } from "../../server/db/cancel-checkpoint.ts";
import { prismaCancelPorts } from "../../server/db/cancel-ports.ts";
import { cancelTask } from "../../server/domain/cancel-task.ts";
import { resumeTask } from "../../server/domain/resume-task.ts";
import { waitFor, type AgentStack } from "../support/agent-stack.ts";
import { createTestProfile, launchDemoWithProfile, testResumePorts, waitForRunEnd } from "../support/checkpoint-helpers.ts";
import { useAgentStack } from "../support/fixtures.ts";

// A cancel keeps what the run established, also for the resume that does not wait: pressed
// within the cancel checkpoint's settle window (≤ 10 s after the cancel), before that checkpoint
// exists. It starts from the older checkpoint plus every fact the cancelled run recorded after it
// (factsAfterCheckpoint), after the cancelled run's step in flight has finished.

let stack: AgentStack;
useAgentStack((started) => (stack = started));

const cancelPorts = () =>
  prismaCancelPorts({ prisma: stack.db, sendRunCancelled: (e) => stack.sendEvent("longhaul/run.cancelled", e, `run-cancelled-${e.runId}`) });

/** Launches the demo and waits until it has a checkpoint and 3 facts recorded after it. */
async function launchPastCheckpoint(label: string) {
  const profile = await createTestProfile(stack.db, label, { checkpointEverySteps: 12, autoResumeMax: 0 });
  const { taskId, runId } = await launchDemoWithProfile(stack, { limit: 30, profile });
  await waitFor(
    `a checkpoint of ${taskId} and 3 facts after it`,
    async () => {
      const cp = await stack.db.checkpoint.findFirst({ where: { taskId }, orderBy: { seq: "desc" } });
      if (!cp) return undefined;
      return (await stack.db.fact.count({ where: { taskId, createdAt: { gt: cp.createdAt } } })) >= 3 ? cp : undefined;
    },
    90_000,
    20,
  );
  return { taskId, runId };
}

describe("resume right after a cancel", () => {
  it("records none of the cancelled run's facts again and finishes the task", async () => {
    const { taskId, runId } = await launchPastCheckpoint("resume-now");
    await cancelTask({ taskId, actor: "resume-now-test", ports: cancelPorts() });
    const { runId: resumed } = await resumeTask({ taskId, cause: "resume", actor: "resume-now-test", ports: testResumePorts(stack) });
    expect((await waitForRunEnd(stack.db, resumed, 120_000)).status).toBe("completed");
    const established = new Set((await stack.db.fact.findMany({ where: { runId }, select: { key: true } })).map((f) => f.key));
    expect(established.size).toBeGreaterThan(0);
    const again = await stack.db.step.findMany({ where: { runId: resumed, tool: "record_fact" }, select: { arguments: true, stepId: true } });
    expect(again.filter((s) => established.has((s.arguments as { key: string }).key)).map((s) => s.stepId)).toEqual([]);
  });

  it("a tool step in flight at the cancel finishes before the resume reads its state: its fact is carried, not recorded again", async () => {
    const profile = await createTestProfile(stack.db, "resume-in-flight", { checkpointEverySteps: 12, autoResumeMax: 0 });
    const { taskId, runId } = await launchDemoWithProfile(stack, { limit: 30, profile });
    const list = await waitFor(
      "the package list",
      () => stack.db.fact.findFirst({ where: { taskId, key: "audit:packages" } }).then((f) => f ?? undefined),
      90_000,
      20,
    );
    const keys = (list.value as string[]).map((name) => `license:${name}`);
    // Hold record_fact's own per-key lock (server/tools/record-fact.ts) for every package: the run's
    // next record_fact steps start and wait inside their step body, rows `running`.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const holder = stack.db.$transaction(
      async (tx) => {
        for (const key of keys) await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`fact:${taskId}:${key}`}, 0))`;
        holding();
        await released;
      },
      { timeout: 60_000, maxWait: 10_000 },
    );
    await held;
    const blocked = await waitFor(
      "a record_fact step waiting on its lock",
      async () => {
        const rows = await stack.db.step.findMany({ where: { runId, tool: "record_fact", status: "running" }, select: { arguments: true } });
        const waiting = rows.map((r) => (r.arguments as { key: string }).key).filter((k) => keys.includes(k));
        return waiting.length ? waiting : undefined;
      },
      60_000,
      20,
    );
    await cancelTask({ taskId, actor: "resume-now-test", ports: cancelPorts() });
    const { runId: resumed } = await resumeTask({ taskId, cause: "resume", actor: "resume-now-test", ports: testResumePorts(stack) });
    // The step in flight is a slow one: it finishes 1.5 s after the resume was asked for, later
    // than the resumed run reaches its start when nothing holds it (well under a second here).
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    release();
    await holder;
    expect((await waitForRunEnd(stack.db, resumed, 120_000)).status).toBe("completed");
    // The cancelled run's steps finished and recorded their facts; the resume did not record them again.
    expect(await stack.db.fact.count({ where: { runId, key: { in: blocked } } })).toBe(blocked.length);
    const again = await stack.db.step.findMany({ where: { runId: resumed, tool: "record_fact" }, select: { arguments: true, stepId: true } });
    expect(again.filter((s) => blocked.includes((s.arguments as { key: string }).key)).map((s) => s.stepId)).toEqual([]);
  });

  it("waitForCancelledStepsToSettle waits only for tool steps of other runs cancelled within the window, and gives up at its end", async () => {
    const { taskId, runId: first } = await launchPastCheckpoint("settle-wait");
    await cancelTask({ taskId, actor: "resume-now-test", ports: cancelPorts() });
    await waitFor(
      "the cancelled run's own steps to settle",
      async () => ((await stack.db.step.count({ where: { runId: first, status: "running" } })) === 0 ? true : undefined),
      30_000,
      50,
    );
    // A second cancelled run of the task, its tool step still running (rows as beginStep writes them).
    const second = `run_settle_${first.slice(-12)}`;
    await stack.db.run.create({ data: { id: second, taskId, status: "cancelled", cause: "resume", endedAt: new Date() } });
    const inFlight = await stack.db.step.create({ data: { runId: second, index: 0, stepId: "tool-0-0", kind: "tool", tool: "read_file", status: "running" } });
    const settle = (runId: string, windowMs: number) => waitForCancelledStepsToSettle({ prisma: stack.db, taskId, runId, windowMs, pollMs: 20 });

    // The run asking is never waited for: from `second` itself there is nothing to wait for.
    expect(await settle(second, 2_000)).toEqual({ settled: true, waitedMs: expect.any(Number), running: [] });
    // A model step is not waited for either.
    await stack.db.step.update({ where: { id: inFlight.id }, data: { kind: "model" } });
    expect((await settle(first, 60_000)).settled).toBe(true);
    await stack.db.step.update({ where: { id: inFlight.id }, data: { kind: "tool" } });
    // Left running (a crashed process): the wait ends at the window's end, unsettled, naming it.
    await stack.db.run.update({ where: { id: second }, data: { endedAt: new Date() } });
    expect(await settle(first, 300)).toMatchObject({ settled: false, running: ["tool-0-0"] });
    // A cancel older than the window holds nothing.
    await stack.db.run.update({ where: { id: second }, data: { endedAt: new Date(Date.now() - 60_000) } });
    expect((await settle(first, 30_000)).settled).toBe(true);
    // Within the window: it does not return while the step runs, and returns once it has finished.
    await stack.db.run.update({ where: { id: second }, data: { endedAt: new Date() } });
    const waiting = settle(first, 60_000);
    const early = await Promise.race([waiting.then(() => "returned"), new Promise((resolve) => setTimeout(() => resolve("still waiting"), 300))]);
    expect(early).toBe("still waiting");
    await stack.db.step.update({ where: { id: inFlight.id }, data: { status: "completed", endedAt: new Date() } });
    expect(await waiting).toMatchObject({ settled: true, running: [] });
  });
});
