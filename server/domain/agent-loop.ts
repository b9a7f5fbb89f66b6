import { MODEL_ERROR_RETRYABLE, type ModelCallErrorKind } from "../llm/errors.ts";
import type { ModelToolCall, ModelUsage } from "../llm/types.ts";
import type { CompletedStepSummary } from "./agent-context.ts";
import { checkpointReasonAfterTurn, describeToolStep, isSaturated, type CheckpointReason } from "./checkpoint.ts";
import { detectAlerts, type Alert, type StepRecord } from "./detectors.ts";
import { describeCeiling } from "../../lib/contracts/ceiling.ts";
import { REJECTED_BY_HUMAN, rejectedByHumanMessage } from "./rejected-call.ts";
import { reachedCeiling, type Ceiling } from "./step-budget.ts";
import { briefCall } from "./step-summaries.ts";

/**
 * The agent loop as a pure state machine (issue 8, "The loop, redesigned").
 *
 * The Inngest function (server/inngest/functions/agent-run.ts) is wiring only:
 *
 *     state = initialLoopState(start); outcome = { kind: "turn_start", promptTokens }
 *     loop: { state, action } = decide(state, outcome)  ← every decision is made here
 *           outcome = await perform(action)             ← one or more durable steps (server/agent/*)
 *           state = foldOutcome(state, outcome)         ← counters, history, detectors
 *
 * Everything here is pure and deterministic (Inngest replays the function from the top; step ids
 * derive from the turn number `n` and the call's position `k`, exactly as before the redesign):
 * `model-<n>`, `tool-<n>-<k>`, `approval-<n>-<k>`, `checkpoint-<n>` (at the boundary before turn n),
 * `checkpoint-<n>-<k>` (before a risky call), `compact-<n>`, `escalate-<n>`.
 *
 * Where to add things:
 * - a checkpoint trigger after a turn: `checkpointReasonAfterTurn` (checkpoint.ts), called from
 *   `endOfTurn` below; one inside a turn: `atCall`; at a turn's start: `atTurnStart`.
 * - a control tool (a tool the loop reacts to by name): `CONTROL_TOOLS` and `afterTool`.
 * - a ceiling: `reachedCeiling` (step-budget.ts); it is checked before every model and tool call.
 */

/** Escalation reasons the loop opens (Escalation.reason). */
export type LoopEscalationReason =
  "budget" | "loop" | "stall" | "tool_failure" | "saturation" | "request_human" | "risky_action" | "unresolved_effect" | "manual";

/** Tools the loop reacts to by name, and what each does to the run. */
export const CONTROL_TOOLS = {
  /** Ends the run `completed` (with gaps when the agent names them, or a tool it needed was rejected). */
  finish: "finish",
  /** Ends the run `dead_end` with the agent's reason. */
  declareDeadEnd: "declare_dead_end",
  /** Opens a `request_human` escalation with the agent's question. */
  requestHuman: "request_human",
  /** Checkpoints after the turn (`phase_complete`) and cuts a segment. */
  completePhase: "complete_phase",
  /** Not a control tool, but a fact recorded successfully is this segment's structured "progress". */
  recordFact: "record_fact",
} as const;

/** The nudge sent after a model turn without tool calls. */
export const NO_TOOL_CALL_NUDGE = "Use a tool to make progress, or call finish with your result (or declare_dead_end with the reason).";

/** What the loop needs from the segment's start (db/checkpoint-repository.ts `SegmentStart`). Plain data. */
export interface LoopConfig {
  /** The turn this segment starts at (continues across segments). */
  firstTurn: number;
  goal: string;
  stepBudget: number;
  tokenBudget: number | null;
  costBudgetUsd: number | null;
  contextWindow: number;
  saturationRatio: number;
  expensiveStepUsd: number | null;
  checkpointEverySteps: number;
  stallSteps: number;
  stallGraceSteps: number;
  requireApproval: boolean;
  /** Why the starting checkpoint was taken (null = from the beginning). */
  fromReason: string | null;
  /** Tools whose identical repeats are legitimate (tool definitions with `repeatable`): never a loop. */
  repeatableTools: readonly string[];
}

