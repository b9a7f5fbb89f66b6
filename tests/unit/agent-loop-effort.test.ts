import { describe, expect, it } from "vitest";
import {
  advanceTurn,
  decide,
  effortFor,
  foldOutcome,
  initialLoopState,
  type InspectedCall,
  type LoopAction,
  type LoopConfig,
  type LoopDecision,
  type LoopOutcome,
  type LoopState,
} from "../../server/domain/agent-loop/index.ts";
import { RECOMMENDED_EFFORT_RULES, type EffortPolicy } from "../../lib/contracts/effort.ts";

// The effort dial in the agent loop (server/domain/agent-loop/effort.ts): which level, model and rule
// each model call gets from the state, and the re-ask of a turn that proposed a side effect below the
// policy's level. Pure: the loop is driven as agent-run drives it (fold, decide, advance on next_turn).

const DIAL: EffortPolicy = { default: "medium", rules: { ...RECOMMENDED_EFFORT_RULES }, models: {} };

const CONFIG: LoopConfig = {
  firstTurn: 0,
  goal: "Audit the licenses of the first 12 packages in node_modules and email the summary to legal@example.com",
  stepBudget: 100,
  tokenBudget: null,
  costBudgetUsd: null,
  contextWindow: 100_000,
  saturationRatio: 0.8,
  expensiveStepUsd: null,
  checkpointEverySteps: 50,
  stallSteps: 20,
  stallGraceSteps: 5,
  requireApproval: false,
  fromReason: null,
  repeatableTools: [],
  effort: DIAL,
  model: "gpt-5",
};

function state(overrides: Partial<LoopConfig> = {}): LoopState {
  return initialLoopState({ config: { ...CONFIG, ...overrides }, stepsUsed: 0, tokensUsed: 0, costUsd: 0, checkpointId: null, workingSetKeys: [] });
}

let ids = 0;
function call(name: string, args: Record<string, unknown>, extra: Partial<InspectedCall> = {}): InspectedCall {
  return { call: { id: `c${ids++}`, name, arguments: JSON.stringify(args) }, valid: true, args, risky: false, fingerprint: null, ...extra };
}
const read = (path: string) => call("read_file", { path });
const email = (to = "legal@example.com") =>
  call("send_email", { to, subject: "Audit", body: "12 packages" }, { risky: true, fingerprint: `fp-${to}`, egress: true });
const post = () => call("http_post", { url: "https://hooks.example.com/x", body: {} }, { risky: true, fingerprint: "fp-post", egress: true });

function turn(calls: InspectedCall[]): LoopOutcome {
  return {
    kind: "model",
    calls,
    turn: {
      content: null,
      toolCalls: calls.map((c) => c.call),
      usage: { promptTokens: 100, cachedTokens: 0, completionTokens: 10 },
      finishReason: calls.length ? "tool_calls" : "stop",
      costUsd: 0.001,
      checkpointRequested: false,
      escalationRequested: null,
    },
  };
}
const ok: LoopOutcome = { kind: "tool", result: { ok: true, output: {} } };
const failed: LoopOutcome = { kind: "tool", result: { ok: false, error: { code: "not_found", message: "no such file" } } };
const checkpointed: LoopOutcome = { kind: "checkpointed", checkpointId: "cp", spendUsd: 0 };
const gatePasses: LoopOutcome = { kind: "approval", verdict: null, egress: { action: "allow" } };
/** After a mechanical turn: the email proposed at low (discarded), asked again at high, checkpoint before it, the egress gate, the send. */
const emailSentAfterRecheck: LoopOutcome[] = [turn([email("legl@example.com")]), turn([email()]), checkpointed, gatePasses, ok];
const invalid: LoopOutcome = { kind: "tool", result: { ok: false, error: { code: "invalid_arguments", message: "path: required" } } };

/**
 * Drives the loop as agent-run does: decide on turn_start, then for each outcome fold and decide; a
 * `next_turn` advances the turn and decides on the next turn_start. Returns every decision made.
 */
function play(s: LoopState, outcomes: LoopOutcome[]): LoopDecision[] {
  const decisions: LoopDecision[] = [];
  let d = decide(s, { kind: "turn_start", promptTokens: 100 });
  decisions.push(d);
  for (const o of outcomes) {
    d = decide(foldOutcome(d.state, o), o);
    decisions.push(d);
    if (d.action.kind === "next_turn") {
      d = decide(advanceTurn(d.state), { kind: "turn_start", promptTokens: 100 });
      decisions.push(d);
    }
  }
  return decisions;
}

/** The model calls among the decisions, with the effort each carries. */
function modelCalls(decisions: LoopDecision[]): Extract<LoopAction, { kind: "call_model" }>[] {
  return decisions.map((d) => d.action).filter((a): a is Extract<LoopAction, { kind: "call_model" }> => a.kind === "call_model");
}
const lastModelCall = (decisions: LoopDecision[]) => modelCalls(decisions).at(-1)!;

