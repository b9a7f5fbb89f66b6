import { NonRetriableError, RetryAfterError } from "inngest";
import { describe, expect, it } from "vitest";
import { openAutoResume } from "../../server/agent/auto-resume.ts";
import { modelCallCostUsd } from "../../server/domain/cost.ts";
import { runCheckpointStep, runCompactStep, type CheckpointStart } from "../../server/agent/checkpoint-step.ts";
import { buildInitialMessages, type CompletedStepSummary, type WorkingSet } from "../../server/domain/agent-context.ts";
import { isSaturated } from "../../server/domain/checkpoint.ts";
import type { CheckpointData } from "../../server/agent/ports.ts";
import { runModelStep } from "../../server/agent/model-step.ts";
import type { AgentPorts, ModelCallRecord } from "../../server/agent/ports.ts";
import { runToolStep } from "../../server/agent/tool-step.ts";
import { isFinalModelFailure } from "../../server/agent/model-retry.ts";
import { StepRetryError } from "../../server/errors.ts";
import { inngestErrorForModelCall, toInngestError } from "../../server/inngest/errors.ts";
import { ModelCallError } from "../../server/llm/errors.ts";
import { isLocalBaseUrl, LOCAL_RECONNECT_MS, type ChatCompletionResult } from "../../server/llm/provider.ts";
import { countTokens } from "../../server/llm/tokens.ts";
import { UnresolvedEffectError } from "../../server/tools/ledger.ts";

// The step bodies of server/agent/ over fake ports: what each writes (step rows, model-call rows,
// checkpoints) and returns, without a database, a provider or an executor.

type Call = { method: string; input: unknown };

function fakePorts(overrides: Partial<AgentPorts> = {}): { ports: AgentPorts; calls: Call[]; modelCalls: ModelCallRecord[] } {
  const calls: Call[] = [];
  const modelCalls: ModelCallRecord[] = [];
  const log = (method: string) => async (input: unknown) => {
    calls.push({ method, input });
  };
  const ports: AgentPorts = {
    beginStep: async (input) => {
      calls.push({ method: "beginStep", input });
      return { completedBefore: false };
    },
    endStep: log("endStep"),
    noteStepError: log("noteStepError"),
    discardModelStep: log("discardModelStep"),
    chat: () => Promise.reject(new Error("no chat scripted")),
    // Prices like the ledger does (server/db/cost-repository.ts): the profile's prices, 0 when unbilled.
    recordModelCall: async (r) => {
      modelCalls.push(r);
      return { usd: r.billed ? modelCallCostUsd({ model: r.model, usage: r, prices: PROFILE.prices }).usd : 0 };
    },
    taskSpendUsd: async () => 0.25,
    runRequests: async () => ({ checkpointRequested: false, escalationRequested: null }),
    clearCheckpointRequest: log("clearCheckpointRequest"),
    settleEffectByVerdict: log("settleEffectByVerdict"),
    executeToolCall: async () => ({ ok: true, output: { read: true } }),
    runFacts: async () => ({}),
    saveCheckpoint: async (data) => {
      calls.push({ method: "saveCheckpoint", input: data });
      return { id: "cp_new", seq: 7 };
    },
    recordAlert: log("recordAlert"),
    countAutoResumes: async () => 0,
    resume: async () => ({ runId: "run_2", checkpointId: "cp_1" }),
    ...overrides,
  };
  return { ports, calls, modelCalls };
}

const PROFILE = { model: "gpt-4o-mini", baseUrl: null, prices: { inputPerMTok: 1, cachedPerMTok: 0.5, outputPerMTok: 2 } };
const base = {
  runId: "run_1",
  taskId: "task_1",
  stepId: "model-3",
  index: 9,
  messages: [{ role: "user" as const, content: "hi" }],
  tools: [],
  profile: PROFILE,
  costBudgetUsd: null,
  retries: 4,
};

const result = (over: Partial<ChatCompletionResult> = {}): ChatCompletionResult => ({
  message: { content: null, toolCalls: [{ id: "c1", name: "read_file", arguments: '{"path":"a"}' }] },
  finishReason: "tool_calls",
  usage: { promptTokens: 1_000_000, cachedTokens: 0, completionTokens: 500_000 },
  usageEstimated: false,
  latencyMs: 12,
  httpStatus: 200,
  responseId: null,
  requestId: null,
  ...over,
});

