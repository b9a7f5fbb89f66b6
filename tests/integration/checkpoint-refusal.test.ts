import { describe, expect, it } from "vitest";
import type { Checkpoint } from "../../server/db/generated/client.ts";
import { runFacts } from "../../server/db/checkpoint-repository.ts";
import { isFactReference } from "../../server/domain/fact-reference.ts";
import { parseContextLimit } from "../../server/llm/errors.ts";
import { NOTES_COUNT, noteText } from "../../server/llm/scripted/agent.ts";
import { expectedLicenseCsv } from "../../server/tools/demo/license-audit.ts";
import { loadRunEvidence, waitFor, WORKSPACE, type AgentStack } from "../support/agent-stack.ts";
import { createTestProfile, disarmFaults } from "../support/checkpoint-helpers.ts";
import { useAgentStack } from "../support/fixtures.ts";

// Saturation end to end, on the real pieces (app, executor, scripted model server, test
// PostgreSQL): the provider refuses a prompt as over its "maximum context length" — the scripted
// server's `context_length` fault, in OpenAI's words and code — and the run compacts, sized on the
// limit the provider stated, and retries the call; it escalates `saturation` only when the
// compacted context itself is refused, saying what was compacted and the sizes.

const LIMIT = 6;
let stack: AgentStack;
useAgentStack((started) => (stack = started));

/** ~55k tokens (219 kB) of background notes in 16 facts, each within a launch's 16 KiB per fact. */
const NOTE_KEYS = Array.from({ length: 16 }, (_, k) => `notes:background-${k}`);
const NOTES: Record<string, string> = Object.fromEntries(
  NOTE_KEYS.map((key, k) => [key, Array.from({ length: 310 }, (_, i) => `note ${k}.${i}: background on package metadata`).join("\n")]),
);
const NOTES_BYTES = JSON.stringify(NOTES).length;

const factsOf = (cp: Checkpoint) => cp.workingSet as Record<string, unknown>;
const referencedKeysOf = (cp: Checkpoint) => Object.keys(factsOf(cp)).filter((k) => isFactReference(factsOf(cp)[k]));
const stateBytes = (cp: Checkpoint) => JSON.stringify({ workingSet: cp.workingSet, completedSteps: cp.completedSteps }).length;

async function launch(label: string) {
  // A window far larger than the provider's real limit: the profile cannot know it, only the refusal says it.
  const profile = await createTestProfile(stack.db, label, { contextWindow: 100_000, saturationRatio: 0.8, checkpointEverySteps: 1_000, autoResumeMax: 0 });
  return stack.launch({ input: { demo: { kind: "license-audit", limit: LIMIT }, profile, facts: NOTES }, actor: "refusal-test" });
}

/** The refusals the run's model calls met: the prompt the provider counted and the limit it stated, oldest first. */
async function refusals(runId: string) {
  const rows = await stack.db.modelCall.findMany({ where: { runId, status: "error" }, orderBy: { createdAt: "asc" }, select: { stepId: true, error: true } });
  return rows.map((r) => ({ stepId: r.stepId, ...parseContextLimit(r.error ?? "") }));
}

/** A `scripted-notes` profile (24 large notes, one a turn) saturating at 80 % of `contextWindow`, without auto-resume. */
function notesProfile(label: string, o: { contextWindow: number; checkpointEverySteps: number }) {
  return createTestProfile(stack.db, label, { model: "scripted-notes", saturationRatio: 0.8, autoResumeMax: 0, ...o });
}

/** The run a resume started: the task's run other than `runId` (waits up to 60 s). */
function resumedRun(taskId: string, runId: string) {
  return waitFor("the resumed run", async () => (await stack.db.run.findFirst({ where: { taskId, id: { not: runId } } })) ?? undefined, 60_000, 50);
}

/** The task's status once run `runId` has ended (waits up to `ms`). */
function endOfRun(taskId: string, runId: string, ms: number) {
  return waitFor(
    "the resumed run to end",
    async () => {
      // The run first: its end commits with the task's status, so a task read after an ended run
      // sees that status (read the other way round, a run ending between the reads gave "running").
      const r = await stack.db.run.findUniqueOrThrow({ where: { id: runId } });
      if (r.status === "running") return undefined;
      return (await stack.db.task.findUniqueOrThrow({ where: { id: taskId } })).status;
    },
    ms,
    50,
  );
}

