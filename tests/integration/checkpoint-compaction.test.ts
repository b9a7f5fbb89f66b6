import { describe, expect, it } from "vitest";
import type { Checkpoint } from "../../server/db/generated/client.ts";
import { READ_REFERENCE_MAX_CHARS } from "../../server/domain/fact-reference.ts";
import { resumeTask } from "../../server/domain/resume-task.ts";
import { AGENT_STEP_RETRIES } from "../../server/inngest/functions/agent-run.ts";
import { expectedLicenseCsv } from "../../server/tools/demo/license-audit.ts";
import { loadRunEvidence, waitFor, WORKSPACE, type AgentStack } from "../support/agent-stack.ts";
import { createTestProfile, disarmFaults, testResumePorts, waitForRunEnd } from "../support/checkpoint-helpers.ts";
import { useAgentStack } from "../support/fixtures.ts";

// A checkpoint too big for the model's window, on the real pieces (app, executor,
// scripted model server, test PostgreSQL): a resume into a smaller window compacts the checkpoint
// itself (the huge fact becomes a reference), the agent reads a reference back, and it completes; a start that cannot fit even compacted
// escalates `saturation` with the sizes instead of failing.

const LIMIT = 6;
let stack: AgentStack;
useAgentStack((started) => (stack = started));

/**
 * ~35k tokens of background notes, far more than a 12k-token window and irrelevant to the audit: a
 * few huge facts, each within a launch's 16 KiB per fact (lib/contracts/limits.ts).
 */
const NOTE_KEYS = Array.from({ length: 16 }, (_, k) => `notes:background-${k}`);
const HUGE_NOTES: Record<string, string> = Object.fromEntries(
  NOTE_KEYS.map((key, k) => [key, Array.from({ length: 310 }, (_, i) => `note ${k}.${i}: background on package metadata`).join("\n")]),
);

