import { describe, expect, it } from "vitest";
import { failRunAfterFunctionFailure } from "../../server/db/run-repository.ts";
import type { AgentStack } from "../support/agent-stack.ts";
import { waitFor } from "../support/executor-harness.ts";
import { useAgentStack } from "../support/fixtures.ts";

// A state the executor refuses mid-run (a model step whose output is over its 4 MiB step-output
// limit: the scripted model answers with 5 MiB of content, a runaway reply) ends the run and the task
// `failed` with the limit named — the executor sends inngest/function.failed, agent-run's onFailure
// records it. Real app, executor, PostgreSQL; only the model provider is scripted.

let stack: AgentStack;
useAgentStack((started) => (stack = started));

describe("agent-run onFailure", () => {
  it("a model step output over the executor's 4 MiB limit mid-run ends the task failed with the limit named", async () => {
    const { taskId, runId } = await stack.launchDemo({ limit: 8 });
    // Mid-run: after the first tool step has completed, the next model reply is 5 MiB.
    await waitFor("a completed tool step", async () =>
      (await stack.db.step.count({ where: { runId, kind: "tool", status: "completed" } })) > 0 ? true : undefined,
    );
    await stack.armFaults({ kind: "oversize", count: 1, bytes: 5 * 1024 * 1024 });

    expect(await stack.waitForExecutorRun(runId)).toBe("failed");
    expect(await stack.waitForTaskStatus(taskId)).toBe("failed");
    const run = await stack.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run).toMatchObject({ status: "failed", endReason: "error" });
    expect(run.error).toMatch(/^OutputTooLarge: step .+ output is \d+ bytes \(max 4194304\)/);
    expect(run.endedAt).not.toBeNull();
    const task = await stack.db.task.findUniqueOrThrow({ where: { id: taskId } });
    expect(task.error).toBe(run.error);
    expect(task.endedAt).not.toBeNull();
    // No step is left running; every step has its end time.
    const steps = await stack.db.step.findMany({ where: { runId } });
    expect(steps.filter((s) => s.status === "running" || s.endedAt === null).map((s) => s.stepId)).toEqual([]);

    // A second failure report (a redelivery, or a failure after the loop's own end) changes nothing.
    expect(await failRunAfterFunctionFailure({ prisma: stack.db, taskId, runId, error: "another error" })).toEqual({ ended: false, steps: 0 });
    expect((await stack.db.run.findUniqueOrThrow({ where: { id: runId } })).error).toBe(run.error);
    expect((await stack.db.task.findUniqueOrThrow({ where: { id: taskId } })).error).toBe(run.error);
  });

  it("never overwrites a run that already ended: a completed run and its task stay completed", async () => {
    const { taskId, runId } = await stack.launchDemo({ limit: 2 });
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    expect(await failRunAfterFunctionFailure({ prisma: stack.db, taskId, runId, error: "late failure" })).toEqual({ ended: false, steps: 0 });
    expect(await stack.db.run.findUniqueOrThrow({ where: { id: runId } })).toMatchObject({ status: "completed", error: null });
    expect(await stack.db.task.findUniqueOrThrow({ where: { id: taskId } })).toMatchObject({ status: "completed", error: null });
  });
});
