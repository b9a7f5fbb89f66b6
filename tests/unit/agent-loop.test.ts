import { describe, expect, it } from "vitest";
import {
  alertKindForEscalation,
  checkpointReasonForEscalation,
  decide,
  endReasonOfModelError,
  foldOutcome,
  initialLoopState,
  nextAction,
  type InspectedCall,
  type LoopConfig,
  type LoopEscalationReason,
  type LoopModelErrorKind,
  type LoopOutcome,
  type LoopState,
  type ModelTurn,
} from "../../server/domain/agent-loop/index.ts";
import { RUN_END_REASONS } from "../../lib/contracts/status.ts";

// The agent loop's decisions (server/domain/agent-loop/), one table per concern: ceilings,
// saturation, checkpoint triggers, risky calls and approval, control tools, detectors, model
// failures, compaction, and the reason mappings. Pure: no database, no executor.

const CONFIG: LoopConfig = {
  firstTurn: 0,
  goal: "Audit the licenses of the first 12 packages in node_modules and write licenses.csv",
  stepBudget: 100,
  tokenBudget: null,
  costBudgetUsd: null,
  contextWindow: 10_000,
  saturationRatio: 0.8,
  expensiveStepUsd: null,
  checkpointEverySteps: 10,
  stallSteps: 5,
  stallGraceSteps: 3,
  requireApproval: false,
  fromReason: null,
  repeatableTools: [],
};

function state(overrides: Partial<LoopConfig> = {}, s: Partial<LoopState> = {}): LoopState {
  return {
    ...initialLoopState({ config: { ...CONFIG, ...overrides }, stepsUsed: 0, tokensUsed: 0, costUsd: 0, checkpointId: null, workingSetKeys: [] }),
    ...s,
  };
}

function call(name: string, args: Record<string, unknown>, extra: Partial<InspectedCall> = {}, id = `c-${name}`): InspectedCall {
  return { call: { id, name, arguments: JSON.stringify(args) }, valid: true, args, risky: false, fingerprint: null, ...extra };
}

function turn(calls: InspectedCall[], extra: Partial<ModelTurn> = {}): Extract<LoopOutcome, { kind: "model" }> {
  return {
    kind: "model",
    calls,
    turn: {
      content: null,
      toolCalls: calls.map((c) => c.call),
      usage: { promptTokens: 100, cachedTokens: 0, completionTokens: 10 },
      finishReason: "tool_calls",
      costUsd: 0.001,
      checkpointRequested: false,
      escalationRequested: null,
      ...extra,
    },
  };
}

const ok = (output: unknown = {}): LoopOutcome => ({ kind: "tool", result: { ok: true, output } });

/** Feeds outcomes through fold + decide as the Inngest function does; returns the last decision. */
function run(s: LoopState, outcomes: LoopOutcome[]) {
  let st = s;
  let decision = decide(st, { kind: "turn_start", promptTokens: 100 });
  for (const o of outcomes) {
    st = foldOutcome(decision.state, o);
    decision = decide(st, o);
  }
  return decision;
}