/** A tool call of a model turn, inspected once when the turn arrives (validation + ledger fingerprint). */
export interface InspectedCall {
  call: ModelToolCall;
  /** The call is well-formed for its tool. */
  valid: boolean;
  /** The validated arguments (or the raw text when malformed). */
  args: unknown;
  /** The tool says a checkpoint (and, with approval, a human) goes before it. */
  risky: boolean;
  /** Ledger fingerprint of a well-formed side-effecting call, else null. */
  fingerprint: string | null;
  /** The tool sends out of the organisation (`egress`): the egress gate judges the call before it runs (server/tools/egress-gate.ts). */
  egress?: boolean;
}

/** The egress gate's verdict on a call (server/tools/egress-gate.ts `EgressVerdict`, structurally). */
export interface LoopEgress {
  action: "allow" | "escalate" | "refuse";
  reasons?: string[];
  summary?: string;
  breaches?: unknown[];
  findings?: unknown[];
  /** The arguments with every finding redacted: what the escalation card shows. */
  redactedArguments?: Record<string, unknown>;
}

/** What a memoized model step returns when the call succeeded: small JSON, enough to rebuild the transcript. */
export interface ModelTurn {
  content: string | null;
  toolCalls: ModelToolCall[];
  usage: ModelUsage;
  finishReason: string;
  costUsd: number;
  /** An operator asked for a checkpoint (read when the step ran, memoized with it). */
  checkpointRequested: boolean;
  /** An operator asked to escalate the run (with an optional note). */
  escalationRequested: { note: string | null } | null;
  /** The task's model spend in USD after this call (all runs, retries included) — only with a dollar ceiling. */
  spendUsd?: number;
}

/** A tool call's result (tools/registry.ts `ToolCallResult`, structurally). */
export type LoopToolResult = { ok: true; output: unknown } | { ok: false; error: { code: string; message: string; idempotencyKey?: string; gap?: string } };

/** A human's verdict on a risky call (db/approval-repository.ts `RiskyVerdict`, structurally). */
export interface LoopVerdict {
  decision: "approve" | "reject";
  decidedBy: string | null;
  guidance: string | null;
}

/**
 * Model-call failure kinds (llm/errors.ts `ModelCallErrorKind`), plus `step_error`: the
 * model step itself failed for good with anything else (the database was down through its retries).
 */
export type LoopModelErrorKind = ModelCallErrorKind | "step_error";

/** The outcome of the last action, handed to `nextAction`. */
export type LoopOutcome =
  /** The loop is at the start of turn `state.turn`; `promptTokens` = the next prompt, counted locally. */
  | { kind: "turn_start"; promptTokens: number }
  | { kind: "model"; turn: ModelTurn; calls: InspectedCall[] }
  /** The model call failed for good (out of retries, or not retryable). */
  | { kind: "model_failed"; errorKind: LoopModelErrorKind; message: string }
  | { kind: "tool"; result: LoopToolResult }
  /** A checkpoint that does not cut the segment was taken (before a risky call). */
  | { kind: "checkpointed"; checkpointId: string; spendUsd: number }
  | { kind: "approval"; verdict: LoopVerdict | null; egress?: LoopEgress | null }
  /** The segment's starting state was compacted (`compact-<n>`): `checkpointId` when it now fits. */
  | { kind: "compacted"; fits: boolean; checkpointId: string | null; sizes: CompactionSizes };

/** Sizes a compaction reports (tokens, counted locally). */
export interface CompactionSizes {
  contextWindow: number;
  /** Prompt tokens the segment would start with before compaction. */
  beforeTokens: number;
  /** Prompt tokens after the best compaction. */
  afterTokens: number;
  /** Largest prompt the loop accepts to start a turn (window × saturation ratio). */
  limitTokens: number;
  /** Working-set values replaced by references. */
  referencedFacts: number;
}

