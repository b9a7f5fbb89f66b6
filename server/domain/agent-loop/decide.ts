import { describeCeiling, type CeilingUsage as Ceiling } from "../../../lib/contracts/ceiling.ts";
import { asSentence } from "../../../lib/contracts/sentences.ts";
import { checkpointReasonAfterTurn, isSaturated, refusalCompactionLimit } from "../checkpoint.ts";
import { rejectedByHumanMessage, REJECTED_BY_HUMAN } from "../rejected-call.ts";
import { briefCall, egressHeadline } from "../step-summaries.ts";
import { historyCeilingNote } from "../budget-from-history.ts";
import { checkpointEffort, recheckForSideEffect, turnEffort } from "./effort.ts";
import { ceilingOf } from "./fold.ts";
import { alertKindForEscalation, checkpointReasonForEscalation, endReasonOfModelError, escalationReasonOfAlert } from "./reasons.ts";
import type { EffortChoice } from "../../../lib/contracts/effort.ts";
import type { RunEndReason } from "../../../lib/contracts/status.ts";
import type { Alert } from "../detectors.ts";
import {
  CONTROL_TOOLS,
  type InspectedCall,
  type LoopAction,
  type LoopDecision,
  type LoopEgress,
  type LoopConfig,
  type LoopEscalationReason,
  type LoopOutcome,
  type LoopState,
  type LoopToolResult,
  type LoopVerdict,
} from "./types.ts";

// The agent loop's decisions: given the state and the last outcome, the next action. Pure.

function escalation(
  s: LoopState,
  n: number,
  reason: LoopEscalationReason,
  message: string,
  evidence: Record<string, unknown>,
  endReason: RunEndReason | null,
  fingerprint: string | null = null,
): LoopDecision {
  return {
    state: s,
    action: {
      kind: "escalate",
      n,
      reason,
      message,
      evidence,
      endReason,
      fingerprint,
      checkpointFirst: s.stepsSinceCheckpoint > 0 ? { reason: checkpointReasonForEscalation(reason), stepId: `checkpoint-${n}`, nextTurn: n } : null,
      alertKind: alertKindForEscalation(reason),
    },
  };
}

/** Escalates for a detector's escalating alert: its reason (loop, stall, tool_failure) is also the run's end reason. */
function escalationForAlert(s: LoopState, n: number, alert: Alert): LoopDecision {
  const reason = escalationReasonOfAlert(alert);
  return escalation(s, n, reason, alert.message, alert.evidence, reason);
}

const act = (state: LoopState, action: LoopAction): LoopDecision => ({ state, action });

/** A budget escalation's message: the ceiling, what was not run, and — for a ceiling from history — how unlike the others this task is. */
function budgetMessage(s: LoopState, ceiling: Ceiling, after: string): string {
  const note = historyCeilingNote(ceiling, s.config.budgetBasis ?? null);
  return `The ${describeCeiling(ceiling)}. ${after}${note ? ` ${note}` : ""}`;
}

/** The window the loop works in: the profile's, or less when the provider stated a smaller one to this task (a compaction sized on it, in this run or an earlier one). */
function windowOf(c: LoopConfig): number {
  const stated = c.providerLimitTokens ?? c.compactedStart?.providerLimitTokens ?? null;
  return stated !== null && stated > 0 ? Math.min(c.contextWindow, stated) : c.contextWindow;
}

function atTurnStart(s: LoopState, promptTokens: number): LoopDecision {
  const c = s.config;
  const n = s.turn;
  const ceiling = ceilingOf(s);
  if (ceiling) return escalation(s, n, "budget", budgetMessage(s, ceiling, "The run stopped before the next model call."), { ceiling }, "budget_exhausted");
  const window = windowOf(c);
  if (isSaturated({ promptTokens, contextWindow: window, ratio: c.saturationRatio })) {
    const limitTokens = Math.floor(window * c.saturationRatio);
    // The segment's own starting state fills the window (a resume into a smaller window, a few huge
    // facts, a checkpoint that grew too big): compact the checkpoint itself; the compaction says
    // whether it now fits, and escalates with the sizes when it cannot.
    if (n === c.firstTurn)
      return act(s, {
        kind: "compact",
        stepId: `compact-${n}`,
        nextTurn: n,
        limitTokens,
        beforeTokens: promptTokens,
        // Sized on the provider's stated limit (learned from an earlier refusal), not the profile's window: the compaction says so.
        ...(window < c.contextWindow ? { providerLimitTokens: window } : {}),
      });
    if (s.recordedFact || c.fromReason !== "saturation")
      return act(s, {
        kind: "checkpoint",
        stepId: `checkpoint-${n}`,
        reason: "saturation",
        withModel: true,
        cut: true,
        nextTurn: n,
        ...withEffort(checkpointEffort(s)),
      });
    // Compacting again now would drop what this segment read but has not recorded yet and restart
    // from the same state: go on while the prompt still fits the window, so the agent can record it.
    if (promptTokens >= window) {
      return escalation(
        s,
        n,
        "saturation",
        `The context outgrew the ${window}-token window (${promptTokens} tokens) with no new fact since it was last compacted: compaction cannot make room for this work.`,
        { promptTokens, contextWindow: window, limitTokens },
        "saturation",
      );
    }
  }
  const effort = turnEffort(s);
  const stepId = `model-${n}`;
  return act({ ...s, turnEffort: effort, modelStepId: stepId }, { kind: "call_model", stepId, ...withEffort(effort) });
}