describe("turn start: ceilings and saturation", () => {
  it.each([
    ["steps", { stepsUsed: 100 }, {}, "steps budget is reached: 100 of 100"],
    ["tokens", { tokensUsed: 5_000 }, { tokenBudget: 5_000 }, "tokens budget is reached: 5000 of 5000"],
    ["cost", { costUsd: 0.02 }, { costBudgetUsd: 0.01 }, "dollar budget is reached"],
  ] as const)("the %s ceiling escalates budget before the model call", (_kind, s, cfg, text) => {
    const a = nextAction(state(cfg, s), { kind: "turn_start", promptTokens: 100 });
    expect(a).toMatchObject({ kind: "escalate", reason: "budget", endReason: "budget_exhausted", n: 0, checkpointFirst: null, alertKind: "budget" });
    expect(a.kind === "escalate" && a.message).toContain(text);
  });

  it("a ceiling after work checkpoints first (reason ceiling, checkpoint-<n>)", () => {
    const a = nextAction(state({}, { stepsUsed: 100, stepsSinceCheckpoint: 3, turn: 4 }), { kind: "turn_start", promptTokens: 100 });
    expect(a).toMatchObject({ kind: "escalate", checkpointFirst: { reason: "ceiling", stepId: "checkpoint-4", nextTurn: 4 } });
  });

  it.each([
    ["under the threshold: call the model", {}, { turn: 3 }, 7_999, { kind: "call_model", stepId: "model-3" }],
    [
      "saturated after progress: checkpoint saturation and cut",
      { fromReason: "saturation" },
      { turn: 3, recordedFact: true },
      8_000,
      { kind: "checkpoint", reason: "saturation", cut: true, withModel: true, stepId: "checkpoint-3", nextTurn: 3 },
    ],
    [
      "saturated, not started from a compaction: checkpoint and cut",
      { fromReason: "interval" },
      { turn: 3 },
      8_000,
      { kind: "checkpoint", reason: "saturation", cut: true },
    ],
    ["saturated again without progress but inside the window: go on", { fromReason: "saturation" }, { turn: 3 }, 9_000, { kind: "call_model" }],
    [
      "saturated without progress, over the window: escalate with the sizes",
      { fromReason: "saturation" },
      { turn: 3 },
      10_000,
      { kind: "escalate", reason: "saturation", evidence: { promptTokens: 10_000, contextWindow: 10_000, limitTokens: 8_000 } },
    ],
    [
      "the segment's own start does not fit: compact it",
      {},
      { turn: 0 },
      12_000,
      { kind: "compact", stepId: "compact-0", beforeTokens: 12_000, limitTokens: 8_000 },
    ],
  ] as const)("%s", (_name, cfg, s, promptTokens, expected) => {
    expect(nextAction(state(cfg, s), { kind: "turn_start", promptTokens })).toMatchObject(expected);
  });
});

describe("after the model", () => {
  it("no tool call: next turn with a nudge", () => {
    expect(run(state(), [turn([])]).action).toEqual({ kind: "next_turn", nudge: true });
  });

  it("folds steps, tokens and spend (spendUsd wins over the sum)", () => {
    const s = foldOutcome(state(), turn([], { spendUsd: 0.5 }));
    expect({ steps: s.stepsUsed, tokens: s.tokensUsed, cost: s.costUsd, last: s.lastStepId }).toEqual({ steps: 1, tokens: 110, cost: 0.5, last: "model-0" });
  });

  it("the first call runs as tool-<n>-0", () => {
    expect(run(state(), [turn([call("read_file", { path: "a" })])]).action).toMatchObject({ kind: "run_tool", stepId: "tool-0-0" });
  });
});

describe("checkpoint triggers after a turn", () => {
  it.each([
    ["on request", [call("read_file", { path: "a" })], { checkpointRequested: true }, {}, "on_request"],
    ["phase end (complete_phase)", [call("complete_phase", { phase: "listing" })], {}, {}, "phase_complete"],
    ["expensive step", [call("read_file", { path: "a" })], { costUsd: 0.5 }, { expensiveStepUsd: 0.1 }, "expensive_step"],
    ["interval", [call("read_file", { path: "a" })], {}, { checkpointEverySteps: 2 }, "interval"],
  ] as const)("%s → checkpoint-<n+1>, cut", (_name, calls, t, cfg, reason) => {
    const d = run(state(cfg), [turn([...calls], t), ok()]);
    expect(d.action).toEqual({ kind: "checkpoint", stepId: "checkpoint-1", reason, withModel: true, cut: true, nextTurn: 1 });
  });

  it("none: next turn", () => {
    expect(run(state(), [turn([call("read_file", { path: "a" })]), ok()]).action).toEqual({ kind: "next_turn", nudge: false });
  });

  it.each([
    [{ note: "look", by: "Olga" }, "Escalated by Olga: look."],
    [{ note: "is this stuck?", by: "Olga" }, "Escalated by Olga: is this stuck?"],
    [{ note: "stuck. ", by: "Olga" }, "Escalated by Olga: stuck."],
    [{ note: null, by: "Olga" }, "Escalated by Olga."],
    [{ note: "look" }, "Escalated by an operator: look."],
  ])("a manual escalation names who asked, with one full stop: %j", (escalationRequested, message) => {
    const d = run(state(), [turn([call("read_file", { path: "a" })], { escalationRequested }), ok()]);
    expect(d.action).toMatchObject({ kind: "escalate", reason: "manual", message });
  });

  it("an operator's escalation request wins over a checkpoint", () => {
    const d = run(state(), [turn([call("read_file", { path: "a" })], { escalationRequested: { note: "look" }, checkpointRequested: true }), ok()]);
    expect(d.action).toMatchObject({
      kind: "escalate",
      reason: "manual",
      message: "Escalated by an operator: look.",
      n: 1,
      checkpointFirst: { reason: "on_request", stepId: "checkpoint-1" },
      alertKind: "manual",
    });
  });
});

