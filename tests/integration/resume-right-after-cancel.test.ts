import { describe, expect, it } from "vitest";
import { waitForCancelledStepsToSettle } from "../../server/db/cancel-checkpoint.ts";
import { prismaCancelPorts } from "../../server/db/cancel-ports.ts";
import { cancelTask } from "../../server/domain/cancel-task.ts";
import { resumeTask } from "../../server/domain/resume-task.ts";
import { waitFor, type AgentStack } from "../support/agent-stack.ts";
import { createTestProfile, launchDemoWithProfile, testResumePorts, waitForRunEnd } from "../support/checkpoint-helpers.ts";
import { useAgentStack } from "../support/fixtures.ts";

// Issue 18, "Cancel keeps what the run established", for the resume that does not wait: pressed
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

  it("waitForCancelledStepsToSettle waits for a cancelled run's step in flight, and gives up on one left running", async () => {
    const { taskId, runId } = await launchPastCheckpoint("settle-wait");
    await cancelTask({ taskId, actor: "resume-now-test", ports: cancelPorts() });
    await waitFor(
      "the cancelled run's own steps to settle",
      async () => ((await stack.db.step.count({ where: { runId, status: "running" } })) === 0 ? true : undefined),
      30_000,
      50,
    );
    const index = ((await stack.db.step.aggregate({ where: { runId }, _max: { index: true } }))._max.index ?? 0) + 1;
    const inFlight = await stack.db.step.create({ data: { runId, index, stepId: "tool-in-flight", kind: "tool", tool: "read_file", status: "running" } });
    const other = "run_not_the_cancelled_one";
    // Left running (a crashed process): the wait ends at its limit, unsettled.
    expect(await waitForCancelledStepsToSettle({ prisma: stack.db, taskId, runId: other, timeoutMs: 300, pollMs: 50 })).toMatchObject({ settled: false });
    // The run's own steps never hold it: only other, cancelled runs do.
    expect(await waitForCancelledStepsToSettle({ prisma: stack.db, taskId, runId, timeoutMs: 300, pollMs: 50 })).toMatchObject({ settled: true });
    // Finishing while the wait polls: it returns settled as soon as it sees the row leave `running`.
    const waiting = waitForCancelledStepsToSettle({ prisma: stack.db, taskId, runId: other, timeoutMs: 60_000, pollMs: 50 });
    await stack.db.step.update({ where: { id: inFlight.id }, data: { status: "completed", endedAt: new Date() } });
    const result = await waiting;
    expect(result.settled).toBe(true);
    expect(result.waitedMs).toBeLessThan(60_000);
  });
});
