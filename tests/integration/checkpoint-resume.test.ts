import { describe, expect, it } from "vitest";
import { startSegment, type SegmentStart } from "../../server/db/checkpoint-repository.ts";
import type { Checkpoint } from "../../server/db/generated/client.ts";
import { buildInitialMessages } from "../../server/domain/agent-context.ts";
import { resumeTask } from "../../server/domain/resume-task.ts";
import { AppError } from "../../server/errors.ts";
import { AGENT_STEP_RETRIES } from "../../server/inngest/functions/agent-run.ts";
import { countTokens } from "../../server/llm/tokens.ts";
import type { ChatMessage } from "../../server/llm/types.ts";
import { expectedLicenseCsv } from "../../server/tools/demo/license-audit.ts";
import { toolDefinitions } from "../../server/tools/registry.ts";
import { findExecutorRuns, loadRunEvidence, waitFor, WORKSPACE, type AgentStack } from "../support/agent-stack.ts";
import { canonicalJson, createTestProfile, disarmFaults, launchDemoWithProfile, testResumePorts, waitForRunEnd } from "../support/checkpoint-helpers.ts";
import { useAgentStack } from "../support/fixtures.ts";

// Resume from a checkpoint on the real pieces (app process serving agent-run, executor process,
// scripted model server, test PostgreSQL): a run failed by persistent 429s resumes — by hand or
// automatically — from its checkpoint, does not execute again the tool calls the checkpoint covers,
// starts from a prompt built from the checkpoint alone, and two concurrent resumes make one run.

const LIMIT = 12;
/** Model requests the scripted audit of LIMIT packages makes up to its checkpoint after tool-4-9 (4 turns and the checkpoints' summary calls); measured, and fixed by the scripted agent. */
const REQUESTS_TO_CHECKPOINT = 7;
let stack: AgentStack;
useAgentStack((started) => (stack = started));

/** A checkpoint's working set. */
const factsOf = (cp: Checkpoint) => cp.workingSet as Record<string, unknown>;

/**
 * Launches the demo with `checkpointEverySteps: 10` and `autoResumeMax`, waits for a checkpoint taken
 * after the package selection and some licenses were recorded, then arms exactly enough 429s for the
 * next model step to exhaust its retries: the run ends failed/transient. Returns the ids and that checkpoint.
 */
async function runFailedBy429s(label: string, autoResumeMax: number) {
  const profile = await createTestProfile(stack.db, label, { checkpointEverySteps: 10, autoResumeMax });
  // Armed before the launch, at a known point of the deterministic scripted audit (no race with the
  // run): its first REQUESTS_TO_CHECKPOINT model requests are answered, and the next one — the turn
  // after that checkpoint — fails with every retry.
  await stack.armFaults({ kind: "429", count: AGENT_STEP_RETRIES + 1, retryAfterSeconds: 0, skip: REQUESTS_TO_CHECKPOINT });
  const { taskId, runId } = await launchDemoWithProfile(stack, { limit: LIMIT, profile });
  const failed = await waitForRunEnd(stack.db, runId);
  await disarmFaults(stack);
  const rows = await stack.db.checkpoint.findMany({ where: { taskId, runId }, orderBy: { seq: "asc" } });
  const checkpoint = rows.findLast((c) => "audit:packages" in factsOf(c) && Object.keys(factsOf(c)).some((k) => k.startsWith("license:")));
  expect(checkpoint, "a checkpoint with the selection and some licenses before the 429s").toBeDefined();
  return { taskId, runId, profile, checkpoint: checkpoint!, failed };
}

/**
 * The tool calls of `runId` repeated by `laterRunId` (same tool, same arguments), except reading the
 * package.json of a package whose license the checkpoint does not hold yet (the agent needs it again).
 */