describe("tool calls: ceilings mid-turn, risky calls, approval", () => {
  it("a ceiling between two calls escalates with the calls not run", () => {
    const d = run(state({ stepBudget: 2 }), [turn([call("read_file", { path: "a" }, {}, "1"), call("read_file", { path: "b" }, {}, "2")]), ok()]);
    expect(d.action).toMatchObject({ kind: "escalate", reason: "budget", n: 1 });
    expect(d.action.kind === "escalate" && d.action.message).toContain("1 tool call(s) of this turn were not run");
  });

  const email = call("send_email", { to: "a@b.c", subject: "Audit", body: "x".repeat(100) }, { risky: true, fingerprint: "fp1" });

  it("a risky call after work: checkpoint before_risky (checkpoint-<n>-<k>, no cut) with the proposed action", () => {
    const d = run(state(), [turn([email])]);
    expect(d.action).toEqual({
      kind: "checkpoint",
      stepId: "checkpoint-0-0",
      reason: "before_risky",
      withModel: false,
      cut: false,
      nextTurn: 1,
      openQuestion: 'About to run the risky action send_email(to: "a@b.c", subject: "Audit", body: <100 chars>).',
    });
  });

  it.each([
    ["approval not required: runs", false, null, { kind: "run_tool", stepId: "tool-0-0", fingerprint: "fp1" }],
    ["approval required: asks for the verdict", true, null, { kind: "check_approval", stepId: "approval-0-0", fingerprint: "fp1" }],
  ] as const)("after the checkpoint, %s", (_n, requireApproval, _v, expected) => {
    const d = run(state({ requireApproval }), [turn([email]), { kind: "checkpointed", checkpointId: "cp1", spendUsd: 0 }]);
    expect(d.action).toMatchObject(expected);
    expect(d.state.stepsSinceCheckpoint).toBe(0);
    expect(d.state.latestCheckpointId).toBe("cp1");
  });

  it.each([
    [
      "no verdict → escalate risky_action",
      null,
      { kind: "escalate", reason: "risky_action", fingerprint: "fp1", alertKind: "escalation", checkpointFirst: null },
    ],
    ["approved → runs", { decision: "approve", decidedBy: "ann", guidance: null }, { kind: "run_tool", stepId: "tool-0-0" }],
    [
      "rejected → refused",
      { decision: "reject", decidedBy: "ann", guidance: "not now" },
      { kind: "run_tool", refused: { ok: false, error: { code: "rejected_by_human" } } },
    ],
  ] as const)("verdict: %s", (_n, verdict, expected) => {
    const d = run(state({ requireApproval: true }), [turn([email]), { kind: "checkpointed", checkpointId: "cp1", spendUsd: 0 }, { kind: "approval", verdict }]);
    expect(d.action).toMatchObject(expected);
    if (verdict?.decision === "approve") expect(d.action).not.toHaveProperty("refused");
  });

  it("a rejected call is a gap of the finished run when the agent names none", () => {
    const verdict = { decision: "reject" as const, decidedBy: "ann", guidance: null };
    const d0 = run(state({ requireApproval: true }), [
      turn([email, call("finish", { result: "done" })]),
      { kind: "checkpointed", checkpointId: "cp1", spendUsd: 0 },
      { kind: "approval", verdict },
    ]);
    if (d0.action.kind !== "run_tool" || !d0.action.refused) throw new Error("expected a refused call");
    const s1 = foldOutcome(d0.state, { kind: "tool", result: d0.action.refused });
    const d1 = decide(s1, { kind: "tool", result: d0.action.refused });
    const s2 = foldOutcome(d1.state, ok());
    expect(nextAction(s2, ok())).toEqual({
      kind: "finish",
      summary: "done",
      gaps: ['send_email(to: "a@b.c", subject: "Audit", body: <100 chars>) was not run: rejected by ann'],
    });
  });
});