describe("saturation, end to end", () => {
  it("a mid-run refusal compacts to the stated limit, retries the call, and the run completes without escalation", async () => {
    // The same task without a fault first: its prompts, to choose a limit the run outgrows mid-way.
    const probe = await launch("refusal-probe");
    expect(await stack.waitForTaskStatus(probe.taskId, undefined, 120_000)).toBe("completed");
    const prompts = (await stack.db.modelCall.findMany({ where: { runId: probe.runId, cause: "productive" }, select: { promptTokens: true } }))
      .map((c) => c.promptTokens)
      .sort((a, b) => a - b);
    expect(prompts.length).toBeGreaterThanOrEqual(3);
    const limit = prompts[1]!; // the first two turns fit; the third prompt is refused
    expect(prompts[2]!).toBeGreaterThan(limit);

    await stack.armFaults({ kind: "context_length", maxPromptTokens: limit, style: "openai", count: 1_000 });
    try {
      const { taskId, runId } = await launch("refusal-mid-run");
      const status = await stack.waitForTaskStatus(taskId, undefined, 120_000);
      if (status !== "completed")
        console.error("escalations:", JSON.stringify(await stack.db.escalation.findMany({ where: { taskId }, select: { reason: true, message: true } })));
      expect(status).toBe("completed");
      expect(await stack.db.escalation.count({ where: { taskId } })).toBe(0);
      const ev = await loadRunEvidence(stack.db, { taskId, runId });
      expect(ev.csv).toBe(await expectedLicenseCsv(WORKSPACE, LIMIT));

      // One refusal, mid-run (not at the first turn), and nothing refused after the compaction.
      const refused = await refusals(runId);
      expect(refused).toHaveLength(1);
      const [{ stepId: refusedStep, limitTokens, promptTokens }] = refused as [(typeof refused)[0]];
      expect(refusedStep).not.toBe("model-0");
      expect(limitTokens).toBe(limit);
      const n = Number(refusedStep.slice("model-".length));
      // The state as it stood was saved whole (checkpoint-<n>), then compacted (compact-<n>) into the checkpoint the call was retried from.
      // (model-<n> is the same step, retried in the next segment: it ends completed.)
      const steps = ev.steps.map((s) => `${s.stepId} ${s.status}`);
      expect(steps).toEqual(expect.arrayContaining([`checkpoint-${n} completed`, `compact-${n} completed`, `model-${n} completed`]));
      expect(steps.indexOf(`checkpoint-${n} completed`)).toBeLessThan(steps.indexOf(`compact-${n} completed`));
      const whole = await stack.db.checkpoint.findFirstOrThrow({ where: { runId, afterStepId: { startsWith: "tool-" }, reason: "saturation" } });
      expect(NOTE_KEYS.every((key) => typeof factsOf(whole)[key] === "string")).toBe(true);
      const compacted = await stack.db.checkpoint.findFirstOrThrow({ where: { runId, afterStepId: `compact-${n}` } });
      expect({ reason: compacted.reason, nextTurn: compacted.nextTurn }).toEqual({ reason: "saturation", nextTurn: n });
      const compact = ev.steps.find((s) => s.stepId === `compact-${n}`)!;
      const sizes = (compact.output as { sizes: Record<string, number> }).sizes;
      // Sized on the stated limit, not the profile's 100k window; "before" is the refused prompt as measured.
      expect(sizes).toMatchObject({ contextWindow: 100_000, providerLimitTokens: limit, limitTokens: Math.floor(limit * 0.8) });
      expect(Math.abs(sizes.beforeTokens! - promptTokens!)).toBeLessThanOrEqual(Math.ceil(promptTokens! * 0.02));
      expect(sizes.afterTokens!).toBeLessThanOrEqual(Math.floor(limit * 0.8));
      expect(compacted.summary).toMatch(
        new RegExp(
          `^Compacted to fit the provider's stated ${limit}-token limit after the provider refused the context: ${sizes.beforeTokens} → ${sizes.afterTokens} prompt tokens`,
        ),
      );
      const refs = NOTE_KEYS.filter((key) => isFactReference(factsOf(compacted)[key]));
      expect(refs.length).toBeGreaterThan(0);
      for (const key of refs) expect((factsOf(compacted)[key] as { $ref: string }).$ref).toBe(`checkpoint ${whole.id}, workingSet."${key}"`);
      // The retried call and every later one fitted the provider's limit.
      const later = await stack.db.modelCall.findMany({
        where: { runId, status: "ok", stepId: { startsWith: "model-" } },
        select: { stepId: true, promptTokens: true },
      });
      const after = later.filter((c) => Number(c.stepId.slice("model-".length)) >= n);
      expect(after.map((c) => c.stepId)).toContain(`model-${n}`);
      expect(after.filter((c) => c.promptTokens > limit)).toEqual([]);

      // Checkpoints after the compaction keep the references: none stores a referenced note whole again.
      const cps = await stack.db.checkpoint.findMany({ where: { taskId }, orderBy: { seq: "asc" } });
      const since = cps.filter((c) => c.seq >= compacted.seq);
      for (const cp of since) for (const key of refs) expect(isFactReference(factsOf(cp)[key]), `${cp.afterStepId} ${key}`).toBe(true);
      console.info(
        JSON.stringify({
          limit,
          notesBytes: NOTES_BYTES,
          checkpoints: cps.map((c) => ({ seq: c.seq, reason: c.reason, after: c.afterStepId, bytes: stateBytes(c), tokens: c.contextTokens })),
        }),
      );
      for (const cp of since) expect(stateBytes(cp)).toBeLessThan(stateBytes(whole) / 2);
      // The facts a segment from the compacted checkpoint adds are only those recorded after it.
      const added = await runFacts({ prisma: stack.db, runId, afterCheckpointId: compacted.id });
      const rows = await stack.db.fact.findMany({ where: { runId, createdAt: { gt: compacted.createdAt } }, select: { key: true } });
      expect(Object.keys(added).sort()).toEqual([...new Set(rows.map((r) => r.key))].sort());
      expect(Object.keys(added).length).toBeLessThan(Object.keys(await runFacts({ prisma: stack.db, runId })).length);
    } finally {
      await disarmFaults(stack);
    }
  });

  it("a refusal of the compacted context escalates saturation once, truthfully; a resume that now fits goes on", async () => {
    // A provider that states 20,000 tokens but refuses anything over 3,000: compaction to its stated
    // limit cannot satisfy it, so the compacted context is refused too.
    await stack.armFaults({ kind: "context_length", maxPromptTokens: 3_000, statedLimitTokens: 20_000, style: "openai", count: 1_000 });
    let taskId: string;
    let runId: string;
    try {
      ({ taskId, runId } = await launch("refusal-compacted"));
      expect(await stack.waitForTaskStatus(taskId, undefined, 120_000)).toBe("waiting_for_human");
    } finally {
      await disarmFaults(stack);
    }
    const run = await stack.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect({ status: run.status, endReason: run.endReason }).toEqual({ status: "escalated", endReason: "saturation" });
    const escalations = await stack.db.escalation.findMany({ where: { taskId } });
    expect(escalations).toHaveLength(1);
    const [escalation] = escalations as [(typeof escalations)[0]];
    expect(escalation.reason).toBe("saturation");

    // First refusal: the start (model-0), compacted to the stated limit (compact-0); the retried call refused again.
    const refused = await refusals(runId);
    expect(refused.map((r) => `${r.stepId} ${r.limitTokens}`)).toEqual(["model-0 20000", "model-0 20000"]);
    const compacted = await stack.db.checkpoint.findFirstOrThrow({ where: { runId, afterStepId: "compact-0" } });
    expect(escalation.checkpointId).toBe(compacted.id);
    const sizes = escalation.evidence as {
      beforeTokens: number;
      afterTokens: number;
      limitTokens: number;
      referencedFacts: number;
      refusedPromptTokens: number;
    };
    expect(sizes).toMatchObject({ limitTokens: 16_000, providerLimitTokens: 20_000, afterTokens: compacted.contextTokens });
    expect(Math.abs(sizes.beforeTokens - refused[0]!.promptTokens!)).toBeLessThanOrEqual(Math.ceil(refused[0]!.promptTokens! * 0.02));
    expect(sizes.referencedFacts).toBeGreaterThan(0);
    expect(escalation.message).toBe(
      `The provider refused the compacted context: it was compacted from ${sizes.beforeTokens} to ${sizes.afterTokens} tokens (${sizes.referencedFacts} large fact(s) made references and the completed steps folded; limit 16000, sized on the provider's stated 20000-token limit) and the ${sizes.refusedPromptTokens}-token prompt was still too long (the provider states a limit of 20000 tokens, ${refused[1]!.promptTokens} prompt tokens by its count). Give the task a model with a larger window, or remove facts. Provider: ${escalation.message.split("Provider: ")[1]}`,
    );
    expect(sizes.beforeTokens).toBeGreaterThan(sizes.afterTokens);

    // Resumed once the provider accepts the compacted context (e.g. a larger model): no escalation again, it completes.
    await stack.decide({ input: { escalationId: escalation.id, decision: "resume" }, actor: "refusal-handler" });
    const resumed = await resumedRun(taskId, runId);
    expect(resumed.fromCheckpointId).toBe(compacted.id);
    const status = await endOfRun(taskId, resumed.id, 120_000);
    expect(status).toBe("completed");
    expect(await stack.db.escalation.count({ where: { taskId } })).toBe(1);
    const ev = await loadRunEvidence(stack.db, { taskId, runId: resumed.id });
    expect(ev.csv).toBe(await expectedLicenseCsv(WORKSPACE, LIMIT));
    expect(ev.steps.filter((s) => s.stepId.startsWith("compact-"))).toEqual([]);
  });

  it("24 large facts recorded against a 20k window: checkpoints keep the references, compaction does not repeat every segment", async () => {
    const profile = await notesProfile("notes-20k", { contextWindow: 20_000, checkpointEverySteps: 8 });
    const { taskId, runId } = await stack.launch({ input: { goal: `Record ${NOTES_COUNT} background notes, then finish.`, profile }, actor: "notes-test" });
    const status = await stack.waitForTaskStatus(taskId, undefined, 240_000);
    if (status !== "completed")
      console.error("escalations:", JSON.stringify(await stack.db.escalation.findMany({ where: { taskId }, select: { reason: true, message: true } })));
    expect(status).toBe("completed");
    const cps = await stack.db.checkpoint.findMany({ where: { taskId }, orderBy: { seq: "asc" } });
    const run = await stack.db.run.findUniqueOrThrow({ where: { id: runId } });
    const compactions = cps.filter((c) => c.afterStepId.startsWith("compact-"));
    const figures = cps.map((c) => ({ seq: c.seq, reason: c.reason, after: c.afterStepId, bytes: stateBytes(c), tokens: c.contextTokens }));
    console.info(JSON.stringify({ segments: run.segments, compactions: compactions.length, checkpoints: figures }));
    // Every note is in the run's final working set (the last checkpoint plus the facts recorded
    // after it) — whole, or as a reference.
    const last = cps.at(-1)!;
    const final = { ...factsOf(last), ...(await runFacts({ prisma: stack.db, runId, afterCheckpointId: last.id })) };
    const keys = Array.from({ length: NOTES_COUNT }, (_, n) => `notes:${String(n).padStart(2, "0")}`);
    expect(keys.filter((k) => !(k in final))).toEqual([]);
    const whole = keys.filter((k) => final[k] === noteText(Number(k.slice(6))));
    const referenced = keys.filter((k) => isFactReference(final[k]));
    expect(whole.length + referenced.length).toBe(NOTES_COUNT);
    expect(referenced.length).toBeGreaterThan(0);
    // A note a checkpoint holds as a reference stays a reference in every later checkpoint.
    for (let i = 1; i < cps.length; i++) {
      const was = referencedKeysOf(cps[i - 1]!);
      expect(
        was.filter((k) => !isFactReference(factsOf(cps[i]!)[k])),
        `${cps[i]!.afterStepId} stores a referenced fact whole again`,
      ).toEqual([]);
    }
    // No checkpoint grows toward the whole run (24 × 9 kB), and not every segment compacts again.
    const allNotes = keys.reduce((sum, k) => sum + JSON.stringify(noteText(Number(k.slice(6)))).length, 0);
    expect(Math.max(...figures.map((f) => f.bytes))).toBeLessThan(allNotes / 2);
    expect(compactions.length).toBeLessThan(run.segments / 2);
  });

  it("24 large facts against a provider that states 20,000 tokens: one refusal, then the run works inside the stated limit", async () => {
    const profile = await notesProfile("notes-stated", { contextWindow: 100_000, checkpointEverySteps: 8 });
    await stack.armFaults({ kind: "context_length", maxPromptTokens: 20_000, style: "openai", count: 1_000 });
    let taskId: string;
    let runId: string;
    try {
      ({ taskId, runId } = await stack.launch({ input: { goal: `Record ${NOTES_COUNT} background notes, then finish.`, profile }, actor: "notes-test" }));
      const status = await stack.waitForTaskStatus(taskId, undefined, 240_000);
      if (status !== "completed")
        console.error("escalations:", JSON.stringify(await stack.db.escalation.findMany({ where: { taskId }, select: { reason: true, message: true } })));
      expect(status).toBe("completed");
    } finally {
      await disarmFaults(stack);
    }
    // The profile says 100k; only the first refusal told the run the real limit. Every later segment
    // (from interval and saturation checkpoints too, not only the compacted one) stayed inside it.
    expect((await refusals(runId)).map((r) => r.limitTokens)).toEqual([20_000]);
    const run = await stack.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run.segments).toBeGreaterThan(3);
    const prompts = await stack.db.modelCall.findMany({ where: { runId, status: "ok" }, select: { promptTokens: true } });
    expect(prompts.filter((c) => c.promptTokens > 20_000)).toEqual([]);
    const compacts = await stack.db.step.findMany({ where: { runId, stepId: { startsWith: "compact-" } }, select: { output: true } });
    expect(compacts.length).toBeGreaterThan(1);
    for (const c of compacts) expect((c.output as { sizes: { limitTokens: number } }).sizes.limitTokens).toBe(16_000);
  });

  it("a resume sizes its compaction on the limit an earlier run's refusal stated, and is not refused again", async () => {
    const profile = await notesProfile("notes-resume", { contextWindow: 100_000, checkpointEverySteps: 1_000 });
    await stack.armFaults({ kind: "context_length", maxPromptTokens: 20_000, style: "openai", count: 1_000 });
    try {
      // 26 budget steps (13 turns of a note each): the run meets the provider's refusal (~20k tokens of
      // notes) and stops at the step ceiling with notes left to record.
      const { taskId, runId } = await stack.launch({
        input: { goal: `Record ${NOTES_COUNT} background notes, then finish.`, profile, stepBudget: 26 },
        actor: "notes-test",
      });
      expect(await stack.waitForTaskStatus(taskId, undefined, 240_000)).toBe("waiting_for_human");
      expect((await refusals(runId)).map((r) => r.limitTokens)).toEqual([20_000]);
      const escalation = await stack.db.escalation.findFirstOrThrow({ where: { taskId } });
      expect(escalation.reason).toBe("budget");

      // The resume is a new run, from the ceiling's checkpoint (not a compaction's): only the task's
      // history knows the provider's limit.
      await stack.decide({ input: { escalationId: escalation.id, decision: "resume", budgetIncrease: { steps: 200 } }, actor: "refusal-handler" });
      const resumed = await resumedRun(taskId, runId);
      const from = await stack.db.checkpoint.findUniqueOrThrow({ where: { id: resumed.fromCheckpointId! } });
      expect(from.afterStepId.startsWith("compact-")).toBe(false);
      const status = await endOfRun(taskId, resumed.id, 240_000);
      expect(status).toBe("completed");
      // Not refused again: the resumed run worked inside the stated limit from its start, and its first
      // compaction was sized on it (16,000 = 0.8 × 20,000), not on the profile's 100k window.
      expect(await refusals(resumed.id)).toEqual([]);
      const prompts = await stack.db.modelCall.findMany({ where: { runId: resumed.id, status: "ok" }, select: { promptTokens: true } });
      expect(prompts.filter((c) => c.promptTokens > 20_000)).toEqual([]);
      const compacts = await stack.db.step.findMany({
        where: { runId: resumed.id, stepId: { startsWith: "compact-" } },
        orderBy: { index: "asc" },
        select: { output: true },
      });
      expect(compacts.length).toBeGreaterThan(0);
      expect((compacts[0]!.output as { sizes: Record<string, unknown> }).sizes).toMatchObject({
        contextWindow: 100_000,
        providerLimitTokens: 20_000,
        limitTokens: 16_000,
        refusal: null,
      });
    } finally {
      await disarmFaults(stack);
    }
  });
});