describe("model step", () => {
  it("records one ok model call with its cost and ends the step with the turn's summary", async () => {
    const { ports, calls, modelCalls } = fakePorts({
      chat: async () => result(),
      runRequests: async () => ({ checkpointRequested: true, escalationRequested: null }),
    });
    const turn = await runModelStep({ ports, ...base, attempt: 0 });
    expect(turn).toMatchObject({ ok: true, costUsd: 2, checkpointRequested: true, toolCalls: [{ name: "read_file" }] });
    expect(turn.ok && turn.spendUsd).toBeUndefined();
    expect(modelCalls).toEqual([expect.objectContaining({ status: "ok", cause: "productive", billed: true, stepId: "model-3", attempt: 0 })]);
    expect(calls.find((c) => c.method === "endStep")?.input).toMatchObject({ status: "completed", summary: "read_file" });
  });

  it("runs at the effort the loop chose: the level's model and level go to the provider, the step row and the ledger record them", async () => {
    const sent: unknown[] = [];
    const { ports, calls, modelCalls } = fakePorts({
      chat: async (request) => {
        sent.push({ model: request.model, effort: request.effort });
        return result();
      },
    });
    const effort = { level: "low" as const, model: "gpt-4o-mini-cheap", rule: "mechanical" as const };
    await runModelStep({
      ports,
      ...base,
      attempt: 0,
      effort,
      discards: { stepId: "model-2", reason: "proposed send_email at low effort; asked again at high" },
    });
    expect(sent).toEqual([{ model: "gpt-4o-mini-cheap", effort: "low" }]);
    expect(modelCalls).toEqual([expect.objectContaining({ model: "gpt-4o-mini-cheap", cause: "productive" })]);
    // The discarded turn is marked first, inside the same durable step; then the step begins with its effort.
    expect(calls.slice(0, 2)).toEqual([
      { method: "discardModelStep", input: { runId: "run_1", stepId: "model-2", reason: "proposed send_email at low effort; asked again at high" } },
      { method: "beginStep", input: { runId: "run_1", stepId: "model-3", index: 9, kind: "model", effort } },
    ]);
  });

  it("without an effort policy nothing is sent and nothing recorded", async () => {
    const sent: unknown[] = [];
    const { ports, calls } = fakePorts({
      chat: async (request) => {
        sent.push(request);
        return result();
      },
    });
    await runModelStep({ ports, ...base, attempt: 0 });
    expect(sent[0]).not.toHaveProperty("effort");
    expect(sent[0]).toMatchObject({ model: "gpt-4o-mini" });
    expect(calls[0]).toEqual({ method: "beginStep", input: { runId: "run_1", stepId: "model-3", index: 9, kind: "model", effort: null } });
  });

  it("reads the task's spend only with a dollar ceiling", async () => {
    const { ports } = fakePorts({ chat: async () => result() });
    expect(await runModelStep({ ports, ...base, costBudgetUsd: 1, attempt: 0 })).toMatchObject({ ok: true, spendUsd: 0.25 });
  });

  it("a retryable failure before the last attempt throws a StepRetryError (429: RetryAfterError for Inngest) and leaves the step running", async () => {
    const { ports, calls, modelCalls } = fakePorts({
      chat: () => Promise.reject(new ModelCallError({ kind: "rate_limited", message: "slow down", status: 429, retryAfterMs: 1500 })),
    });
    const thrown = await runModelStep({ ports, ...base, attempt: 1 }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(StepRetryError);
    expect(thrown).toMatchObject({ message: "[rate_limited] slow down", retryAfterMs: 1500, permanent: false });
    expect(toInngestError(thrown)).toBeInstanceOf(RetryAfterError);
    expect(modelCalls.map((c) => `${c.status} ${c.cause}`)).toEqual(["error retry"]);
    expect(calls.map((c) => c.method)).toEqual(["beginStep", "noteStepError"]);
  });

  it.each([
    ["the last attempt of a retryable kind", "server", 4],
    ["a kind that is never retried", "bad_request", 0],
  ] as const)("%s: the step is marked failed with its end and the failure returned", async (_n, kind, attempt) => {
    const { ports, calls } = fakePorts({ chat: () => Promise.reject(new ModelCallError({ kind, message: "nope", status: 400 })) });
    expect(await runModelStep({ ports, ...base, attempt })).toEqual({ ok: false, errorKind: kind, message: "nope" });
    expect(calls.at(-1)).toEqual({
      method: "endStep",
      input: { runId: "run_1", stepId: "model-3", status: "failed", error: `[${kind}] nope`, summary: `model call failed: ${kind}` },
    });
  });

  it.each([
    ["a limit stated (OpenAI's words)", "This model's maximum context length is 8192 tokens. However, your messages resulted in 9012 tokens.", 8_192, 9_012],
    ["no limit stated", "nope", null, null],
  ] as const)(
    "context length exceeded, %s: the failure carries the refused prompt's size and the stated limit",
    async (_n, message, limitTokens, promptTokens) => {
      const kind = "context_length";
      const { ports, calls } = fakePorts({ chat: () => Promise.reject(new ModelCallError({ kind, message, status: 400 })) });
      expect(await runModelStep({ ports, ...base, attempt: 0 })).toEqual({
        ok: false,
        errorKind: kind,
        message,
        promptTokens: countTokens(base.messages, base.tools),
        stated: { limitTokens, promptTokens },
      });
      expect(calls.at(-1)).toEqual({
        method: "endStep",
        input: { runId: "run_1", stepId: "model-3", status: "failed", error: `[${kind}] ${message}`, summary: `model call failed: ${kind}` },
      });
    },
  );
});

describe("tool step", () => {
  const call = { id: "c1", name: "http_post", arguments: '{"url":"https://x"}' };
  const args = { taskId: "task_1", runId: "run_1", workspace: "/w", stepId: "tool-3-0", index: 10, call };

  it("settles a verdict first for a side effect, runs the call, records it", async () => {
    const { ports, calls } = fakePorts();
    expect(await runToolStep({ ports, ...args, fingerprint: "fp" })).toEqual({ ok: true, output: { read: true } });
    expect(calls.map((c) => c.method)).toEqual(["beginStep", "settleEffectByVerdict", "endStep"]);
  });

  it("a refused call is recorded as failed and not run", async () => {
    const { ports, calls } = fakePorts({ executeToolCall: () => Promise.reject(new Error("must not run")) });
    const refused = { ok: false as const, error: { code: "rejected_by_human" as const, message: "no" } };
    expect(await runToolStep({ ports, ...args, fingerprint: "fp", refused })).toBe(refused);
    expect(calls.at(-1)?.input).toMatchObject({ status: "failed", error: "[rejected_by_human] no" });
  });

  it("an unknown outcome becomes the result unresolved_effect", async () => {
    const { ports } = fakePorts({ executeToolCall: () => Promise.reject(new UnresolvedEffectError("k1", "http_post")) });
    const r = await runToolStep({ ports, ...args, fingerprint: null });
    expect(r).toMatchObject({ ok: false, error: { code: "unresolved_effect", idempotencyKey: "k1" } });
  });
});

describe("compact step", () => {
  const start: CheckpointStart = {
    taskId: "task_1",
    runId: "run_1",
    goal: "Audit licenses",
    checkpointId: "cp_1",
    workingSet: { small: 1, huge: "word ".repeat(5_000) },
    completedSteps: Array.from({ length: 40 }, (_, i) => ({
      stepId: `tool-${i}-0`,
      tool: "read_file",
      summary: `read_file {"path":"f${i}"} → ${"x".repeat(100)}`,
    })),
    openQuestion: null,
    guidance: null,
    priorTranscriptTokens: 0,
    profile: { ...PROFILE, systemPrompt: "Be careful.", contextWindow: 2_000 },
  };
  const args = { start, tools: [], stepId: "compact-4", index: 20, nextTurn: 4, nextIndex: 21, beforeTokens: 9_000, usage: { steps: 30, tokens: 1_000 } };

  it("fits: saves a saturation checkpoint with the huge fact as a reference", async () => {
    const { ports, calls } = fakePorts();
    const out = await runCompactStep({ ports, ...args, limitTokens: 1_600 });
    expect(out).toMatchObject({
      fits: true,
      checkpointId: "cp_new",
      sizes: { contextWindow: 2_000, beforeTokens: 9_000, limitTokens: 1_600, referencedFacts: 1 },
    });
    const saved = calls.find((c) => c.method === "saveCheckpoint")!.input as {
      reason: string;
      afterStepId: string;
      workingSet: Record<string, unknown>;
      contextTokens: number;
    };
    expect(saved).toMatchObject({
      reason: "saturation",
      afterStepId: "compact-4",
      workingSet: { small: 1, huge: { $ref: 'checkpoint cp_1, workingSet."huge"', description: "25,002 chars of JSON: a string" } },
    });
    expect(saved.contextTokens).toBeLessThanOrEqual(1_600);
  });

  it("cannot fit: no checkpoint, the step failed, the sizes returned", async () => {
    const { ports, calls } = fakePorts();
    const out = await runCompactStep({ ports, ...args, limitTokens: 10 });
    expect(out.fits).toBe(false);
    expect(out.checkpointId).toBeNull();
    expect(out.sizes.afterTokens).toBeGreaterThan(10);
    expect(calls.map((c) => c.method)).toEqual(["beginStep", "endStep"]);
    expect(calls.at(-1)?.input).toMatchObject({ status: "failed" });
  });
});

describe("compaction after a refusal, and references across checkpoints", () => {
  const huge = (tag: string) => `${tag} `.repeat(2_000);
  const start: CheckpointStart = {
    taskId: "task_1",
    runId: "run_1",
    goal: "Audit licenses",
    checkpointId: "cp_start",
    workingSet: { small: 1, old: huge("old"), kept: { $ref: 'checkpoint cp_0, workingSet."kept"', description: "9,001 chars of JSON: a string" } },
    completedSteps: [{ stepId: "tool-1-0", tool: "read_file", summary: "read_file a → ok" }],
    openQuestion: null,
    guidance: null,
    priorTranscriptTokens: 0,
    profile: { ...PROFILE, systemPrompt: "Be careful.", contextWindow: 20_000 },
  };
  const saved = (calls: Call[]) => calls.filter((c) => c.method === "saveCheckpoint").map((c) => c.input as CheckpointData);

  it("mid-segment (current): compacts the start plus the facts and steps since, referencing the whole checkpoint saved first", async () => {
    const asked: unknown[] = [];
    const { ports, calls } = fakePorts({
      runFacts: async (runId, after) => {
        asked.push([runId, after]);
        return { fresh: huge("fresh") };
      },
    });
    const segmentSteps: CompletedStepSummary[] = [{ stepId: "tool-4-0", tool: "record_fact", summary: "record_fact fresh → ok" }];
    const out = await runCompactStep({
      ports,
      start,
      tools: [],
      stepId: "compact-5",
      index: 12,
      nextTurn: 5,
      nextIndex: 13,
      limitTokens: 1_600,
      beforeTokens: 7_000,
      usage: { steps: 9, tokens: 100 },
      current: { checkpointId: "cp_whole", segmentSteps },
      providerLimitTokens: 2_000,
      refusal: "maximum context length is 2000 tokens",
    });
    expect(asked).toEqual([["run_1", "cp_start"]]);
    expect(out).toMatchObject({
      fits: true,
      sizes: { beforeTokens: 7_000, limitTokens: 1_600, referencedFacts: 2, providerLimitTokens: 2_000, refusal: "maximum context length is 2000 tokens" },
    });
    const [cp] = saved(calls);
    expect(cp!.workingSet).toEqual({
      small: 1,
      old: { $ref: 'checkpoint cp_whole, workingSet."old"', description: expect.any(String) },
      fresh: { $ref: 'checkpoint cp_whole, workingSet."fresh"', description: expect.any(String) },
      // Already a reference: kept as it is (small), never re-pointed.
      kept: start.workingSet.kept,
    });
    expect(cp!.completedSteps.map((c) => c.stepId)).toEqual(["tool-1-0", "tool-4-0"]);
    expect(cp!.summary).toMatch(
      /^Compacted to fit the provider's stated 2000-token limit after the provider refused the context: 7000 → \d+ prompt tokens \(limit 1600\); 2 large fact/,
    );
  });

  it("a checkpoint keeps the start's references: only the facts recorded after the start's checkpoint are added", async () => {
    const asked: unknown[] = [];
    const { ports, calls } = fakePorts({
      runFacts: async (runId, after) => {
        asked.push([runId, after]);
        return { fresh: 2 };
      },
    });
    await runCheckpointStep({
      ports,
      start,
      tools: [],
      stepId: "checkpoint-6",
      index: 14,
      reason: "interval",
      withModel: false,
      messages: [],
      segmentSteps: [],
      usage: { steps: 10, tokens: 100 },
      afterStepId: "tool-5-0",
      nextTurn: 6,
      nextIndex: 15,
      attempt: 0,
      retries: 4,
    });
    expect(asked).toEqual([["run_1", "cp_start"]]);
    expect(saved(calls)[0]!.workingSet).toEqual({ ...start.workingSet, fresh: 2 });
  });

  /**
   * A run of 24 large facts (4 per segment, ~9 kB each — 215 kB in all) against a 20k window, the
   * case that once grew every checkpoint: each segment starts from the last checkpoint, compacts it when it saturates,
   * records 4 facts and checkpoints. `allRunFacts` is the port as it was (every fact of the run,
   * whatever the start holds as a reference); the figures are the bytes of each checkpoint's state.
   */
  async function segments(allRunFacts: boolean) {
    const checkpoints = new Map<string, { data: CheckpointData; at: number }>();
    const facts: { key: string; value: unknown; at: number }[] = [];
    let clock = 0;
    let n = 0;
    const { ports } = fakePorts({
      runFacts: async (_runId, after) => {
        const since = !allRunFacts && after ? checkpoints.get(after)!.at : -1;
        return Object.fromEntries(facts.filter((f) => f.at > since).map((f) => [f.key, f.value]));
      },
      saveCheckpoint: async (data) => {
        const id = `cp_${++n}`;
        checkpoints.set(id, { data, at: ++clock });
        return { id, seq: n };
      },
    });
    const profile = { ...PROFILE, systemPrompt: "Be careful.", contextWindow: 20_000 };
    const startFrom = (id: string): CheckpointStart => {
      const { data, at } = checkpoints.get(id)!;
      const later: WorkingSet = Object.fromEntries(facts.filter((f) => f.at > at).map((f) => [f.key, f.value]));
      return { ...start, checkpointId: id, workingSet: { ...data.workingSet, ...later }, completedSteps: data.completedSteps, profile };
    };
    let from: CheckpointStart = { ...start, checkpointId: null, workingSet: {}, completedSteps: [], profile };
    const bytes: number[] = [];
    const compactions: number[] = [];
    for (let seg = 0; seg < 6; seg++) {
      const tokens = countTokens(buildInitialMessages({ ...from, systemPrompt: profile.systemPrompt }), []);
      if (isSaturated({ promptTokens: tokens, contextWindow: 20_000, ratio: 0.8 })) {
        const out = await runCompactStep({
          ports,
          start: from,
          tools: [],
          stepId: `compact-${seg}`,
          index: 0,
          nextTurn: seg,
          nextIndex: 0,
          limitTokens: 16_000,
          beforeTokens: tokens,
          usage: { steps: 0, tokens: 0 },
        });
        compactions.push(seg);
        from = startFrom(out.checkpointId!);
      }
      const segmentSteps: CompletedStepSummary[] = [];
      for (let k = 0; k < 4; k++) {
        const key = `notes:${seg}-${k}`;
        facts.push({
          key,
          value: Array.from({ length: 200 }, (_, i) => `note ${seg}.${k}.${i}: x`)
            .join("\n")
            .padEnd(8_950, "."),
          at: ++clock,
        });
        segmentSteps.push({ stepId: `tool-${seg}-${k}`, tool: "record_fact", summary: `record_fact ${key} → ok` });
      }
      const cp = await runCheckpointStep({
        ports,
        start: from,
        tools: [],
        stepId: `checkpoint-${seg}`,
        index: 0,
        reason: "interval",
        withModel: false,
        messages: [],
        segmentSteps,
        usage: { steps: 0, tokens: 0 },
        afterStepId: `tool-${seg}-3`,
        nextTurn: seg + 1,
        nextIndex: 0,
        attempt: 0,
        retries: 4,
      });
      const data = checkpoints.get(cp.id)!.data;
      bytes.push(JSON.stringify({ workingSet: data.workingSet, completedSteps: data.completedSteps }).length);
      from = startFrom(cp.id);
    }
    return { bytes, compactions, total: facts.reduce((sum, f) => sum + JSON.stringify(f.value).length, 0) };
  }

  it("24 large facts over 6 segments: checkpoint sizes do not grow with the facts already referenced", async () => {
    const before = await segments(true);
    const after = await segments(false);
    if (process.env.MEASURE_CHECKPOINTS) console.info(JSON.stringify({ before, after }));
    expect(after.total).toBeGreaterThan(210_000);
    // As it was: every checkpoint after the first compaction stores every fact whole again, so it
    // grows to all 24 facts and every segment from then on compacts again.
    expect(before.bytes.at(-1)).toBeGreaterThan(after.total * 0.95);
    expect(before.compactions).toEqual([2, 3, 4, 5]);
    // Now: a checkpoint holds references for the facts compaction set aside and whole only what the
    // window holds plus the facts recorded since — flat from one compaction cycle to the next,
    // never the whole run — and a segment compacts only when new facts filled the window again.
    for (const k of [4, 5]) expect(Math.abs(after.bytes[k]! - after.bytes[k - 2]!)).toBeLessThan(after.bytes[k - 2]! * 0.05);
    expect(Math.max(...after.bytes)).toBeLessThan(after.total / 2);
    expect(after.compactions).toEqual([2, 4]);
    // CPU only (it tokenizes ~215 kB of facts a dozen times), no waiting: seconds on a loaded machine.
  }, 30_000);
});

describe("auto-resume and the Inngest error mapping", () => {
  it.each([
    [0, 1, { runId: "run_2", checkpointId: "cp_1" }],
    [1, 1, null],
  ])("with %i of %i auto-resumes used → %j", async (used, max, expected) => {
    const { ports } = fakePorts({ countAutoResumes: async () => used });
    expect(await openAutoResume({ ports, taskId: "task_1", max })).toEqual(expected);
  });

  it.each([
    ["rate_limited", RetryAfterError],
    ["server", Error],
    ["bad_request", NonRetriableError],
    ["context_length", NonRetriableError],
    ["auth", NonRetriableError],
  ] as const)("%s → %s", (kind, type) => {
    const err = inngestErrorForModelCall(new ModelCallError({ kind, message: "m" }));
    expect(err).toBeInstanceOf(type);
    if (type === Error) expect(err).not.toBeInstanceOf(NonRetriableError);
    expect(err.message).toBe(`[${kind}] m`);
    expect(isFinalModelFailure(new ModelCallError({ kind, message: "m" }), 0, 4)).toBe(type === NonRetriableError);
  });
});

describe("a local model server that went away", () => {
  it.each([
    ["http://127.0.0.1:8787/v1", true],
    ["http://localhost:11434/v1", true],
    ["http://[::1]:8000/v1", true],
    ["http://192.168.1.20:8000/v1", true],
    ["http://10.0.0.5/v1", true],
    ["http://172.20.0.2:8000/v1", true],
    ["http://ollama.local:11434/v1", true],
    ["http://host.docker.internal:11434/v1", true],
    ["https://api.openai.com/v1", false],
    ["http://172.32.0.1/v1", false],
    ["http://8.8.8.8/v1", false],
    ["not a url", false],
  ] as const)("%s is local: %s", (url, local) => {
    expect(isLocalBaseUrl(url)).toBe(local);
  });

  it("a connection error to it is retried after 1 s × (attempt + 1), not the executor's backoff; a remote one keeps the backoff", () => {
    const local = new ModelCallError({ kind: "network", message: "ECONNREFUSED", retryAfterMs: LOCAL_RECONNECT_MS });
    const first = inngestErrorForModelCall(local, 0);
    const third = inngestErrorForModelCall(local, 2);
    expect(first).toBeInstanceOf(RetryAfterError);
    // RetryAfterError keeps whole seconds.
    expect((first as RetryAfterError).retryAfter).toBe(String(LOCAL_RECONNECT_MS / 1000));
    expect((third as RetryAfterError).retryAfter).toBe(String((3 * LOCAL_RECONNECT_MS) / 1000));
    const remote = inngestErrorForModelCall(new ModelCallError({ kind: "network", message: "ECONNREFUSED" }), 0);
    expect(remote).not.toBeInstanceOf(RetryAfterError);
    expect(remote).not.toBeInstanceOf(NonRetriableError);
  });
});
