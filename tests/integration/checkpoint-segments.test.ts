import { describe, expect, it } from "vitest";
import { diffCheckpoints } from "../../server/db/checkpoint-queries.ts";
import { expectedLicenseCsv } from "../../server/tools/demo/license-audit.ts";
import { loadRunEvidence, WORKSPACE, type AgentStack } from "../support/agent-stack.ts";
import { createTestProfile, launchDemoWithProfile } from "../support/checkpoint-helpers.ts";
import { useAgentStack } from "../support/fixtures.ts";

// Checkpoints and segments on the real pieces (app process serving agent-run, executor process,
// scripted model server, test PostgreSQL): a run is cut into segments at checkpoints and still does
// every step once; a saturated context is compacted into a checkpoint and the run goes on; the
// working-set diff between checkpoints blames the right steps.

const LIMIT = 12;
let stack: AgentStack;
useAgentStack((started) => (stack = started));

/** One demo run with an interval checkpoint every 10 steps, run once and shared by the tests that read it. */
let segmented: Promise<{ taskId: string; runId: string }> | undefined;
function segmentedRun() {
  segmented ??= (async () => {
    const profile = await createTestProfile(stack.db, "cp-segments", { checkpointEverySteps: 10 });
    const ids = await launchDemoWithProfile(stack, { limit: LIMIT, profile });
    expect(await stack.waitForTaskStatus(ids.taskId)).toBe("completed");
    expect(await stack.waitForExecutorRun(ids.runId)).toBe("completed");
    return ids;
  })();
  return segmented;
}