async function repeatedToolCalls({ runId, laterRunId, checkpoint }: { runId: string; laterRunId: string; checkpoint: Checkpoint }) {
  const before = await stack.db.step.findMany({
    where: { runId, kind: "tool", index: { lt: checkpoint.nextIndex } },
    select: { stepId: true, tool: true, arguments: true, attempts: true },
  });
  const after = await stack.db.step.findMany({ where: { runId: laterRunId, kind: "tool" }, select: { stepId: true, tool: true, arguments: true } });
  const done = new Set(before.map((s) => `${s.tool} ${canonicalJson(s.arguments)}`));
  const needed = (s: { tool: string | null; arguments: unknown }) => {
    const path = (s.arguments as { path?: string } | null)?.path ?? "";
    const name = /^node_modules\/(.+)\/package\.json$/.exec(path)?.[1];
    return s.tool === "read_file" && name !== undefined && !(`license:${name}` in factsOf(checkpoint));
  };
  return {
    before,
    repeated: after
      .filter((s) => done.has(`${s.tool} ${canonicalJson(s.arguments)}`) && !needed(s))
      .map((s) => `${s.stepId} ${s.tool} ${canonicalJson(s.arguments)}`),
    after,
  };
}

/** What the scenario of the manual resume left behind (run once, read by several tests). */
interface ResumeScenario {
  taskId: string;
  runId: string;
  checkpoint: Checkpoint;
  failed: Awaited<ReturnType<typeof runFailedBy429s>>["failed"];
  runsBeforeResume: number;
  taskStatusBeforeResume: string;
  outcomes: PromiseSettledResult<{ runId: string; checkpointId: string | null }>[];
  newRunId: string;
  /** What the new run's first segment starts from and the messages built from it, read before its event was sent. */
  captured: { start: SegmentStart; messages: ChatMessage[] };
}

let manual: Promise<ResumeScenario> | undefined;
/** Fails a run by 429s (no auto-resume), then resumes it twice at once; waits for the new run to end. */
function manualResume(): Promise<ResumeScenario> {
  manual ??= (async () => {
    const { taskId, runId, failed, checkpoint: seen } = await runFailedBy429s("cp-resume", 0);
    expect(await stack.waitForExecutorRun(runId)).toBe("completed");
    const runsBeforeResume = await stack.db.run.count({ where: { taskId } });
    const taskStatusBeforeResume = (await stack.db.task.findUniqueOrThrow({ where: { id: taskId } })).status;
    const latest = await stack.db.checkpoint.findFirstOrThrow({ where: { taskId, good: true }, orderBy: { seq: "desc" } });
    expect(latest.seq).toBeGreaterThanOrEqual(seen.seq);

    let captured: ResumeScenario["captured"] | undefined;
    const ports = testResumePorts(stack, async ({ taskId: t, runId: r, checkpointId }) => {
      // The new Run row exists and nothing of it ran yet: this is what its first segment will read.
      const start = await startSegment({ prisma: stack.db, taskId: t, runId: r, checkpointId });
      const messages = buildInitialMessages({
        systemPrompt: start.profile.systemPrompt,
        goal: start.goal,
        workingSet: start.workingSet,
        completedSteps: start.completedSteps,
        openQuestion: start.openQuestion,
        guidance: start.guidance,
      });
      captured = { start, messages };
    });
    const outcomes = await Promise.allSettled([
      resumeTask({ taskId, cause: "resume", actor: "checkpoint-test-a", ports }),
      resumeTask({ taskId, cause: "resume", actor: "checkpoint-test-b", ports }),
    ]);
    const won = outcomes.find((o) => o.status === "fulfilled");
    expect(won, `one resume succeeds: ${JSON.stringify(outcomes.map((o) => (o.status === "rejected" ? String(o.reason) : o.value)))}`).toBeDefined();
    const newRunId = won!.value.runId;
    await waitForRunEnd(stack.db, newRunId, 90_000);
    expect(await stack.waitForExecutorRun(newRunId)).toBe("completed");
    return { taskId, runId, checkpoint: latest, failed, runsBeforeResume, taskStatusBeforeResume, outcomes, newRunId, captured: captured! };
  })();
  return manual;
}