describe("control tools and end reasons", () => {
  it.each([
    ["finish", call("finish", { result: "All done" }), { kind: "finish", summary: "All done", gaps: [] }],
    ["finish with gaps", call("finish", { result: "Most done", gaps: ["email not sent"] }), { kind: "finish", gaps: ["email not sent"] }],
    ["declare_dead_end", call("declare_dead_end", { reason: "no data" }), { kind: "dead_end", reason: "no data" }],
    [
      "request_human",
      call("request_human", { question: "Which?" }),
      { kind: "escalate", reason: "request_human", message: "Which?", alertKind: "escalation", n: 1 },
    ],
    [
      "request_human with a proposed action",
      call("request_human", { question: "OK?", proposedAction: "delete" }),
      { kind: "escalate", message: "Approval needed: delete — OK?" },
    ],
  ] as const)("%s", (_n, c, expected) => {
    expect(run(state(), [turn([c]), ok()]).action).toMatchObject(expected);
  });

  it("a failed control tool is not acted upon: the next call runs", () => {
    const d = run(state(), [
      turn([call("finish", { result: "x" }), call("read_file", { path: "a" }, {}, "2")]),
      { kind: "tool", result: { ok: false, error: { code: "invalid_arguments", message: "bad" } } },
    ]);
    expect(d.action).toMatchObject({ kind: "run_tool", stepId: "tool-0-1" });
  });

  it("an unresolved effect escalates with its idempotency key", () => {
    const post = call("http_post", { url: "https://x" }, { fingerprint: "fp2" });
    const d = run(state(), [
      turn([post]),
      { kind: "tool", result: { ok: false, error: { code: "unresolved_effect", message: "unknown", idempotencyKey: "k1" } } },
    ]);
    expect(d.action).toMatchObject({
      kind: "escalate",
      reason: "unresolved_effect",
      fingerprint: "fp2",
      evidence: { idempotencyKey: "k1", stepId: "tool-0-0" },
      checkpointFirst: { reason: "failure" },
    });
  });

  it("a recorded fact is the structured progress flag (not a failed one)", () => {
    const rf = call("record_fact", { key: "k", value: 1 });
    expect(foldOutcome(run(state(), [turn([rf])]).state, ok()).recordedFact).toBe(true);
    expect(
      foldOutcome(run(state(), [turn([rf])]).state, { kind: "tool", result: { ok: false, error: { code: "invalid_arguments", message: "x" } } }).recordedFact,
    ).toBe(false);
  });
});