/** A checkpoint taken right before another action, without a model summary and without a cut. */
export interface CheckpointFirst {
  reason: CheckpointReason;
  stepId: string;
  nextTurn: number;
  openQuestion?: string;
}

/** What the loop does next. */
export type LoopAction =
  | { kind: "call_model"; stepId: string }
  /** No step: go to the next turn (`nudge`: first tell the model to use a tool). */
  | { kind: "next_turn"; nudge: boolean }
  /** Checkpoint at step `stepId`; with `cut`, the segment ends and the next goes on from it. */
  | { kind: "checkpoint"; stepId: string; reason: CheckpointReason; withModel: boolean; cut: boolean; nextTurn: number; openQuestion?: string }
  /** Compact the segment's starting state (it does not fit the window) into a new checkpoint. */
  | { kind: "compact"; stepId: string; nextTurn: number; limitTokens: number; beforeTokens: number }
  /** `egress`: first run the egress gate on the call in step `egress.stepId`. */
  | { kind: "check_approval"; stepId: string; fingerprint: string; egress?: { stepId: string; tool: string; args: unknown } }
  | { kind: "run_tool"; stepId: string; call: ModelToolCall; fingerprint: string | null; refused?: LoopToolResult }
  | {
      kind: "escalate";
      /** Turn number used for the escalation's step ids (`escalate-<n>`, `notify-<n>`, …). */
      n: number;
      reason: LoopEscalationReason;
      message: string;
      evidence: Record<string, unknown>;
      endReason: string | null;
      fingerprint: string | null;
      /** Checkpoint first (null when nothing happened since the last one). */
      checkpointFirst: CheckpointFirst | null;
      /** Alert kind recorded with the escalation (the timeline's red line). */
      alertKind: string;
    }
  /** No step of its own: the segment ends and the next goes on from `checkpointId` (after a compaction). */
  | { kind: "continue"; checkpointId: string; n: number; reason: CheckpointReason }
  | { kind: "finish"; summary: string; gaps: string[] }
  | { kind: "dead_end"; reason: string }
  | { kind: "fail"; endReason: "transient" | "error"; error: string; checkpointFirst: CheckpointFirst | null; autoResume: boolean };

/** The tool calls of the current turn and how far the loop is through them. */
export interface TurnProgress {
  calls: InspectedCall[];
  /** Position of the call the loop is at. */
  k: number;
  phaseCompleted: boolean;
  costUsd: number;
  checkpointRequested: boolean;
  escalationRequested: { note: string | null } | null;
}

/** The run state of one segment. Immutable: `foldOutcome` returns a new one. */
export interface LoopState {
  config: LoopConfig;
  /** Current turn number n. */
  turn: number;
  stepsUsed: number;
  tokensUsed: number;
  /** The task's model spend in USD, as of the latest model or checkpoint step (dollar ceiling). */
  costUsd: number;
  stepsSinceCheckpoint: number;
  lastStepId: string;
  /** The latest checkpoint this run can go back to. */
  latestCheckpointId: string | null;
  /** Structured progress flag: a fact was recorded successfully in this segment. */
  recordedFact: boolean;
  /** This segment's compact completed steps (for its checkpoints). */
  segmentSteps: CompletedStepSummary[];
  /** This segment's step history for the detectors. */
  history: StepRecord[];
  factKeys: string[];
  previousBudgets: { stepsUsed: number; tokensUsed: number; costUsd: number };
  /** The current turn's tool calls; null between turns. */
  turnProgress: TurnProgress | null;
  /** Alerts raised by the latest step to record on the timeline (not escalating). */
  alertsToRecord: Alert[];
  /** An escalating detector alert raised by the latest step. */
  escalating: Alert | null;
  /** Tool calls a human rejected in this segment (each one a gap of a completed run). */
  rejectedCalls: string[];
}