describe("the level of a turn, by situation", () => {
  it.each([
    ["the first turn of a run: planning", {}, [], { level: "high", rule: "planning" }],
    ["after read-only results, all successful: mechanical", {}, [turn([read("a"), read("b")]), ok, ok], { level: "low", rule: "mechanical" }],
    ["after a failed call", {}, [turn([read("a"), read("b")]), ok, failed], { level: "high", rule: "after_failure" }],
    ["after a malformed call", {}, [turn([read("a")]), invalid], { level: "high", rule: "after_failure" }],
    ["after a turn without a tool call (nudged)", {}, [turn([])], { level: "high", rule: "after_failure" }],
    ["after a detector warning (the same call a second time)", {}, [turn([read("a")]), ok, turn([read("a")]), ok], { level: "high", rule: "after_failure" }],
    [
      "after an effect committed: the effects phase",
      {},
      [turn([read("a")]), ok, ...emailSentAfterRecheck],
      {
        level: "high",
        rule: "side_effect",
      },
    ],
    ["the first turn of a continued segment: no rule, the default", { firstTurn: 7, fromReason: "interval" }, [], { level: "medium", rule: "default" }],
    ["the first turn of a resume a human decided", { firstTurn: 7, fromReason: "ceiling", afterHuman: true }, [], { level: "high", rule: "after_human" }],
    ["a fork from the beginning: after_human wins over planning", { afterHuman: true }, [], { level: "high", rule: "after_human" }],
  ] as const)("%s", (_name, cfg, outcomes, expected) => {
    const decisions = play(state(cfg), [...outcomes]);
    expect(lastModelCall(decisions).effort).toEqual({ ...expected, model: "gpt-5" });
    // Recorded on the state too, with the turn's model step id.
    const last = decisions.at(-1)!;
    expect(last.state.turnEffort).toEqual({ ...expected, model: "gpt-5" });
    expect(last.state.modelStepId).toBe(lastModelCall(decisions).stepId);
  });

  it("the first turn after a human's verdict on a call is after_human", () => {
    const decisions = play(state({ requireApproval: true }), [
      turn([read("a")]),
      ok,
      turn([email()]),
      turn([email()]),
      checkpointed,
      { kind: "approval", verdict: { decision: "approve", decidedBy: "hana", guidance: null } },
      ok,
    ]);
    expect(lastModelCall(decisions)).toMatchObject({ stepId: "model-2", effort: { level: "high", rule: "after_human" } });
  });

  it("a rejected call is a human decision first, a failure second", () => {
    const decisions = play(state({ requireApproval: true }), [
      turn([read("a")]),
      ok,
      turn([email()]),
      turn([email()]),
      checkpointed,
      { kind: "approval", verdict: { decision: "reject", decidedBy: "hana", guidance: "not to legal" } },
      { kind: "tool", result: { ok: false, error: { code: "rejected_by_human", message: "rejected" } } },
    ]);
    expect(lastModelCall(decisions).effort).toMatchObject({ rule: "after_human" });
  });

  it("the mechanical turn after a turn of reads follows a planning turn, and goes back to low after a failure is past", () => {
    const levels = modelCalls(play(state(), [turn([read("a")]), ok, turn([read("b")]), failed, turn([read("c")]), ok, turn([read("d")]), ok])).map(
      (a) => `${a.stepId}:${a.effort?.level}:${a.effort?.rule}`,
    );
    expect(levels).toEqual([
      "model-0:high:planning",
      "model-1:low:mechanical",
      "model-2:high:after_failure",
      "model-3:low:mechanical",
      "model-4:low:mechanical",
    ]);
  });
});

describe("the policy: rules, default, models", () => {
  it.each([
    ["no policy: no effort at all", null, undefined],
    ["a fixed level (rules {}): the default, rule default", { default: "high", rules: {}, models: {} }, { level: "high", rule: "default", model: "gpt-5" }],
    ["a fixed low level", { default: "low", rules: {}, models: {} }, { level: "low", rule: "default", model: "gpt-5" }],
    [
      "a model for the level: mechanical turns on the cheaper model",
      { default: "medium", rules: { mechanical: "low" }, models: { low: "gpt-5-mini" } },
      { level: "low", rule: "mechanical", model: "gpt-5-mini" },
    ],
    [
      "a situation without a rule falls to the default",
      { default: "medium", rules: { planning: "high" }, models: {} },
      { level: "medium", rule: "default", model: "gpt-5" },
    ],
  ] as const)("%s", (_name, effort, expected) => {
    const a = lastModelCall(play(state({ effort: effort as EffortPolicy | null }), [turn([read("a")]), ok]));
    expect(a.stepId).toBe("model-1");
    expect(a.effort).toEqual(expected);
  });

  it("effortFor: the rule's level, else the default; the level's model, else the profile's", () => {
    expect(effortFor(null, "planning", "m")).toBeNull();
    expect(effortFor({ default: "low", rules: { planning: "high" }, models: { high: "big" } }, "planning", "m")).toEqual({
      level: "high",
      model: "big",
      rule: "planning",
    });
    expect(effortFor({ default: "low", rules: { planning: "high" }, models: { high: "big" } }, null, "m")).toEqual({
      level: "low",
      model: "m",
      rule: "default",
    });
  });
});