describe("a checkpoint too big for the window", () => {
  it("a resume into a smaller window compacts the checkpoint (huge fact → reference), reads a reference back and completes", async () => {
    const profile = await createTestProfile(stack.db, "cp-compact", { checkpointEverySteps: 8, autoResumeMax: 0 });
    const { taskId, runId } = await stack.launch({
      input: { demo: { kind: "license-audit", limit: LIMIT }, profile, facts: HUGE_NOTES },
      actor: "compaction-test",
    });
    const factsOf = (cp: Checkpoint) => cp.workingSet as Record<string, unknown>;
    const checkpoint = await waitFor(
      "a checkpoint carrying the huge facts",
      async () => {
        const rows = await stack.db.checkpoint.findMany({ where: { taskId, reason: "interval" }, orderBy: { seq: "asc" } });
        return rows.find((c) => NOTE_KEYS.every((key) => typeof factsOf(c)[key] === "string"));
      },
      90_000,
      25,
    );
    await stack.armFaults({ kind: "429", count: AGENT_STEP_RETRIES + 1, retryAfterSeconds: 0 });
    const failed = await waitForRunEnd(stack.db, runId);
    await disarmFaults(stack);
    expect(failed).toMatchObject({ status: "failed", endReason: "transient" });
    expect(checkpoint.contextTokens).toBeGreaterThan(12_000);

    // The task moves to a model with a 12k-token window: its latest checkpoint no longer fits.
    // A task keeps the profile version it launched with, so the edit alone would not reach
    // it: the test moves the task to the new version explicitly.
    const moved = await stack.db.agentProfile.update({ where: { name: profile }, data: { contextWindow: 12_000, saturationRatio: 0.7 } });
    await stack.db.task.update({ where: { id: taskId }, data: { profileVersionId: `${moved.id}:v${moved.version}` } });
    const resumed = await resumeTask({ taskId, cause: "resume", actor: "compaction-test", ports: testResumePorts(stack) });
    const status = await stack.waitForTaskStatus(taskId, undefined, 120_000);
    if (status !== "completed")
      console.error("escalations:", JSON.stringify(await stack.db.escalation.findMany({ where: { taskId }, select: { reason: true, message: true } })));
    expect(status).toBe("completed");

    const ev = await loadRunEvidence(stack.db, { taskId, runId: resumed.runId });
    expect(ev.csv).toBe(await expectedLicenseCsv(WORKSPACE, LIMIT));
    expect(ev.outbox).toHaveLength(1);
    // The resumed run compacted at its first turn, before any model call of its own.
    const compact = ev.steps.find((s) => s.stepId.startsWith("compact-"));
    expect(compact, "a compact step").toBeDefined();
    expect(compact!.status).toBe("completed");
    const compacted = await stack.db.checkpoint.findFirstOrThrow({ where: { runId: resumed.runId, afterStepId: compact!.stepId } });
    expect(compacted.reason).toBe("saturation");
    expect(compacted.contextTokens).toBeLessThan(Math.floor(12_000 * 0.7));
    // The largest facts became references to the checkpoint that holds them, with a description.
    const refs = NOTE_KEYS.filter((key) => typeof factsOf(compacted)[key] === "object");
    expect(refs.length).toBeGreaterThan(0);
    for (const key of refs)
      expect(factsOf(compacted)[key]).toEqual({
        $ref: `checkpoint ${checkpoint.id}, workingSet."${key}"`,
        description: expect.stringMatching(/^[\d,]+ chars of JSON: a string$/),
      });
    // The agent read a reference back (read_reference, offered because the working set held references):
    // the first 4,000 characters of the first reference by key, in a memoized tool step, the cut said plainly.
    const firstRef = [...refs].sort()[0]!;
    const reads = ev.steps.filter((s) => s.tool === "read_reference");
    expect(reads.length, "read_reference steps").toBeGreaterThan(0);
    const read = reads[0]!;
    expect(read.status).toBe("completed");
    const whole = JSON.stringify(HUGE_NOTES[firstRef]);
    expect(whole.length).toBeGreaterThan(READ_REFERENCE_MAX_CHARS);
    const page = read.output as { key: string; truncated: boolean; totalChars: number; returnedChars: number; nextOffset: number; text: string; note: string };
    expect(page).toMatchObject({
      ref: `checkpoint ${checkpoint.id}, workingSet."${firstRef}"`,
      key: firstRef,
      truncated: true,
      totalChars: whole.length,
      returnedChars: 4_000,
      nextOffset: 4_000,
    });
    expect(page.text).toBe(whole.slice(0, 4_000));
    expect(page.note).toBe(
      `Cut: characters 0–4000 of ${whole.length} of the value's JSON text. Call read_reference again with offset 4000 for more (at most ${READ_REFERENCE_MAX_CHARS} characters per call).`,
    );
    expect(ev.memoized.get(read.stepId)).toMatchObject({ data: { ok: true, output: { key: firstRef, truncated: true } } });
    // Every productive prompt of the resumed run fitted the new window.
    const productive = await stack.db.modelCall.findMany({
      where: { runId: resumed.runId, cause: "productive" },
      select: { stepId: true, promptTokens: true },
    });
    expect(productive.length).toBeGreaterThan(0);
    expect(productive.filter((c) => c.promptTokens >= 12_000).map((c) => `${c.stepId} ${c.promptTokens}`)).toEqual([]);
    // The step whose model call failed for good (the 429s) was marked failed, with its end time.
    const failedSteps = await stack.db.step.findMany({ where: { runId, kind: "model", status: { not: "completed" } } });
    expect(failedSteps.map((s) => ({ status: s.status, ended: s.endedAt !== null, error: s.error?.slice(0, 14) }))).toEqual([
      { status: "failed", ended: true, error: "[rate_limited]" },
    ]);
  });

  it("a start that cannot fit even compacted escalates saturation with the sizes, never fails", async () => {
    const profile = await createTestProfile(stack.db, "cp-nofit", { contextWindow: 1_000, saturationRatio: 0.8 });
    const { taskId, runId } = await stack.launch({ input: { demo: { kind: "license-audit", limit: LIMIT }, profile }, actor: "compaction-test" });
    expect(await stack.waitForTaskStatus(taskId)).toBe("waiting_for_human");
    const run = await stack.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect({ status: run.status, endReason: run.endReason }).toEqual({ status: "escalated", endReason: "saturation" });
    const escalation = await stack.db.escalation.findFirstOrThrow({ where: { taskId } });
    expect(escalation.reason).toBe("saturation");
    expect(escalation.message).toMatch(/does not fit the 1000-token window even compacted: \d+ tokens \(limit 800/);
    const sizes = escalation.evidence as { contextWindow: number; beforeTokens: number; afterTokens: number; limitTokens: number };
    expect(sizes).toMatchObject({ contextWindow: 1_000, limitTokens: 800 });
    expect(sizes.afterTokens).toBeGreaterThan(800);
    expect(sizes.beforeTokens).toBeGreaterThanOrEqual(sizes.afterTokens);
    // No model call was made: nothing was sent that the provider would refuse.
    expect(await stack.db.modelCall.count({ where: { runId } })).toBe(0);
  });
});