/** The state a segment starts with. */
export function initialLoopState({
  config,
  stepsUsed,
  tokensUsed,
  costUsd,
  checkpointId,
  workingSetKeys,
}: {
  config: LoopConfig;
  stepsUsed: number;
  tokensUsed: number;
  costUsd: number;
  checkpointId: string | null;
  workingSetKeys: string[];
}): LoopState {
  return {
    config,
    turn: config.firstTurn,
    stepsUsed,
    tokensUsed,
    costUsd,
    stepsSinceCheckpoint: 0,
    lastStepId: "start",
    latestCheckpointId: checkpointId,
    recordedFact: false,
    segmentSteps: [],
    history: [],
    factKeys: [...workingSetKeys],
    previousBudgets: { stepsUsed, tokensUsed, costUsd },
    turnProgress: null,
    alertsToRecord: [],
    escalating: null,
    rejectedCalls: [],
  };
}

// ---------------------------------------------------------------------------------------------------
// Reason mappings

/** The checkpoint reason taken before an escalation of `reason`. */
export function checkpointReasonForEscalation(reason: LoopEscalationReason): CheckpointReason {
  switch (reason) {
    case "budget":
      return "ceiling";
    case "manual":
      return "on_request";
    case "risky_action":
      return "before_risky";
    case "unresolved_effect":
      return "failure";
    default:
      return reason;
  }
}

/** The alert kind recorded with an escalation of `reason` (human-initiated ones are "escalation"). */
export function alertKindForEscalation(reason: LoopEscalationReason): string {
  return reason === "request_human" || reason === "risky_action" || reason === "unresolved_effect" ? "escalation" : reason;
}

/** The escalation reason for an escalating detector alert (budget ceilings are enforced apart). */
export function escalationReasonOfAlert(alert: Alert): "loop" | "stall" | "tool_failure" {
  return alert.kind === "loop" || alert.kind === "tool_failure" ? alert.kind : "stall";
}

/**
 * The end reason of a model call that failed for good: the retryable kinds (llm/errors.ts
 * MODEL_ERROR_RETRYABLE: the provider or the network was down) are `transient` — the profile may auto-resume — the rest `error`.
 */
export function endReasonOfModelError(kind: LoopModelErrorKind): "transient" | "error" {
  return kind !== "step_error" && MODEL_ERROR_RETRYABLE[kind] ? "transient" : "error";
}

// ---------------------------------------------------------------------------------------------------
// Fold

function ceilingOf(s: LoopState): Ceiling | null {
  const c = s.config;
  return reachedCeiling({
    stepsUsed: s.stepsUsed,
    stepBudget: c.stepBudget,
    tokensUsed: s.tokensUsed,
    tokenBudget: c.tokenBudget,
    costUsd: s.costUsd,
    costBudgetUsd: c.costBudgetUsd,
  });
}

/**
 * Runs the detectors on the latest step: alerts to record, and the escalating one (not budget).
 * Tools declared `repeatable` never raise a loop; after a model step its prompt tokens feed the
 * saturation info alert.
 */
function withDetectors(s: LoopState, promptTokens?: number): LoopState {
  const c = s.config;
  const raised = detectAlerts({
    steps: s.history,
    goal: c.goal,
    budgets: {
      stepsUsed: s.stepsUsed,
      stepBudget: c.stepBudget,
      tokensUsed: s.tokensUsed,
      tokenBudget: c.tokenBudget,
      costUsd: s.costUsd,
      costBudgetUsd: c.costBudgetUsd,
    },
    previousBudgets: s.previousBudgets,
    thresholds: { stallSteps: c.stallSteps, graceSteps: c.stallGraceSteps, repeatableTools: [...c.repeatableTools] },
    ...(promptTokens !== undefined ? { context: { promptTokens, contextWindow: c.contextWindow, ratio: c.saturationRatio } } : {}),
  });
  const escalating = raised.find((a) => a.escalate && a.kind !== "budget") ?? null;
  // Budget ceilings are enforced by reachedCeiling, so an escalating budget alert is not recorded here.
  const alertsToRecord = raised.filter((a) => a !== escalating && !(a.kind === "budget" && a.escalate));
  return { ...s, escalating, alertsToRecord, previousBudgets: { stepsUsed: s.stepsUsed, tokensUsed: s.tokensUsed, costUsd: s.costUsd } };
}