describe("the turn that proposes a side effect", () => {
  it("a mechanical turn that proposes an email is discarded and asked again at high before anything runs", () => {
    const decisions = play(state(), [turn([read("a")]), ok, turn([call("record_fact", { key: "k", value: 1 }), email("legl@example.com")])]);
    const a = decisions.at(-1)!.action;
    expect(a).toEqual({
      kind: "call_model",
      stepId: "model-1-recheck",
      effort: { level: "high", rule: "side_effect", model: "gpt-5" },
      discards: { stepId: "model-1", reason: "proposed record_fact, send_email at low effort; asked again at high" },
    });
    // Nothing of the discarded turn ran, and the turn's signals are the previous turn's again.
    const s = decisions.at(-1)!.state;
    expect(s.turnProgress).toBeNull();
    expect(s.modelStepId).toBe("model-1-recheck");
    expect(s.stepsUsed).toBe(3); // the discarded call was a real model call
  });

  it("the re-asked turn's calls run as tool-<n>-<k>, and its model step is model-<n>-recheck", () => {
    const decisions = play(state(), [turn([read("a")]), ok, turn([email("legl@example.com")]), turn([email()])]);
    const d = decisions.at(-1)!;
    expect(d.action).toMatchObject({ kind: "checkpoint", stepId: "checkpoint-1-0", reason: "before_risky" });
    expect(d.state.lastStepId).toBe("model-1-recheck");
    const gate = decide(foldOutcome(d.state, checkpointed), checkpointed);
    expect(gate.action).toMatchObject({ kind: "check_approval", stepId: "approval-1-0" });
    expect(decide(foldOutcome(gate.state, gatePasses), gatePasses).action).toMatchObject({ kind: "run_tool", stepId: "tool-1-0" });
  });

  it("a re-asked turn is never asked again, whatever it proposes", () => {
    const decisions = play(state(), [turn([read("a")]), ok, turn([email()]), turn([post()])]);
    expect(decisions.at(-1)!.action).toMatchObject({ kind: "checkpoint", reason: "before_risky" });
  });

  it.each([
    ["a turn already at high (planning) is not asked again", {}, [turn([email()])]],
    ["no policy: no re-ask", { effort: null }, [turn([read("a")]), ok, turn([email()])]],
    ["a fixed low policy (no side_effect rule): no re-ask", { effort: { default: "low", rules: {}, models: {} } }, [turn([read("a")]), ok, turn([email()])]],
    ["read-only calls at low: no re-ask", {}, [turn([read("a")]), ok, turn([read("b"), call("write_artifact", { name: "x.csv", content: "a" })])]],
    ["a malformed side-effecting call is not a proposal: no re-ask", {}, [turn([read("a")]), ok, turn([{ ...email(), valid: false, fingerprint: null }])]],
  ] as const)("%s", (_name, cfg, outcomes) => {
    const a = play(state(cfg), [...outcomes]).at(-1)!.action;
    expect(a.kind).not.toBe("call_model");
  });

  it("an open-world (egress) call that is not risky is a side effect too", () => {
    const mcpPost = call("web__fetch", { url: "https://x.example" }, { egress: true, fingerprint: "fp-web" });
    expect(play(state(), [turn([read("a")]), ok, turn([mcpPost])]).at(-1)!.action).toMatchObject({ kind: "call_model", stepId: "model-1-recheck" });
  });
});

describe("checkpoint summaries", () => {
  it("a checkpoint with the model's summary carries the checkpoint rule's effort", () => {
    const a = play(state({ checkpointEverySteps: 2 }), [turn([read("a")]), ok]).at(-1)!.action;
    expect(a).toEqual({
      kind: "checkpoint",
      stepId: "checkpoint-1",
      reason: "interval",
      withModel: true,
      cut: true,
      nextTurn: 1,
      effort: { level: "high", rule: "checkpoint", model: "gpt-5" },
    });
  });

  it("without a policy the checkpoint action is as it was", () => {
    const a = play(state({ checkpointEverySteps: 2, effort: null }), [turn([read("a")]), ok]).at(-1)!.action;
    expect(a).toEqual({ kind: "checkpoint", stepId: "checkpoint-1", reason: "interval", withModel: true, cut: true, nextTurn: 1 });
  });
});