describe("detectors", () => {
  it("the 3rd identical call escalates loop", () => {
    const same = () => call("read_file", { path: "a" });
    let s = state();
    let dec = decide(s, { kind: "turn_start", promptTokens: 10 });
    for (let i = 0; i < 3; i++) {
      const t = turn([same()]);
      s = foldOutcome(dec.state, t);
      dec = decide(s, t);
      s = foldOutcome(dec.state, ok());
      dec = decide(s, ok());
      if (dec.action.kind === "next_turn") {
        s = { ...dec.state, turn: dec.state.turn + 1, turnProgress: null };
        dec = decide(s, { kind: "turn_start", promptTokens: 10 });
      }
    }
    expect(dec.action).toMatchObject({ kind: "escalate", reason: "loop", endReason: "loop", alertKind: "loop" });
  });

  it("the 3rd malformed call in a row escalates tool_failure and ends the run tool_failure, a Run.endReason the database allows", () => {
    const bad = { kind: "tool", result: { ok: false, error: { code: "invalid_arguments", message: "bad" } } } as const;
    let s = state();
    let dec = decide(s, { kind: "turn_start", promptTokens: 10 });
    for (let i = 0; i < 3 && dec.action.kind !== "escalate"; i++) {
      const t = turn([call("read_file", { path: `a${i}` })]);
      s = foldOutcome(dec.state, t);
      dec = decide(s, t);
      s = foldOutcome(dec.state, bad);
      dec = decide(s, bad);
      if (dec.action.kind === "next_turn") {
        s = { ...dec.state, turn: dec.state.turn + 1, turnProgress: null };
        dec = decide(s, { kind: "turn_start", promptTokens: 10 });
      }
    }
    expect(dec.action).toMatchObject({ kind: "escalate", reason: "tool_failure", endReason: "tool_failure", alertKind: "tool_failure" });
    expect(RUN_END_REASONS).toContain(dec.action.kind === "escalate" ? dec.action.endReason : null);
  });

  it("a repeatable tool never raises a loop", () => {
    let s = state({ repeatableTools: ["read_file"] });
    let dec = decide(s, { kind: "turn_start", promptTokens: 10 });
    for (let i = 0; i < 3; i++) {
      const t = turn([call("read_file", { path: "a" }), call("record_fact", { key: `k${i}`, value: i }, {}, "f")]);
      s = foldOutcome(dec.state, t);
      dec = decide(s, t);
      s = foldOutcome(dec.state, ok());
      dec = decide(s, ok());
      s = foldOutcome(dec.state, ok());
      dec = decide(s, ok());
      s = { ...dec.state, turn: dec.state.turn + 1, turnProgress: null };
      dec = decide(s, { kind: "turn_start", promptTokens: 10 });
    }
    expect(dec.action.kind).toBe("call_model");
  });

  it("a saturated prompt after a model step is a saturation info alert to record", () => {
    const s = foldOutcome(state(), { ...turn([]), turn: { ...turn([]).turn, usage: { promptTokens: 8_500, cachedTokens: 0, completionTokens: 1 } } });
    expect(s.alertsToRecord.map((a) => `${a.kind} ${a.severity}`)).toContain("saturation info");
  });
});