describe("resume from a checkpoint", () => {
  it("a run failed by persistent 429s resumes from its checkpoint without executing the tool calls before it again", async () => {
    const s = await manualResume();
    expect(s.failed).toMatchObject({ status: "failed", endReason: "transient", cause: "initial" });
    expect(s.failed.error).toMatch(/\[rate_limited\]/);
    expect(s.taskStatusBeforeResume).toBe("failed");
    expect(s.runsBeforeResume).toBe(1); // autoResumeMax 0: nothing resumed on its own

    // The first run: the model step that met the 429s used up its retries; every other step ran once.
    const firstSteps = await stack.db.step.findMany({ where: { runId: s.runId }, select: { stepId: true, kind: true, attempts: true } });
    expect(firstSteps.filter((x) => x.attempts !== 1).map((x) => `${x.stepId} ${x.kind} ×${x.attempts}`)).toEqual([
      expect.stringMatching(new RegExp(`^model-\\d+ model ×${AGENT_STEP_RETRIES + 1}$`)),
    ]);
    const rateLimited = await stack.db.modelCall.count({ where: { runId: s.runId, httpStatus: 429 } });
    expect(rateLimited).toBe(AGENT_STEP_RETRIES + 1);

    // The new run: cause resume, from the task's latest checkpoint, completed; the task completed.
    const run = await stack.db.run.findUniqueOrThrow({ where: { id: s.newRunId } });
    expect(run).toMatchObject({ status: "completed", cause: "resume", fromCheckpointId: s.checkpoint.id });
    const ev = await loadRunEvidence(stack.db, { taskId: s.taskId, runId: s.newRunId });
    expect(ev.task.status).toBe("completed");
    expect(ev.csv).toBe(await expectedLicenseCsv(WORKSPACE, LIMIT));
    expect(ev.outbox).toHaveLength(1);
    expect(ev.sideEffects).toMatchObject([{ tool: "send_email", status: "committed", repeats: 0 }]);

    // Nothing the checkpoint covers ran again: every tool step before it ran once, the new run repeats none
    // of them (only reads of package.json files whose license was not recorded yet), and records no fact
    // the checkpoint already held.
    const { before, repeated, after } = await repeatedToolCalls({ runId: s.runId, laterRunId: s.newRunId, checkpoint: s.checkpoint });
    expect(before.length).toBeGreaterThan(10);
    expect(before.filter((x) => x.attempts !== 1).map((x) => x.stepId)).toEqual([]);
    expect(repeated).toEqual([]);
    // (the comparison is not vacuous: held against the first run itself, it finds the calls)
    expect((await repeatedToolCalls({ runId: s.runId, laterRunId: s.runId, checkpoint: s.checkpoint })).repeated.length).toBeGreaterThan(10);
    // The checkpoint resumed from covers every tool call of the failed run (a failure checkpoint takes the rest).
    expect(await stack.db.step.count({ where: { runId: s.runId, kind: "tool", index: { gte: s.checkpoint.nextIndex } } })).toBe(0);
    const reRecorded = after.filter((x) => x.tool === "record_fact" && (x.arguments as { key: string }).key in factsOf(s.checkpoint));
    expect(reRecorded.map((x) => x.stepId)).toEqual([]);
    expect(ev.steps.filter((x) => x.attempts !== 1).map((x) => x.stepId)).toEqual([]);
    // The new run's turns continue the checkpoint's numbering.
    expect(ev.steps[0]?.stepId).toBe(`model-${s.checkpoint.nextTurn}`);
  });

  it("the resumed run's first prompt is the checkpoint, with none of the old transcript", async () => {
    const s = await manualResume();
    const { start, messages } = s.captured;
    expect(start.checkpointId).toBe(s.checkpoint.id);

    // What the function really started from (its memoized `start` step) is what was captured.
    const [firstSegment] = await findExecutorRuns(stack.db, s.newRunId);
    const memo = await stack.db.executorStepResult.findFirstOrThrow({ where: { runId: firstSegment!.id, name: "start" } });
    const used = (memo.value as unknown as { data: SegmentStart }).data;
    expect(used.workingSet).toEqual(start.workingSet);
    expect(used.completedSteps).toEqual(start.completedSteps);
    expect(used.openQuestion).toEqual(start.openQuestion);

    // System prompt + one task message: the goal verbatim, the checkpoint's facts, its completed steps.
    expect(messages.map((m) => m.role)).toEqual(["system", "user"]);
    const task = messages[1]!.content as string;
    const goal = (await stack.db.task.findUniqueOrThrow({ where: { id: s.taskId } })).goal;
    expect(task).toContain(`<goal>${goal}</goal>`);
    const workingSet = JSON.parse(/<working_set>([\s\S]*?)<\/working_set>/.exec(task)?.[1] ?? "null") as unknown;
    expect(workingSet).toEqual(factsOf(s.checkpoint));
    expect(task).toContain("<completed_steps>");
    // None of the old run's tool results is in it (the package.json texts it read, the listings).
    const oldOutputs = await stack.db.step.findMany({
      where: { runId: s.runId, kind: "tool", tool: { in: ["read_file", "list_files"] } },
      select: { stepId: true, output: true },
    });
    expect(oldOutputs.length).toBeGreaterThan(0);
    const leaked = oldOutputs.filter((o) => {
      const out = o.output as { content?: string; entries?: unknown[] } | null;
      const text = out?.content ?? (out?.entries && out.entries.length > 0 ? JSON.stringify(out.entries) : "");
      return text.length > 40 && task.includes(text);
    });
    expect(leaked.map((o) => o.stepId)).toEqual([]);

    // The provider counted exactly these messages (+ tool schemas): no transcript went out with them.
    const firstCall = await stack.db.modelCall.findFirstOrThrow({ where: { runId: s.newRunId, cause: "productive" }, orderBy: { createdAt: "asc" } });
    expect(firstCall.stepId).toBe(`model-${s.checkpoint.nextTurn}`);
    expect(firstCall.promptTokens).toBe(countTokens(messages, toolDefinitions(start.profile.tools)));
    // … far below the old run's last prompt and the transcript the checkpoint replaced.
    const oldLast = await stack.db.modelCall.findFirstOrThrow({ where: { runId: s.runId, cause: "productive" }, orderBy: { createdAt: "desc" } });
    expect(firstCall.promptTokens).toBeLessThan(oldLast.promptTokens);
    expect(firstCall.promptTokens * 2).toBeLessThan(s.checkpoint.transcriptTokens);
  });

  it("two concurrent resumes of a failed task make exactly one new run; the other gets CONFLICT", async () => {
    const s = await manualResume();
    const fulfilled = s.outcomes.filter((o) => o.status === "fulfilled");
    const rejected = s.outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected");
    expect(fulfilled).toHaveLength(1);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.reason).toBeInstanceOf(AppError);
    expect((rejected[0]!.reason as AppError).code).toBe("CONFLICT");
    const runs = await stack.db.run.findMany({ where: { taskId: s.taskId }, orderBy: { startedAt: "asc" }, select: { id: true, cause: true } });
    expect(runs).toEqual([
      { id: s.runId, cause: "initial" },
      { id: s.newRunId, cause: "resume" },
    ]);
    // One executor run chain for the new run, none for the losing attempt.
    const events = await stack.db.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM executor_run WHERE event->>'name' = 'longhaul/run.started' AND event->'data'->>'taskId' = ${s.taskId}`;
    expect(Number(events[0]!.n)).toBe(2);
  });

  it("persistent 429s on a checkpoint's summary call: the checkpoint is assembled without it and the run completes", async () => {
    const every = 10;
    const profile = await createTestProfile(stack.db, "cp-summary-429", { checkpointEverySteps: every, autoResumeMax: 0 });
    const { taskId, runId } = await launchDemoWithProfile(stack, { limit: LIMIT, profile });
    // The first turn whose tool calls bring the run to `every` steps: the model request after its tool
    // calls is the first checkpoint's summary. Arm the 429s while those tool calls run.
    const turn = await waitFor(
      "the turn that reaches the checkpoint interval to run its tools",
      async () => {
        const models = await stack.db.step.findMany({
          where: { runId, kind: "model", status: "completed" },
          orderBy: { index: "asc" },
          select: { stepId: true, output: true },
        });
        let steps = 0;
        for (const m of models) {
          steps += 1 + ((m.output as { toolCalls?: unknown[] } | null)?.toolCalls?.length ?? 0);
          if (steps >= every) return m.stepId.slice("model-".length);
        }
        return undefined;
      },
      60_000,
      10,
    );
    await stack.armFaults({ kind: "429", count: AGENT_STEP_RETRIES + 1, retryAfterSeconds: 0 });
    const stepId = `checkpoint-${Number(turn) + 1}`;
    // Done when the run ends, or when its executor runs failed (a run left "running" for good).
    await waitFor(
      "the run to end or its executor run to fail",
      async () => {
        const run = await stack.db.run.findUniqueOrThrow({ where: { id: runId } });
        const segments = await findExecutorRuns(stack.db, runId);
        return run.status !== "running" || segments.some((x) => x.status === "failed") ? true : undefined;
      },
      90_000,
      100,
    );
    await disarmFaults(stack);
    const calls = await stack.db.modelCall.findMany({ where: { runId, stepId }, orderBy: { createdAt: "asc" }, select: { httpStatus: true } });
    expect(calls.map((c) => c.httpStatus)).toEqual(Array.from({ length: AGENT_STEP_RETRIES + 1 }, () => 429));
    const segments = await findExecutorRuns(stack.db, runId);
    const run = await stack.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect({ failedExecutorRuns: segments.filter((x) => x.status === "failed").length, run: run.status === "running" ? "running" : "ended" }).toEqual({
      failedExecutorRuns: 0,
      run: "ended",
    });
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    const checkpoint = await stack.db.checkpoint.findFirstOrThrow({ where: { runId, nextTurn: Number(turn) + 1 } });
    expect(checkpoint.summary).toContain("assembled without a model summary");
    const ev = await loadRunEvidence(stack.db, { taskId, runId });
    expect(ev.csv).toBe(await expectedLicenseCsv(WORKSPACE, LIMIT));
    expect(ev.outbox).toHaveLength(1);
  });

  it("with autoResumeMax 1 the failed run resumes on its own from the latest checkpoint and completes", async () => {
    const { taskId, runId, failed } = await runFailedBy429s("cp-auto-resume", 1);
    expect(failed).toMatchObject({ status: "failed", endReason: "transient" });
    const auto = await waitFor(
      "a run with cause auto_resume",
      () => stack.db.run.findFirst({ where: { taskId, cause: "auto_resume" } }).then((r) => r ?? undefined),
      30_000,
      50,
    );
    const latest = await stack.db.checkpoint.findFirstOrThrow({ where: { taskId, createdAt: { lte: auto.startedAt } }, orderBy: { seq: "desc" } });
    expect(auto.fromCheckpointId).toBe(latest.id);
    expect(await stack.waitForTaskStatus(taskId, undefined, 90_000)).toBe("completed");
    expect(await stack.waitForExecutorRun(auto.id)).toBe("completed");
    const ev = await loadRunEvidence(stack.db, { taskId, runId: auto.id });
    expect((await stack.db.run.findUniqueOrThrow({ where: { id: auto.id } })).status).toBe("completed");
    expect(await stack.db.run.count({ where: { taskId } })).toBe(2);
    expect(ev.csv).toBe(await expectedLicenseCsv(WORKSPACE, LIMIT));
    expect(ev.outbox).toHaveLength(1);
    const { repeated } = await repeatedToolCalls({ runId, laterRunId: auto.id, checkpoint: latest });
    expect(repeated).toEqual([]);
    expect(ev.steps.filter((x) => x.attempts !== 1).map((x) => x.stepId)).toEqual([]);
  });
});
