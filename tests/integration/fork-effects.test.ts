import { describe, expect, it } from "vitest";
import { getResumePreview } from "../../server/db/checkpoint-queries.ts";
import { prismaForkPorts } from "../../server/db/fork-ports.ts";
import { forkTask } from "../../server/domain/fork-task.ts";
import type { AgentStack } from "../support/agent-stack.ts";
import { useAgentStack } from "../support/fixtures.ts";

// Forks that say what they redo, on the real pieces (app child, executor child, scripted model,
// PostgreSQL): the license-audit demo takes a checkpoint before its summary email (before a risky
// action) and then sends it. A fork from that checkpoint repeats the same send_email; the operator's
// choice decides whether the branch reuses the recorded result (nothing sent) or sends it again.

let stack: AgentStack;
useAgentStack((started) => (stack = started));

/** A completed demo task whose first checkpoint comes before its email, and the email's ledger key. */
async function sentDemo() {
  const { taskId } = await stack.launchDemo({ limit: 3 });
  expect(await stack.waitForTaskStatus(taskId, ["completed"], 120_000)).toBe("completed");
  const cp = await stack.db.checkpoint.findFirstOrThrow({ where: { taskId }, orderBy: { seq: "asc" } });
  const email = await stack.db.sideEffect.findFirstOrThrow({ where: { taskId, tool: "send_email", status: "committed" } });
  return { taskId, checkpointId: cp.id, emailKey: email.idempotencyKey };
}

const ports = () => prismaForkPorts({ prisma: stack.db, sendRunStarted: (e) => stack.sendEvent("longhaul/run.started", e, `run-started-${e.runId}`) });

/** The branch's send_email calls: how each was obtained (performed, deduplicated) and the emails its task sent. */
async function branchSends(taskId: string) {
  const steps = await stack.db.step.findMany({ where: { run: { taskId }, kind: "tool", tool: "send_email", status: "completed" } });
  return {
    calls: steps.length,
    deduplicated: steps.filter((s) => (s.output as { deduplicated?: boolean } | null)?.deduplicated === true).length,
    outbox: await stack.db.outboxMessage.count({ where: { taskId } }),
  };
}

describe("fork side effects", () => {
  it("lists the effects after the checkpoint, reuses their results by default, and sends again when told to", async () => {
    const { taskId, checkpointId, emailKey } = await sentDemo();

    // The dialog's list: the email the original sent after the checkpoint.
    const preview = await getResumePreview({ prisma: stack.db, taskId, checkpointId });
    expect(preview.effectsAfter).toEqual([
      expect.objectContaining({ idempotencyKey: emailKey, tool: "send_email", summary: 'email to compliance@example.com: "License audit: 3 packages"' }),
    ]);

    // Reuse (the default): the branch repeats the email and gets the recorded result, marked deduplicated; nothing is sent.
    const reuse = await forkTask({ taskId, checkpointId, actor: "agent-test", ports: ports() });
    expect(reuse.effects).toEqual({ reused: [emailKey], redone: [] });
    expect(await stack.waitForTaskStatus(reuse.taskId, ["completed"], 120_000)).toBe("completed");
    expect(await branchSends(reuse.taskId)).toEqual({ calls: 1, deduplicated: 1, outbox: 0 });

    // Do again: the branch sends it once more, under its own key.
    const redo = await forkTask({ taskId, checkpointId, redoEffects: [emailKey], actor: "agent-test", ports: ports() });
    expect(redo.effects).toEqual({ reused: [], redone: [emailKey] });
    expect(await stack.waitForTaskStatus(redo.taskId, ["completed"], 120_000)).toBe("completed");
    expect(await branchSends(redo.taskId)).toEqual({ calls: 1, deduplicated: 0, outbox: 1 });
    // The original's own email stays one.
    expect(await stack.db.outboxMessage.count({ where: { taskId } })).toBe(1);

    // A key that is not an effect after the checkpoint is refused, naming it; nothing is created.
    const forks = await stack.db.task.count({ where: { forkedFromTaskId: taskId } });
    await expect(forkTask({ taskId, checkpointId, redoEffects: ["no-such-key"], actor: "agent-test", ports: ports() })).rejects.toMatchObject({
      code: "BAD_INPUT",
      message: expect.stringContaining('redoEffects: "no-such-key" is not a side effect') as unknown,
    });
    expect(await stack.db.task.count({ where: { forkedFromTaskId: taskId } })).toBe(forks);
  }, 360_000);
});
