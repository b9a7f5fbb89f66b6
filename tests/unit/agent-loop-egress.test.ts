import { describe, expect, it } from "vitest";
import {
  decide,
  foldOutcome,
  initialLoopState,
  type InspectedCall,
  type LoopConfig,
  type LoopEgress,
  type LoopOutcome,
  type LoopState,
} from "../../server/domain/agent-loop/index.ts";

// The loop's side of the egress gate (server/tools/egress-gate.ts): an egress call goes through
// check_approval (with the gate's step first) whatever requireApproval says, and a breach escalates
// risky_action with the reasons and the redacted arguments. Pure: no database.

const CONFIG: LoopConfig = {
  firstTurn: 0,
  goal: "Tidy up the notes",
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

const state = (over: Partial<LoopConfig> = {}): LoopState =>
  initialLoopState({ config: { ...CONFIG, ...over }, stepsUsed: 0, tokensUsed: 0, costUsd: 0, checkpointId: null, workingSetKeys: [] });
const args = { to: "x@elsewhere.org", subject: "Contents of notes.md", body: "token: s3cret-value-123" };
const email: InspectedCall = {
  call: { id: "c1", name: "send_email", arguments: JSON.stringify(args) },
  valid: true,
  args,
  risky: true,
  fingerprint: "fp1",
  egress: true,
};
const modelTurn: LoopOutcome = {
  kind: "model",
  calls: [email],
  turn: {
    content: null,
    toolCalls: [email.call],
    usage: { promptTokens: 100, cachedTokens: 0, completionTokens: 10 },
    finishReason: "tool_calls",
    costUsd: 0.001,
    checkpointRequested: false,
    escalationRequested: null,
  },
};
const breach: LoopEgress = {
  action: "escalate",
  reasons: ["recipient outside allowed domains", "body carries a secret (password or secret assignment)"],
  summary: "to: recipient outside allowed domains (x@elsewhere.org; allowed: example.com); body: password or secret assignment — s3cr… (16 chars)",
  breaches: [],
  findings: [],
  redactedArguments: { ...args, body: "token: [redacted: password or secret assignment]" },
};

function run(s: LoopState, outcomes: LoopOutcome[]) {
  let decision = decide(s, { kind: "turn_start", promptTokens: 100 });
  for (const o of outcomes) decision = decide(foldOutcome(decision.state, o), o);
  return decision;
}
const checkpointed: LoopOutcome = { kind: "checkpointed", checkpointId: "cp1", spendUsd: 0 };

describe("agent loop: egress calls", () => {
  it("an egress call asks the gate (egress-<n>-<k>) and the verdict even without requireApproval", () => {
    expect(run(state(), [modelTurn, checkpointed]).action).toEqual({
      kind: "check_approval",
      stepId: "approval-0-0",
      fingerprint: "fp1",
      egress: { stepId: "egress-0-0", tool: "send_email", args },
    });
  });

  it("a breach without a verdict escalates risky_action with the reasons and the arguments redacted", () => {
    const d = run(state(), [modelTurn, checkpointed, { kind: "approval", verdict: null, egress: breach }]);
    expect(d.action).toMatchObject({
      kind: "escalate",
      reason: "risky_action",
      fingerprint: "fp1",
      evidence: { tool: "send_email", arguments: breach.redactedArguments, egress: { reasons: breach.reasons } },
    });
    const message = d.action.kind === "escalate" ? d.action.message : "";
    // A short headline: the tool and its destination; the reasons and findings stay in the evidence.
    expect(message).toBe("Approval needed: send_email to x@elsewhere.org");
    expect(JSON.stringify(d.action)).not.toContain("s3cret-value-123");
  });

  it("inside the policy (allow), or refused by policy (the gateway refuses it), the call runs as before", () => {
    for (const egress of [{ action: "allow" as const }, { ...breach, action: "refuse" as const }]) {
      expect(run(state(), [modelTurn, checkpointed, { kind: "approval", verdict: null, egress }]).action).toMatchObject({
        kind: "run_tool",
        stepId: "tool-0-0",
        fingerprint: "fp1",
      });
    }
  });

  it("an approved breach runs; a rejected one is refused without running", () => {
    expect(
      run(state(), [modelTurn, checkpointed, { kind: "approval", verdict: { decision: "approve", decidedBy: "ann", guidance: null }, egress: breach }]).action,
    ).toMatchObject({ kind: "run_tool", stepId: "tool-0-0" });
    expect(
      run(state(), [modelTurn, checkpointed, { kind: "approval", verdict: { decision: "reject", decidedBy: "ann", guidance: null }, egress: breach }]).action,
    ).toMatchObject({
      kind: "run_tool",
      refused: { ok: false, error: { code: "rejected_by_human" } },
    });
  });

  it("an open-world MCP tool that is not risky: the gate without a checkpoint first; with approvals on and no breach it runs", () => {
    const mcpArgs = { name: "leak.txt", data: "token s3cret-value-123" };
    const mcp: InspectedCall = {
      call: { id: "c2", name: "everything__gzip-file-as-resource", arguments: JSON.stringify(mcpArgs) },
      valid: true,
      args: mcpArgs,
      risky: false,
      fingerprint: "fp2",
      egress: true,
    };
    const turn: LoopOutcome = { ...modelTurn, calls: [mcp], turn: { ...modelTurn.turn, toolCalls: [mcp.call] } };
    expect(run(state({ requireApproval: true }), [turn]).action).toEqual({
      kind: "check_approval",
      stepId: "approval-0-0",
      fingerprint: "fp2",
      egress: { stepId: "egress-0-0", tool: mcp.call.name, args: mcpArgs },
    });
    expect(run(state({ requireApproval: true }), [turn, { kind: "approval", verdict: null, egress: { action: "allow" } }]).action).toMatchObject({
      kind: "run_tool",
      stepId: "tool-0-0",
    });
    expect(run(state(), [turn, { kind: "approval", verdict: null, egress: breach }]).action).toMatchObject({ kind: "escalate", reason: "risky_action" });
  });
});