describe("model failures and compaction", () => {
  it.each([
    ["rate_limited", "transient", true],
    ["server", "transient", true],
    ["timeout", "transient", true],
    ["stream_cut", "transient", true],
    ["network", "transient", true],
    ["bad_request", "error", false],
    ["auth", "error", false],
    ["aborted", "error", false],
    ["step_error", "error", false],
  ] as const)("%s fails %s (auto-resume %s)", (kind: LoopModelErrorKind, endReason, autoResume) => {
    expect(endReasonOfModelError(kind)).toBe(endReason);
    expect(nextAction(state({}, { turn: 2, stepsSinceCheckpoint: 2 }), { kind: "model_failed", errorKind: kind, message: "m" })).toEqual({
      kind: "fail",
      endReason,
      error: `[${kind}] m`,
      checkpointFirst: { reason: "failure", stepId: "checkpoint-2", nextTurn: 2 },
      autoResume,
    });
  });

  const refused = (extra: Partial<Extract<LoopOutcome, { kind: "model_failed" }>> = {}): LoopOutcome => ({
    kind: "model_failed",
    errorKind: "context_length",
    message: "too long",
    ...extra,
  });
  const OPENAI = "This model's maximum context length is 6000 tokens. However, your messages resulted in 7000 tokens.";
  const compacted = { contextWindow: 10_000, beforeTokens: 7_000, afterTokens: 2_100, limitTokens: 4_800, referencedFacts: 3, providerLimitTokens: 6_000 };

  // A refusal of the provider ("maximum context length") — CONFIG: window 10,000, ratio 0.8.
  it.each([
    [
      "mid-segment, limit stated: compact the current state (saved whole first), sized on the stated limit, before = the measured prompt",
      {},
      { turn: 2, stepsSinceCheckpoint: 2 },
      { promptTokens: 7_000, stated: { limitTokens: 6_000, promptTokens: 7_000 }, message: OPENAI },
      {
        kind: "compact",
        stepId: "compact-2",
        nextTurn: 2,
        source: "current",
        checkpointFirst: { reason: "saturation", stepId: "checkpoint-2", nextTurn: 2 },
        limitTokens: 4_800,
        beforeTokens: 7_000,
        providerLimitTokens: 6_000,
        refusal: OPENAI,
      },
    ],
    [
      "mid-segment, the provider counts more than the loop: the limit shrinks in proportion",
      {},
      { turn: 2, stepsSinceCheckpoint: 2 },
      { promptTokens: 7_000, stated: { limitTokens: 6_000, promptTokens: 8_400 } },
      { kind: "compact", source: "current", limitTokens: 4_000, beforeTokens: 7_000, providerLimitTokens: 6_000 },
    ],
    [
      "mid-segment, no limit stated: sized on the profile's window",
      {},
      { turn: 3, stepsSinceCheckpoint: 4 },
      { promptTokens: 9_500, stated: { limitTokens: null, promptTokens: null } },
      { kind: "compact", stepId: "compact-3", source: "current", limitTokens: 8_000, beforeTokens: 9_500, providerLimitTokens: null },
    ],
    [
      "mid-segment, a stated limit over the profile's window: the profile's window bounds it",
      {},
      { turn: 3, stepsSinceCheckpoint: 4 },
      { promptTokens: 9_500, stated: { limitTokens: 50_000, promptTokens: null } },
      { kind: "compact", limitTokens: 8_000 },
    ],
    [
      "mid-segment right after a checkpoint: compact from it, nothing to save first",
      {},
      { turn: 3, stepsSinceCheckpoint: 0, latestCheckpointId: "cp_risky" },
      { promptTokens: 9_000 },
      { kind: "compact", source: "current", checkpointFirst: null },
    ],
    [
      "mid-segment with no checkpoint at all: save one first",
      {},
      { turn: 3, stepsSinceCheckpoint: 0, latestCheckpointId: null },
      { promptTokens: 9_000 },
      { kind: "compact", source: "current", checkpointFirst: { reason: "saturation", stepId: "checkpoint-3", nextTurn: 3 } },
    ],
    [
      "at a segment's first turn: compact the start (nothing to save first)",
      {},
      { turn: 0 },
      { promptTokens: 7_000, stated: { limitTokens: 6_000, promptTokens: 7_000 } },
      { kind: "compact", stepId: "compact-0", source: "start", checkpointFirst: null, limitTokens: 4_800, beforeTokens: 7_000 },
    ],
    [
      "at the first turn after a saturation checkpoint that compacted nothing: compact (no escalation)",
      { fromReason: "saturation", firstTurn: 5 },
      { turn: 5 },
      { promptTokens: 7_000, stated: { limitTokens: 6_000, promptTokens: 7_000 } },
      { kind: "compact", stepId: "compact-5", source: "start", limitTokens: 4_800 },
    ],
    [
      "at the first turn of a compacted start, the same limit: escalate saturation (no checkpoint: nothing happened since)",
      { fromReason: "saturation", firstTurn: 5, compactedStart: compacted },
      { turn: 5 },
      { promptTokens: 2_300, stated: { limitTokens: 6_000, promptTokens: 2_300 }, message: OPENAI },
      { kind: "escalate", n: 5, reason: "saturation", endReason: "saturation", checkpointFirst: null, alertKind: "saturation" },
    ],
    [
      "at the first turn of a compacted start, a much tighter limit stated now: compact again, under a step id of its own",
      { fromReason: "saturation", firstTurn: 5, compactedStart: { ...compacted, providerLimitTokens: null, limitTokens: 8_000 } },
      { turn: 5 },
      { promptTokens: 3_000, stated: { limitTokens: 2_500, promptTokens: 3_000 } },
      { kind: "compact", stepId: "compact-5-2000", source: "start", limitTokens: 2_000, providerLimitTokens: 2_500 },
    ],
    [
      "mid-segment of a run whose provider stated a limit before, none stated now: sized on the earlier one",
      { providerLimitTokens: 6_000 },
      { turn: 3, stepsSinceCheckpoint: 2 },
      { promptTokens: 6_500, stated: { limitTokens: null, promptTokens: null } },
      { kind: "compact", source: "current", limitTokens: 4_800, providerLimitTokens: 6_000 },
    ],
    [
      "a refusal without the measured prompt (memoized before it was recorded): before = the provider's count",
      {},
      { turn: 2, stepsSinceCheckpoint: 1 },
      { stated: { limitTokens: 6_000, promptTokens: 7_100 } },
      { kind: "compact", beforeTokens: 7_100, limitTokens: 4_800 },
    ],
  ] as const)("context length exceeded %s", (_n, cfg, s, extra, expected) => {
    expect(nextAction(state(cfg as Partial<LoopConfig>, s), refused(extra))).toMatchObject(expected);
  });

  it("the escalation of a refused compacted context says what was compacted, before → after, and the limits", () => {
    const a = nextAction(
      state({ fromReason: "saturation", firstTurn: 5, compactedStart: compacted }, { turn: 5 }),
      refused({ promptTokens: 2_300, stated: { limitTokens: 6_000, promptTokens: 2_350 }, message: OPENAI }),
    );
    expect(a.kind === "escalate" && a.message).toBe(
      `The provider refused the compacted context: it was compacted from 7000 to 2100 tokens (3 large fact(s) made references and the completed steps folded; limit 4800, sized on the provider's stated 6000-token limit) and the 2300-token prompt was still too long (the provider states a limit of 6000 tokens, 2350 prompt tokens by its count). Give the task a model with a larger window, or remove facts. Provider: ${OPENAI}`,
    );
    expect(a).toMatchObject({ evidence: { ...compacted, refusedPromptTokens: 2_300, stated: { limitTokens: 6_000, promptTokens: 2_350 }, provider: OPENAI } });
    expect(a.kind === "escalate" && a.message).not.toMatch(/nothing|window \(\d+ tokens\)/);
  });

  it("a refusal, its compaction and the retried call: the run goes on from the compacted checkpoint", () => {
    let s = state({}, { turn: 3, stepsSinceCheckpoint: 3 });
    let d = decide(s, refused({ promptTokens: 7_000, stated: { limitTokens: 6_000, promptTokens: 7_000 } }));
    expect(d.action).toMatchObject({ kind: "compact", source: "current" });
    s = foldOutcome(d.state, { kind: "checkpointed", checkpointId: "cp_whole", spendUsd: 0 });
    const done: LoopOutcome = { kind: "compacted", fits: true, checkpointId: "cp_small", sizes: { ...compacted, afterTokens: 2_000 } };
    d = decide(foldOutcome(s, done), done);
    expect(d.action).toEqual({ kind: "continue", checkpointId: "cp_small", n: 3, reason: "saturation" });
  });

  it.each([
    [
      "a compacted start sized on a stated 5,000-token limit saturates against it",
      { compactedStart: { ...compacted, providerLimitTokens: 5_000 } },
      "checkpoint",
    ],
    ["a later segment of a run whose provider stated 5,000 tokens saturates against it", { providerLimitTokens: 5_000 }, "checkpoint"],
    ["without a stated limit the profile's 10,000-token window holds", {}, "call_model"],
  ] as const)("%s", (_n, cfg, kind) => {
    expect(nextAction(state(cfg, { turn: 2, recordedFact: true }), { kind: "turn_start", promptTokens: 4_500 }).kind).toBe(kind);
  });

  const sizes = { contextWindow: 1_000, beforeTokens: 5_000, afterTokens: 900, limitTokens: 800, referencedFacts: 2 };
  it("a compaction that fits continues from its checkpoint", () => {
    expect(nextAction(state(), { kind: "compacted", fits: true, checkpointId: "cp9", sizes })).toEqual({
      kind: "continue",
      checkpointId: "cp9",
      n: 0,
      reason: "saturation",
    });
  });
  it("a compaction that cannot fit escalates saturation with the sizes — never fails", () => {
    const a = nextAction(state(), { kind: "compacted", fits: false, checkpointId: null, sizes });
    expect(a).toMatchObject({ kind: "escalate", reason: "saturation", evidence: sizes });
    expect(a.kind === "escalate" && a.message).toContain("900 tokens (limit 800, 5000 before compaction");
  });
});

describe("reason mappings", () => {
  it.each([
    ["budget", "ceiling", "budget"],
    ["manual", "on_request", "manual"],
    ["risky_action", "before_risky", "escalation"],
    ["unresolved_effect", "failure", "escalation"],
    ["request_human", "request_human", "escalation"],
    ["loop", "loop", "loop"],
    ["stall", "stall", "stall"],
    ["tool_failure", "tool_failure", "tool_failure"],
    ["saturation", "saturation", "saturation"],
  ] as const)("%s → checkpoint %s, alert %s", (reason: LoopEscalationReason, cp, alert) => {
    expect(checkpointReasonForEscalation(reason)).toBe(cp);
    expect(alertKindForEscalation(reason)).toBe(alert);
  });
});