/**
 * Folds the outcome of an action into the state (pure). `modelStepId`/`toolStepId` are derived from
 * the state. `turn_start`, `approval` and `compacted` change nothing but the pending alerts.
 */
export function foldOutcome(state: LoopState, outcome: LoopOutcome): LoopState {
  const s: LoopState = { ...state, alertsToRecord: [], escalating: null };
  switch (outcome.kind) {
    case "model": {
      const { turn } = outcome;
      const stepId = `model-${s.turn}`;
      const tokens = turn.usage.promptTokens + turn.usage.completionTokens;
      const next: LoopState = {
        ...s,
        stepsUsed: s.stepsUsed + 1,
        stepsSinceCheckpoint: s.stepsSinceCheckpoint + 1,
        lastStepId: stepId,
        tokensUsed: s.tokensUsed + tokens,
        costUsd: turn.spendUsd ?? s.costUsd + turn.costUsd,
        history: [...s.history, { stepId, kind: "model", factsAfter: s.factKeys.length, tokens }],
        turnProgress: {
          calls: outcome.calls,
          k: 0,
          phaseCompleted: false,
          costUsd: turn.costUsd,
          checkpointRequested: turn.checkpointRequested,
          escalationRequested: turn.escalationRequested,
        },
      };
      // The prompt the provider counted: a saturation info alert on the timeline when it reaches the ratio.
      return withDetectors(next, turn.usage.promptTokens);
    }
    case "tool": {
      const tp = s.turnProgress;
      if (!tp) throw new Error("foldOutcome: a tool outcome outside a turn");
      const inspected = tp.calls[tp.k]!;
      const { call } = inspected;
      const { result } = outcome;
      const stepId = `tool-${s.turn}-${tp.k}`;
      let factKeys = s.factKeys;
      let recordedFact = s.recordedFact;
      if (result.ok && call.name === CONTROL_TOOLS.recordFact) {
        recordedFact = true;
        const key = (inspected.args as { key?: unknown } | null)?.key;
        if (typeof key === "string" && !factKeys.includes(key)) factKeys = [...factKeys, key];
      }
      const next: LoopState = {
        ...s,
        stepsUsed: s.stepsUsed + 1,
        stepsSinceCheckpoint: s.stepsSinceCheckpoint + 1,
        lastStepId: stepId,
        factKeys,
        recordedFact,
        segmentSteps: [...s.segmentSteps, { stepId, tool: call.name, summary: describeToolStep(call.name, call.arguments, result) }],
        history: [
          ...s.history,
          {
            stepId,
            kind: "tool",
            tool: call.name,
            rawArguments: call.arguments,
            ok: result.ok,
            ...(result.ok ? {} : { errorCode: result.error.code }),
            factsAfter: factKeys.length,
          },
        ],
        rejectedCalls:
          !result.ok && result.error.code === REJECTED_BY_HUMAN
            ? [...s.rejectedCalls, result.error.gap ?? `${call.name} was not run: rejected by a human`]
            : s.rejectedCalls,
        turnProgress: { ...tp, phaseCompleted: tp.phaseCompleted || (result.ok && call.name === CONTROL_TOOLS.completePhase) },
      };
      return withDetectors(next);
    }
    case "checkpointed":
      return { ...s, stepsSinceCheckpoint: 0, latestCheckpointId: outcome.checkpointId, costUsd: Math.max(s.costUsd, outcome.spendUsd) };
    default:
      return s;
  }
}

/** The state after `next_turn` (and after the last call of a turn moved on). */
export function advanceTurn(state: LoopState): LoopState {
  return { ...state, turn: state.turn + 1, turnProgress: null };
}