/** `{effort}` when the profile has an effort policy, else nothing (actions stay as they were without one). */
function withEffort(effort: EffortChoice | null): { effort?: EffortChoice } {
  return effort ? { effort } : {};
}

/** At call k of the turn (or past its last call): ceiling, then a risky call's checkpoint and approval. */
function atCall(s: LoopState): LoopDecision {
  const tp = s.turnProgress!;
  const n = s.turn;
  if (tp.k >= tp.calls.length) return endOfTurn(s);
  const ceiling = ceilingOf(s);
  if (ceiling) {
    // Never overshoot by more than the step in flight: the remaining calls of this turn wait for the decision.
    return escalation(
      s,
      n + 1,
      "budget",
      budgetMessage(s, ceiling, `${tp.calls.length - tp.k} tool call(s) of this turn were not run.`),
      { ceiling },
      "budget_exhausted",
    );
  }
  const inspected = tp.calls[tp.k]!;
  if (inspected.valid && inspected.risky && s.stepsSinceCheckpoint > 0) {
    return act(s, {
      kind: "checkpoint",
      stepId: `checkpoint-${n}-${tp.k}`,
      reason: "before_risky",
      withModel: false,
      cut: false,
      nextTurn: n + 1,
      openQuestion: `About to run the risky action ${briefCall(inspected.call.name, inspected.args)}.`,
    });
  }
  return afterRiskyCheckpoint(s);
}

function afterRiskyCheckpoint(s: LoopState): LoopDecision {
  const tp = s.turnProgress!;
  const inspected = tp.calls[tp.k]!;
  // An egress call is judged by the egress gate whatever requireApproval says (docs/ARCHITECTURE.md "What leaves the organisation");
  // an open-world MCP tool is an egress call without being risky (server/tools/mcp/mcp-tools.ts).
  if (inspected.valid && ((inspected.risky && s.config.requireApproval) || inspected.egress) && inspected.fingerprint) {
    return act(s, {
      kind: "check_approval",
      stepId: `approval-${s.turn}-${tp.k}`,
      fingerprint: inspected.fingerprint,
      ...(inspected.egress ? { egress: { stepId: `egress-${s.turn}-${tp.k}`, tool: inspected.call.name, args: inspected.args } } : {}),
    });
  }
  return act(s, { kind: "run_tool", stepId: `tool-${s.turn}-${tp.k}`, call: inspected.call, fingerprint: inspected.fingerprint });
}