describe("checkpoints and segments", () => {
  it("completes a run across several segments: every step once, contiguous checkpoints, small first prompt per segment", async () => {
    const { taskId, runId } = await segmentedRun();
    const ev = await loadRunEvidence(stack.db, { taskId, runId });
    const run = await stack.db.run.findUniqueOrThrow({ where: { id: runId } });
    const all = await stack.db.checkpoint.findMany({ where: { taskId }, orderBy: { seq: "asc" } });
    // Checkpoints at a turn boundary cut the run into segments; the one before a risky action
    // (send_email) is taken inside a turn and the segment goes on.
    const checkpoints = all.filter((c) => c.reason !== "before_risky");
    const beforeRisky = all.filter((c) => c.reason === "before_risky");

    expect(ev.csv).toBe(await expectedLicenseCsv(WORKSPACE, LIMIT));
    expect(ev.outbox).toHaveLength(1);
    expect(ev.task.status).toBe("completed");
    expect(run).toMatchObject({ status: "completed", cause: "initial" });

    // Several segments, one per cutting checkpoint plus the first; the executor agrees.
    expect(checkpoints.length).toBeGreaterThanOrEqual(2);
    expect(run.segments).toBeGreaterThanOrEqual(3);
    expect(run.segments).toBe(checkpoints.length + 1);
    expect(ev.segments).toHaveLength(run.segments);
    expect(ev.segments.slice(0, -1).map((s) => (s.output as { status?: string }).status)).toEqual(ev.segments.slice(1).map(() => "continued"));
    expect(all.map((c) => c.seq)).toEqual(all.map((_, i) => i + 1));
    expect(checkpoints.every((c) => c.runId === runId && c.reason === "interval")).toBe(true);

    // Exactly one checkpoint before the risky action, and the very next step is the email.
    // (ev.steps is in timeline order)
    const sendAt = ev.steps.findIndex((s) => s.tool === "send_email");
    expect(beforeRisky).toHaveLength(1);
    expect(ev.steps[sendAt - 1]?.stepId, "the step before send_email").toBe(
      `checkpoint-${beforeRisky[0]!.nextTurn - 1}-${ev.steps[sendAt]!.stepId.split("-")[2]}`,
    );
    expect(beforeRisky[0]!.openQuestion).toMatch(/^About to run the risky action send_email\(to: "/);
    expect(beforeRisky[0]!.workingSet).toHaveProperty(["audit:report"]);

    // Every step body ran exactly once; step ids are unique in the run and across the executor's segments.
    expect(ev.steps.filter((s) => s.attempts !== 1 || s.status !== "completed").map((s) => `${s.stepId} ${s.status} ×${s.attempts}`)).toEqual([]);
    expect(new Set(ev.steps.map((s) => s.stepId)).size).toBe(ev.steps.length);
    const names = await stack.db.executorStepResult.findMany({ where: { runId: { in: ev.segments.map((s) => s.id) } }, select: { name: true } });
    const perSegment = names.map((n) => n.name).filter((n) => n !== "start"); // each segment loads its start
    expect(perSegment.filter((n, i) => perSegment.indexOf(n) !== i)).toEqual([]);
    expect(ev.steps.filter((s) => s.kind === "checkpoint" && /^checkpoint-\d+$/.test(s.stepId)).map((s) => s.stepId)).toEqual(
      checkpoints.map((c) => `checkpoint-${c.nextTurn}`),
    );

    // Each later segment starts from the checkpoint alone: its first prompt is exactly the checkpoint's
    // context, and smaller than the last prompt of the segment before it.
    const productive = await stack.db.modelCall.findMany({ where: { runId, cause: "productive" }, select: { stepId: true, promptTokens: true } });
    const prompt = (turn: number) => productive.find((c) => c.stepId === `model-${turn}`)?.promptTokens;
    for (const cp of checkpoints) {
      const first = prompt(cp.nextTurn);
      const lastBefore = prompt(cp.nextTurn - 1);
      // The resumed prompt is the one the checkpoint counted. Not to the token: the scripted server
      // bills each minted id (a ULID, a call id) as a fixed-width placeholder (minted-ids.ts), where
      // Longhaul's count sees the id itself, 10 to 20 tokens by the draw — a few tokens a prompt.
      expect(first, `first prompt after checkpoint #${cp.seq}`).toBeDefined();
      expect(Math.abs(first! - cp.contextTokens), `first prompt after checkpoint #${cp.seq}: ${first} vs ${cp.contextTokens}`).toBeLessThanOrEqual(
        Math.ceil(cp.contextTokens * 0.01),
      );
      expect(lastBefore, `last prompt before checkpoint #${cp.seq}`).toBeDefined();
      expect(first!, `first prompt after checkpoint #${cp.seq} vs last before`).toBeLessThan(lastBefore!);
    }
  });

  it("diffs checkpoints: each diff lists exactly the facts recorded between them, blamed on the steps that recorded them", async () => {
    const { taskId, runId } = await segmentedRun();
    const checkpoints = await stack.db.checkpoint.findMany({ where: { taskId }, orderBy: { seq: "asc" } });
    const facts = await stack.db.fact.findMany({ where: { taskId }, orderBy: { createdAt: "asc" } });
    const steps = await stack.db.step.findMany({ where: { runId }, select: { stepId: true, index: true, tool: true } });
    const indexOf = (stepId: string) => steps.find((s) => s.stepId === stepId)?.index ?? Number.NaN;
    expect(checkpoints.length).toBeGreaterThanOrEqual(2);

    const bounds = [null, ...checkpoints];
    for (let k = 0; k + 1 < bounds.length; k++) {
      const from = bounds[k] ?? null;
      const to = bounds[k + 1]!;
      const diff = await diffCheckpoints({ prisma: stack.db, taskId, fromId: from?.id ?? null, toId: to.id });
      const recorded = facts.filter((f) => (!from || f.createdAt > from.createdAt) && f.createdAt <= to.createdAt);
      const label = `diff #${from?.seq ?? "start"} → #${to.seq}`;
      // Only additions in this demo (every key is recorded once), exactly the facts of the steps in between.
      expect(
        diff.map((c) => `${c.kind} ${c.key}`),
        label,
      ).toEqual(recorded.map((f) => `added ${f.key}`).sort());
      expect(diff.filter((c) => c.key.startsWith("license:")).length, label).toBe(recorded.filter((f) => f.key.startsWith("license:")).length);
      for (const c of diff) {
        const fact = recorded.find((f) => f.key === c.key)!;
        expect(c, `${label}: ${c.key}`).toMatchObject({ sourceStepId: fact.sourceStepId, runId, after: fact.value });
        // the blamed step is a record_fact tool step inside the interval the diff covers
        expect(steps.find((s) => s.stepId === c.sourceStepId)?.tool, `${label}: ${c.key}`).toBe("record_fact");
        expect(indexOf(c.sourceStepId!), `${label}: ${c.key}`).toBeLessThanOrEqual(indexOf(to.afterStepId));
        if (from) expect(indexOf(c.sourceStepId!), `${label}: ${c.key}`).toBeGreaterThan(indexOf(from.afterStepId));
      }
    }
    // Some interval adds license facts (the diff is not trivially about the selection only).
    const last = checkpoints.at(-1)!;
    const all = await diffCheckpoints({ prisma: stack.db, taskId, fromId: null, toId: last.id });
    const upToLast = facts.filter((f) => f.createdAt <= last.createdAt);
    expect(all.map((c) => c.key)).toEqual(upToLast.map((f) => f.key).sort());
    expect(all.filter((c) => c.key.startsWith("license:")).length).toBeGreaterThan(0);
    expect(Object.keys(last.workingSet as object).sort()).toEqual(upToLast.map((f) => f.key).sort());
  });

  it("compacts a saturated context into a checkpoint and the run completes", async () => {
    const contextWindow = 12_000;
    const saturationRatio = 0.7;
    // No interval checkpoints: any checkpoint here comes from saturation.
    const profile = await createTestProfile(stack.db, "cp-saturation", { contextWindow, saturationRatio, checkpointEverySteps: 1_000 });
    const { taskId, runId } = await launchDemoWithProfile(stack, { limit: LIMIT, profile });
    const status = await stack.waitForTaskStatus(taskId);
    const run = await stack.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect({ status, endReason: run.endReason, error: run.error }).toEqual({ status: "completed", endReason: null, error: null });
    expect(await stack.waitForExecutorRun(runId)).toBe("completed");
    const ev = await loadRunEvidence(stack.db, { taskId, runId });
    const checkpoints = (await stack.db.checkpoint.findMany({ where: { taskId }, orderBy: { seq: "asc" } })).filter((c) => c.reason !== "before_risky");

    expect(ev.csv).toBe(await expectedLicenseCsv(WORKSPACE, LIMIT));
    expect(ev.outbox).toHaveLength(1);
    expect(checkpoints.length).toBeGreaterThanOrEqual(1);
    expect(checkpoints.map((c) => c.reason)).toEqual(checkpoints.map(() => "saturation"));
    // The summary of each saturation checkpoint was a compaction call, and nothing else was.
    const compactions = ev.modelCalls.filter((c) => c.cause === "compaction");
    expect(compactions.map((c) => `${c.stepId} ${c.status}`)).toEqual(checkpoints.map((c) => `checkpoint-${c.nextTurn} ok`));
    expect(ev.modelCalls.filter((c) => c.cause === "checkpoint")).toEqual([]);
    // Every productive prompt stayed inside the window, and each segment restarted well below the threshold.
    const productive = await stack.db.modelCall.findMany({ where: { runId, cause: "productive" }, select: { stepId: true, promptTokens: true } });
    expect(productive.filter((c) => c.promptTokens >= contextWindow).map((c) => `${c.stepId} ${c.promptTokens}`)).toEqual([]);
    for (const cp of checkpoints) {
      const first = productive.find((c) => c.stepId === `model-${cp.nextTurn}`)?.promptTokens;
      // The resumed prompt is the one the checkpoint counted. Not to the token: the scripted server
      // bills each minted id (a ULID, a call id) as a fixed-width placeholder (minted-ids.ts), where
      // Longhaul's count sees the id itself, 10 to 20 tokens by the draw — a few tokens a prompt.
      expect(first, `first prompt after checkpoint #${cp.seq}`).toBeDefined();
      expect(Math.abs(first! - cp.contextTokens), `first prompt after checkpoint #${cp.seq}: ${first} vs ${cp.contextTokens}`).toBeLessThanOrEqual(
        Math.ceil(cp.contextTokens * 0.01),
      );
      expect(first!).toBeLessThan(Math.floor(contextWindow * saturationRatio));
    }
    expect(ev.steps.filter((s) => s.attempts !== 1).map((s) => s.stepId)).toEqual([]);
  });
});