// ---------------------------------------------------------------------------------------------------
// Decide

/** A decision: the next action and the state it is taken from (the call position may have moved). */
export interface LoopDecision {
  state: LoopState;
  action: LoopAction;
}

function escalation(
  s: LoopState,
  n: number,
  reason: LoopEscalationReason,
  message: string,
  evidence: Record<string, unknown>,
  endReason: string | null,
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

const act = (state: LoopState, action: LoopAction): LoopDecision => ({ state, action });

function atTurnStart(s: LoopState, promptTokens: number): LoopDecision {
  const c = s.config;
  const n = s.turn;
  const ceiling = ceilingOf(s);
  if (ceiling)
    return escalation(s, n, "budget", `The ${describeCeiling(ceiling)}. The run stopped before the next model call.`, { ceiling }, "budget_exhausted");
  if (isSaturated({ promptTokens, contextWindow: c.contextWindow, ratio: c.saturationRatio })) {
    const limitTokens = Math.floor(c.contextWindow * c.saturationRatio);
    // The segment's own starting state fills the window (a resume into a smaller window, a few huge
    // facts, a checkpoint that grew too big): compact the checkpoint itself; the compaction says
    // whether it now fits, and escalates with the sizes when it cannot.
    if (n === c.firstTurn) return act(s, { kind: "compact", stepId: `compact-${n}`, nextTurn: n, limitTokens, beforeTokens: promptTokens });
    if (s.recordedFact || c.fromReason !== "saturation")
      return act(s, { kind: "checkpoint", stepId: `checkpoint-${n}`, reason: "saturation", withModel: true, cut: true, nextTurn: n });
    // Compacting again now would drop what this segment read but has not recorded yet and restart
    // from the same state: go on while the prompt still fits the window, so the agent can record it.
    if (promptTokens >= c.contextWindow) {
      return escalation(
        s,
        n,
        "saturation",
        `The context outgrew the ${c.contextWindow}-token window (${promptTokens} tokens) with no new fact since it was last compacted: compaction cannot make room for this work.`,
        { promptTokens, contextWindow: c.contextWindow, limitTokens },
        "saturation",
      );
    }
  }
  return act(s, { kind: "call_model", stepId: `model-${n}` });
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
      `The ${describeCeiling(ceiling)}. ${tp.calls.length - tp.k} tool call(s) of this turn were not run.`,
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
  // An egress call is judged by the egress gate whatever requireApproval says (ARCHITECTURE.md "Identity");
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
  // A breach of the egress policy needs a human whatever the task's requireApproval; the card shows
  // the reasons and the arguments redacted (never a secret).
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
      breach
        ? `Approval needed (${(breach.reasons ?? []).join("; ")}): ${briefCall(call.name, shown)}. ${breach.summary ?? ""}`.trim().slice(0, 2_000)
        : `Approval needed: ${briefCall(call.name, inspected.args)}`,
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
  if (s.escalating) return escalation(s, n + 1, escalationReasonOfAlert(s.escalating), s.escalating.message, s.escalating.evidence, s.escalating.kind);
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
    const note = tp.escalationRequested.note;
    return escalation(s, n + 1, "manual", `Escalated by an operator${note ? `: ${note}` : ""}.`, { note }, null);
  }
  const reason = checkpointReasonAfterTurn({
    requested: tp.checkpointRequested,
    phaseCompleted: tp.phaseCompleted,
    lastModelCostUsd: tp.costUsd,
    expensiveStepUsd: c.expensiveStepUsd,
    stepsSinceCheckpoint: s.stepsSinceCheckpoint,
    every: c.checkpointEverySteps,
  });
  if (reason) return act(s, { kind: "checkpoint", stepId: `checkpoint-${n + 1}`, reason, withModel: true, cut: true, nextTurn: n + 1 });
  return act(s, { kind: "next_turn", nudge: false });
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
 * - after the model: an escalating detector → escalate; no tool call → next turn with a nudge; else
 *   the first call;
 * - before each call: a ceiling → escalate `budget`; a risky call → checkpoint `before_risky` (when
 *   something happened since the last one), then with approval required the verdict: none → escalate
 *   `risky_action`, reject → the call is refused, approve → it runs;
 * - after each call: unresolved effect → escalate; escalating detector → escalate; control tools
 *   (`request_human` → escalate, `finish` → completed with its gaps, `declare_dead_end` → dead end);
 * - after the last call: an operator's escalation → escalate `manual`; `checkpointReasonAfterTurn`
 *   (on request, phase complete, expensive step, interval) → checkpoint and cut; else next turn;
 * - a model call failed for good: `context_length` (the provider said the prompt is too long) →
 *   checkpoint `saturation` and cut, or compact at a segment's first turn; at the first turn of a
 *   segment that already started from a saturation checkpoint → escalate `saturation`; any other
 *   kind → fail `transient` (auto-resume per profile) or `error`;
 * - a compaction: fits → continue from its checkpoint; does not → escalate `saturation` with sizes.
 */
export function decide(state: LoopState, outcome: LoopOutcome): LoopDecision {
  const s = state;
  const n = s.turn;
  const c = s.config;
  switch (outcome.kind) {
    case "turn_start":
      return atTurnStart(s, outcome.promptTokens);
    case "model_failed": {
      if (outcome.errorKind === "context_length") {
        if (n === c.firstTurn && c.fromReason === "saturation") {
          return escalation(
            s,
            n,
            "saturation",
            `The provider refused the compacted context as too long for the ${c.contextWindow}-token window: ${outcome.message}`,
            { contextWindow: c.contextWindow, provider: outcome.message },
            "saturation",
          );
        }
        const limitTokens = Math.floor(c.contextWindow * c.saturationRatio);
        if (n === c.firstTurn) return act(s, { kind: "compact", stepId: `compact-${n}`, nextTurn: n, limitTokens, beforeTokens: c.contextWindow });
        return act(s, { kind: "checkpoint", stepId: `checkpoint-${n}`, reason: "saturation", withModel: true, cut: true, nextTurn: n });
      }
      const endReason = endReasonOfModelError(outcome.errorKind);
      return act(s, {
        kind: "fail",
        endReason,
        error: `[${outcome.errorKind}] ${outcome.message}`.slice(0, 2000),
        checkpointFirst: s.stepsSinceCheckpoint > 0 ? { reason: "failure", stepId: `checkpoint-${n}`, nextTurn: n } : null,
        autoResume: endReason === "transient",
      });
    }
    case "model":
      if (s.escalating) return escalation(s, n + 1, escalationReasonOfAlert(s.escalating), s.escalating.message, s.escalating.evidence, s.escalating.kind);
      if (outcome.turn.toolCalls.length === 0) return act(s, { kind: "next_turn", nudge: true });
      return atCall(s);
    case "checkpointed":
      return afterRiskyCheckpoint(s);
    case "approval":
      return afterApproval(s, outcome.verdict, outcome.egress ?? null);
    case "tool":
      return afterTool(s, outcome.result);
    case "compacted":
      if (outcome.fits && outcome.checkpointId) return act(s, { kind: "continue", checkpointId: outcome.checkpointId, n, reason: "saturation" });
      return escalation(
        s,
        n,
        "saturation",
        `The checkpoint does not fit the ${outcome.sizes.contextWindow}-token window even compacted: ${outcome.sizes.afterTokens} tokens (limit ${outcome.sizes.limitTokens}, ${outcome.sizes.beforeTokens} before compaction, ${outcome.sizes.referencedFacts} facts made references). Give the task a model with a larger window, or remove facts.`,
        { ...outcome.sizes },
        "saturation",
      );
  }
}

/** `decide(state, outcome).action` — the next action alone (for callers that only need it). */
export function nextAction(state: LoopState, outcome: LoopOutcome): LoopAction {
  return decide(state, outcome).action;
}
