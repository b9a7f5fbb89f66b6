import { describe, expect, it } from "vitest";
import { prismaCancelPorts } from "../../server/db/cancel-ports.ts";
import { getResumePreview } from "../../server/db/checkpoint-queries.ts";
import { cancelTask } from "../../server/domain/cancel-task.ts";
import { resumeTask } from "../../server/domain/resume-task.ts";
import { waitFor, type AgentStack } from "../support/agent-stack.ts";
import { createTestProfile, launchDemoWithProfile, testResumePorts, waitForCancelCheckpoint, waitForRunEnd } from "../support/checkpoint-helpers.ts";
import { useAgentStack } from "../support/fixtures.ts";

// The resume/fork dialog says what is kept and what will be redone before anyone
// confirms (task.resumePreview). On the real pieces: after a cancel, the latest checkpoint keeps
// every fact; the first checkpoint keeps only its own, and the facts it names as redone are the
// ones the resumed run then records again.

let stack: AgentStack;
useAgentStack((started) => (stack = started));

describe("resume preview", () => {
  it("the latest checkpoint redoes nothing; an older one names the facts the resumed run records again", async () => {
    const profile = await createTestProfile(stack.db, "resume-preview", { checkpointEverySteps: 12, autoResumeMax: 0 });
    const { taskId } = await launchDemoWithProfile(stack, { limit: 30, profile });
    await waitFor("two checkpoints", async () => ((await stack.db.checkpoint.count({ where: { taskId } })) >= 2 ? true : undefined), 90_000, 50);
    await cancelTask({
      taskId,
      actor: "preview-test",
      ports: prismaCancelPorts({ prisma: stack.db, sendRunCancelled: (e) => stack.sendEvent("longhaul/run.cancelled", e, `run-cancelled-${e.runId}`) }),
    });
    await waitForCancelCheckpoint(stack.db, taskId);
    const facts = new Set((await stack.db.fact.findMany({ where: { taskId }, select: { key: true } })).map((f) => f.key));

    const latest = await getResumePreview({ prisma: stack.db, taskId });
    expect(latest).toMatchObject({ isLatest: true, redoFacts: 0, redoFactKeys: [], keptFacts: facts.size });

    const first = await stack.db.checkpoint.findFirstOrThrow({ where: { taskId }, orderBy: { seq: "asc" } });
    const older = await getResumePreview({ prisma: stack.db, taskId, checkpointId: first.id });
    const inFirst = Object.keys(first.workingSet as object);
    expect(older).toMatchObject({ isLatest: false, keptFacts: inFirst.length, checkpoint: { id: first.id, seq: first.seq } });
    expect(older.redoFacts).toBe([...facts].filter((k) => !inFirst.includes(k)).length);
    expect(older.redoFacts).toBeGreaterThan(0);
    expect(older.stepsAfter).toBeGreaterThan(0);

    const { runId } = await resumeTask({ taskId, checkpointId: first.id, cause: "resume", actor: "preview-test", ports: testResumePorts(stack) });
    expect((await waitForRunEnd(stack.db, runId, 120_000)).status).toBe("completed");
    const again = new Set((await stack.db.fact.findMany({ where: { runId }, select: { key: true } })).map((f) => f.key));
    for (const k of older.redoFactKeys) expect(again.has(k), k).toBe(true);
  }, 300_000);

  it("an unknown checkpoint, or one of another task, is NOT_FOUND", async () => {
    const { taskId } = await stack.launch({ input: { goal: "Say hello and finish.", profile: "scripted" }, actor: "preview-test" });
    await expect(getResumePreview({ prisma: stack.db, taskId, checkpointId: "cp_nope" })).rejects.toThrow(`checkpoint cp_nope not found for task ${taskId}`);
    expect(await getResumePreview({ prisma: stack.db, taskId })).toMatchObject({ checkpoint: null, isLatest: true, redoFacts: 0 });
  });
});