function afterApproval(s: LoopState, verdict: LoopVerdict | null, egress: LoopEgress | null = null): LoopDecision {
  const tp = s.turnProgress!;
  const inspected = tp.calls[tp.k]!;
  const { call } = inspected;
  const stepId = `tool-${s.turn}-${tp.k}`;
  // A breach of the egress policy needs a human whatever the task's requireApproval; the message is a
  // short headline (tool and destination), the card lists the reasons and findings once from the
  // evidence and shows the arguments redacted (never a secret).
  const breach = egress?.action === "escalate" ? egress : null;
  if (!verdict && !(s.config.requireApproval && inspected.risky) && !breach) {
    return act(s, { kind: "run_tool", stepId, call, fingerprint: inspected.fingerprint });
  }
  if (!verdict) {
    const shown = breach?.redactedArguments ?? inspected.args;
    return escalation(
      s,
      s.turn + 1,
      "risky_action",
      breach ? `Approval needed: ${egressHeadline(call.name, breach.breaches ?? [], shown)}` : `Approval needed: ${briefCall(call.name, inspected.args)}`,
      {
        stepId,
        tool: call.name,
        arguments: shown,
        fingerprint: inspected.fingerprint,
        ...(breach
          ? { egress: { reasons: breach.reasons ?? [], summary: breach.summary ?? "", breaches: breach.breaches ?? [], findings: breach.findings ?? [] } }
          : {}),
      },
      null,
      inspected.fingerprint,
    );
  }
  if (verdict.decision === "reject") {
    const refused: LoopToolResult = {
      ok: false,
      error: {
        code: REJECTED_BY_HUMAN,
        message: rejectedByHumanMessage(call.name, verdict.decidedBy, verdict.guidance),
        gap: `${briefCall(call.name, inspected.args)} was not run: rejected by ${verdict.decidedBy ?? "a handler"}${verdict.guidance ? ` (${verdict.guidance})` : ""}`,
      },
    };
    return act(s, { kind: "run_tool", stepId, call, fingerprint: inspected.fingerprint, refused });
  }
  return act(s, { kind: "run_tool", stepId, call, fingerprint: inspected.fingerprint });
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");

function parsedArgs(inspected: InspectedCall): Record<string, unknown> {
  if (inspected.valid && typeof inspected.args === "object" && inspected.args !== null) return inspected.args as Record<string, unknown>;
  try {
    return JSON.parse(inspected.call.arguments) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** After tool call k ran (state already folded): unresolved effects, detectors, control tools. */
function afterTool(s: LoopState, result: LoopToolResult): LoopDecision {
  const tp = s.turnProgress!;
  const n = s.turn;
  const inspected = tp.calls[tp.k]!;
  const { call } = inspected;
  const stepId = `tool-${n}-${tp.k}`;
  if (!result.ok && result.error.code === "unresolved_effect") {
    return escalation(
      s,
      n + 1,
      "unresolved_effect",
      `The outcome of ${call.name} is unknown: the process stopped after the request was sent and before its answer was recorded. Check the external system, then say whether it happened.`,
      {
        stepId,
        tool: call.name,
        arguments: inspected.valid ? inspected.args : call.arguments,
        idempotencyKey: result.error.idempotencyKey ?? null,
        fingerprint: inspected.fingerprint,
      },
      null,
      inspected.fingerprint,
    );
  }
  if (s.escalating) return escalationForAlert(s, n + 1, s.escalating);
  if (result.ok) {
    const args = parsedArgs(inspected);
    if (call.name === CONTROL_TOOLS.requestHuman) {
      const question = str(args.question);
      const proposedAction = typeof args.proposedAction === "string" ? args.proposedAction : undefined;
      return escalation(s, n + 1, "request_human", proposedAction ? `Approval needed: ${proposedAction} — ${question}` : question, { stepId, ...args }, null);
    }
    if (call.name === CONTROL_TOOLS.finish) {
      const stated = Array.isArray(args.gaps) ? args.gaps.filter((g): g is string => typeof g === "string" && g.trim() !== "") : [];
      // The agent's own account of what it did not do wins; without one, the calls a human rejected.
      return act(s, { kind: "finish", summary: str(args.result), gaps: stated.length ? stated : [...new Set(s.rejectedCalls)] });
    }
    if (call.name === CONTROL_TOOLS.declareDeadEnd) return act(s, { kind: "dead_end", reason: str(args.reason) });
  }
  return atCall({ ...s, turnProgress: { ...tp, k: tp.k + 1 } });
}

function endOfTurn(s: LoopState): LoopDecision {
  const tp = s.turnProgress!;
  const c = s.config;
  const n = s.turn;
  if (tp.escalationRequested) {
    const { note, by } = tp.escalationRequested;
    // Who asked (memoized turns from before the field was recorded have none: "an operator").
    const message = note ? `Escalated by ${by ?? "an operator"}: ${asSentence(note)}` : `Escalated by ${by ?? "an operator"}.`;
    return escalation(s, n + 1, "manual", message, { note, by: by ?? null }, null);
  }
  const reason = checkpointReasonAfterTurn({
    requested: tp.checkpointRequested,
    phaseCompleted: tp.phaseCompleted,
    lastModelCostUsd: tp.costUsd,
    expensiveStepUsd: c.expensiveStepUsd,
    stepsSinceCheckpoint: s.stepsSinceCheckpoint,
    every: c.checkpointEverySteps,
  });
  if (reason)
    return act(s, {
      kind: "checkpoint",
      stepId: `checkpoint-${n + 1}`,
      reason,
      withModel: true,
      cut: true,
      nextTurn: n + 1,
      ...withEffort(checkpointEffort(s)),
    });
  return act(s, { kind: "next_turn", nudge: false });
}

/** A compacted start is compacted again for a refusal only when the new limit is below this share of the one it was compacted to. */
const RECOMPACT_SHARE = 0.9;

/**
 * The provider refused the prompt as too long (`context_length`). Compact first, sized on the limit
 * the provider stated (else the window), and retry the call from the compacted checkpoint: the
 * segment's start at its first turn, the state as it stands mid-segment (saved whole first, so the
 * references have a row to point at). Escalate `saturation` only when the refused context was
 * itself a compaction — a segment's first call from a compacted start — that a tighter limit would
 * not change; the message says what was compacted, the sizes before → after, and the limits.
 */
function afterContextRefusal(s: LoopState, o: Extract<LoopOutcome, { kind: "model_failed" }>): LoopDecision {
  const c = s.config;
  const n = s.turn;
  const stated = o.stated ?? null;
  const first = n === c.firstTurn;
  const from = first ? (c.compactedStart ?? null) : null;
  // "Before" is the prompt that was refused, as the loop measured it (the provider's own count is quoted beside it).
  const beforeTokens = o.promptTokens ?? stated?.promptTokens ?? c.contextWindow;
  const limitTokens = refusalCompactionLimit({
    contextWindow: c.contextWindow,
    ratio: c.saturationRatio,
    statedLimitTokens: stated?.limitTokens ?? null,
    knownLimitTokens: c.providerLimitTokens ?? c.compactedStart?.providerLimitTokens ?? null,
    localPromptTokens: o.promptTokens ?? null,
    providerPromptTokens: stated?.promptTokens ?? null,
  });
  const providerLimitTokens = stated?.limitTokens ?? c.providerLimitTokens ?? c.compactedStart?.providerLimitTokens ?? null;
  const refusal = o.message.slice(0, 500);
  if (from && !(limitTokens < Math.floor(from.limitTokens * RECOMPACT_SHARE))) {
    const sizedOn = from.providerLimitTokens ? `the provider's stated ${from.providerLimitTokens}-token limit` : `the ${from.contextWindow}-token window`;
    const what = from.referencedFacts
      ? `${from.referencedFacts} large fact(s) made references and the completed steps folded`
      : "the completed steps folded, no fact set aside";
    const providerSays = [
      stated?.limitTokens ? `a limit of ${stated.limitTokens} tokens` : null,
      stated?.promptTokens ? `${stated.promptTokens} prompt tokens by its count` : null,
    ].filter(Boolean);
    return escalation(
      s,
      n,
      "saturation",
      `The provider refused the compacted context: it was compacted from ${from.beforeTokens} to ${from.afterTokens} tokens (${what}; limit ${from.limitTokens}, sized on ${sizedOn}) and the ${beforeTokens}-token prompt was still too long${providerSays.length ? ` (the provider states ${providerSays.join(", ")})` : ""}. Give the task a model with a larger window, or remove facts. Provider: ${refusal}`.slice(
        0,
        2_000,
      ),
      { ...from, refusedPromptTokens: beforeTokens, stated, provider: refusal },
      "saturation",
    );
  }
  return act(s, {
    kind: "compact",
    // A compacted start compacted again (a tighter stated limit) needs a step id of its own: `compact-<n>` made the start.
    stepId: from ? `compact-${n}-${limitTokens}` : `compact-${n}`,
    nextTurn: n,
    limitTokens,
    beforeTokens,
    source: first ? "start" : "current",
    // Mid-segment the references need a row holding the state whole: the latest checkpoint when nothing happened since, else a new one.
    checkpointFirst: !first && (s.stepsSinceCheckpoint > 0 || !s.latestCheckpointId) ? { reason: "saturation", stepId: `checkpoint-${n}`, nextTurn: n } : null,
    providerLimitTokens,
    refusal,
  });
}

/**
 * The pure decision of the loop: given the state (with `outcome` already folded in by
 * `foldOutcome`) and the outcome of the last action, the next action and the state to take it
 * from (the position in the turn may have moved on). Order of checks, as the loop always made them:
 *
 * - turn start: a ceiling → escalate `budget`; a saturated prompt → compact the start (first turn of
 *   a segment: `compact`), checkpoint `saturation` and cut (a fact was recorded since the last
 *   compaction, or the segment did not start from one), escalate `saturation` with the sizes (no
 *   progress and over the window), else call the model;
 * - after the model: an escalating detector → escalate; a turn run below the effort policy's
 *   `side_effect` level that proposes a side-effecting, egress or risky call → discard it and call the
 *   model again for the same turn at that level (`model-<n>-recheck`); no tool call → next turn with
 *   a nudge; else the first call;
 * - every model call (and a checkpoint's summary) carries the effort the profile's policy gives its
 *   situation (agent-loop/effort.ts `turnSituation`), recorded on the state as `turnEffort`;
 * - before each call: a ceiling → escalate `budget`; a risky call → checkpoint `before_risky` (when
 *   something happened since the last one), then with approval required the verdict: none → escalate
 *   `risky_action`, reject → the call is refused, approve → it runs;
 * - after each call: unresolved effect → escalate; escalating detector → escalate; control tools
 *   (`request_human` → escalate, `finish` → completed with its gaps, `declare_dead_end` → dead end);
 * - after the last call: an operator's escalation → escalate `manual`; `checkpointReasonAfterTurn`
 *   (on request, phase complete, expensive step, interval) → checkpoint and cut; else next turn;
 * - a model call failed for good: `context_length` (the provider said the prompt is too long) →
 *   compact, sized on the limit the provider stated (else the window): the segment's start at its
 *   first turn, the current state mid-segment (saved whole first), and the call is retried from the
 *   compacted checkpoint; at the first turn of a segment that started from a compaction (unless the
 *   provider now states a much tighter limit: compact again) → escalate `saturation` with what was
 *   compacted and the sizes; any other kind → fail `transient` (auto-resume per profile) or `error`;
 * - a compaction: fits → continue from its checkpoint; does not → escalate `saturation` with sizes.
 */
export function decide(state: LoopState, outcome: LoopOutcome): LoopDecision {
  const s = state;
  const n = s.turn;
  switch (outcome.kind) {
    case "turn_start":
      return atTurnStart(s, outcome.promptTokens);
    case "model_failed": {
      if (outcome.errorKind === "context_length") return afterContextRefusal(s, outcome);
      const endReason = endReasonOfModelError(outcome.errorKind);
      return act(s, {
        kind: "fail",
        endReason,
        error: `[${outcome.errorKind}] ${outcome.message}`.slice(0, 2000),
        checkpointFirst: s.stepsSinceCheckpoint > 0 ? { reason: "failure", stepId: `checkpoint-${n}`, nextTurn: n } : null,
        autoResume: endReason === "transient",
      });
    }
    case "model": {
      if (s.escalating) return escalationForAlert(s, n + 1, s.escalating);
      const recheck = recheckForSideEffect(s, outcome.calls);
      if (recheck) {
        const discarded = s.modelStepId ?? `model-${n}`;
        const stepId = `${discarded}-recheck`;
        const proposed = outcome.calls.filter((c) => c.valid).map((c) => c.call.name);
        return act(
          { ...s, turnProgress: null, turnSignals: s.priorTurnSignals, turnEffort: recheck, modelStepId: stepId },
          {
            kind: "call_model",
            stepId,
            effort: recheck,
            discards: {
              stepId: discarded,
              reason: `proposed ${[...new Set(proposed)].join(", ")} at ${s.turnEffort?.level ?? "a lower"} effort; asked again at ${recheck.level}`,
            },
          },
        );
      }
      if (outcome.turn.toolCalls.length === 0) return act(s, { kind: "next_turn", nudge: true });
      return atCall(s);
    }
    case "checkpointed":
      return afterRiskyCheckpoint(s);
    case "approval":
      return afterApproval(s, outcome.verdict, outcome.egress ?? null);
    case "tool":
      return afterTool(s, outcome.result);
    case "compacted": {
      if (outcome.fits && outcome.checkpointId) return act(s, { kind: "continue", checkpointId: outcome.checkpointId, n, reason: "saturation" });
      const z = outcome.sizes;
      const window = z.providerLimitTokens ? `provider's stated ${z.providerLimitTokens}-token limit` : `${z.contextWindow}-token window`;
      return escalation(
        s,
        n,
        "saturation",
        `The checkpoint does not fit the ${window} even compacted: ${z.afterTokens} tokens (limit ${z.limitTokens}, ${z.beforeTokens} before compaction, ${z.referencedFacts} facts made references). Give the task a model with a larger window, or remove facts.`,
        { ...z },
        "saturation",
      );
    }
  }
}

/** `decide(state, outcome).action` — the next action alone (for callers that only need it). */
export function nextAction(state: LoopState, outcome: LoopOutcome): LoopAction {
  return decide(state, outcome).action;
}
