import type { StatedContextLimit } from "../../llm/errors.ts";
import type { ModelCallErrorKind } from "../model-error-kinds.ts";
import type { ModelToolCall, ModelUsage } from "../../llm/types.ts";
import type { CompletedStepSummary } from "../agent-context.ts";
import type { CheckpointReason } from "../checkpoint.ts";
import type { Alert, StepRecord } from "../detectors.ts";
import type { BudgetBasis } from "../budget-from-history.ts";
import type { EffortChoice, EffortPolicy } from "../../../lib/contracts/effort.ts";
import type { EscalationReason } from "../../../lib/contracts/escalation.ts";
import type { RunEndReason } from "../../../lib/contracts/status.ts";

// The agent loop's shapes (plain data) and the names it reacts to; index.ts says how the parts fit.

/** Escalation reasons the loop opens (Escalation.reason). */
export type LoopEscalationReason = EscalationReason;

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
  /** Where the budgets came from when derived from history (Task.budgetBasis); a ceiling reached quotes its p90. */
  budgetBasis?: BudgetBasis | null;
  /**
   * The sizes of the compaction the starting checkpoint came from (a `compact-<n>` step), null when
   * it was not compacted: a refusal of this start is a refusal of the *compacted* context, and a
   * limit the provider stated then bounds this segment's window too.
   */
  compactedStart?: CompactionSizes | null;
  /**
   * The context the provider stated it accepts, when one of its refusals to this task said so — in
   * this run or one before it that this one resumes (the latest compaction sized on it): the loop
   * works inside it as inside the window, and a compaction it sizes on it says so.
   */
  providerLimitTokens?: number | null;
  /** The profile's effort policy (lib/contracts/effort.ts); null/absent = no effort decided, nothing sent. */
  effort?: EffortPolicy | null;
  /** The profile's model: what a call runs on unless the policy names one for its level. */
  model?: string;
  /** The segment starts right after a human decision (a resume or fork): its first turn is `after_human`. */
  afterHuman?: boolean;
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
  escalationRequested: { note: string | null; by?: string | null } | null;
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
 * Model-call failure kinds (domain/model-error-kinds.ts `ModelCallErrorKind`), plus `step_error`: the
 * model step itself failed for good with anything else (the database was down through its retries).
 */
export type LoopModelErrorKind = ModelCallErrorKind | "step_error";

/** The outcome of the last action, handed to `nextAction`. */
export type LoopOutcome =
  /** The loop is at the start of turn `state.turn`; `promptTokens` = the next prompt, counted locally. */
  | { kind: "turn_start"; promptTokens: number }
  | { kind: "model"; turn: ModelTurn; calls: InspectedCall[] }
  /** The model call failed for good (out of retries, or not retryable). */
  | {
      kind: "model_failed";
      errorKind: LoopModelErrorKind;
      message: string;
      /** The refused prompt, counted locally (context_length). */
      promptTokens?: number;
      /** What the provider's refusal stated of its limit (context_length; llm/errors.ts parseContextLimit). */
      stated?: StatedContextLimit | null;
    }
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
  /** The context the provider said it accepts (its refusal stated it), when it did; the limit was sized on it. */
  providerLimitTokens?: number | null;
  /** The provider's refusal that caused the compaction (its text), when one did. */
  refusal?: string | null;
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
  /**
   * Call the model in step `stepId` at `effort` (absent without a policy). With `discards`, the turn of
   * model step `discards.stepId` is thrown away first (its calls never run; its spend is `discarded`)
   * and the same turn asked again: a turn run below the policy's `side_effect` level proposed a side effect.
   */
  | { kind: "call_model"; stepId: string; effort?: EffortChoice | null; discards?: { stepId: string; reason: string } }
  /** No step: go to the next turn (`nudge`: first tell the model to use a tool). */
  | { kind: "next_turn"; nudge: boolean }
  /** Checkpoint at step `stepId`; with `cut`, the segment ends and the next goes on from it. */
  | {
      kind: "checkpoint";
      stepId: string;
      reason: CheckpointReason;
      withModel: boolean;
      cut: boolean;
      nextTurn: number;
      openQuestion?: string;
      /** The summary request's effort (`withModel` with a policy). */
      effort?: EffortChoice | null;
    }
  /**
   * Compact into a new checkpoint and go on from it: the segment's starting state (`source: "start"`,
   * it does not fit the window), or — after the provider refused a prompt mid-segment — the state as
   * it stands (`source: "current"`: `checkpointFirst` saves it whole, the compaction references it).
   */
  | {
      kind: "compact";
      stepId: string;
      nextTurn: number;
      limitTokens: number;
      beforeTokens: number;
      source?: "start" | "current";
      checkpointFirst?: CheckpointFirst | null;
      providerLimitTokens?: number | null;
      refusal?: string | null;
    }
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
      /** Run.endReason: the detector's (its alert kind) or the ceiling's; null when the agent or a person asked for a human. */
      endReason: RunEndReason | null;
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
  escalationRequested: { note: string | null; by?: string | null } | null;
}

/** What the effort dial reads of a model turn once its calls ran (server/domain/agent-loop/effort.ts `turnSituation`). */
export interface TurnSignals {
  /** Tool calls the turn made (0 = a turn without a call: the model was nudged). */
  calls: number;
  /** A call failed, was malformed, or was refused. */
  failed: boolean;
  /** A side-effecting, egress or risky call ran successfully. */
  sideEffect: boolean;
  /** A detector raised a warning on one of its steps. */
  warned: boolean;
  /** A human's verdict on one of its calls arrived. */
  humanDecision: boolean;
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
  /** The latest model turn's signals (at a turn's start: the previous turn's); null before this segment's first turn. */
  turnSignals: TurnSignals | null;
  /** The signals of the turn before the latest one (restored when the latest is discarded and asked again). */
  priorTurnSignals: TurnSignals | null;
  /** The current turn's effort, as decided when its model call was (null without a policy). */
  turnEffort: EffortChoice | null;
  /** The current turn's model step id: `model-<n>`, or `model-<n>-recheck` when it was asked again. */
  modelStepId: string | null;
}

/** A decision: the next action and the state it is taken from (the call position may have moved). */
export interface LoopDecision {
  state: LoopState;
  action: LoopAction;
}
