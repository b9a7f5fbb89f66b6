import { describeToolStep } from "../checkpoint.ts";
import { detectAlerts } from "../detectors.ts";
import { REJECTED_BY_HUMAN } from "../rejected-call.ts";
import { reachedCeiling, type Ceiling } from "../step-budget.ts";
import { FRESH_TURN, isConsequentialCall } from "./effort.ts";
import { CONTROL_TOOLS, type LoopConfig, type LoopOutcome, type LoopState, type TurnSignals } from "./types.ts";

// The agent loop's fold: the state a segment starts with, and each outcome folded into the state
// (counters, history, detectors). Pure.

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
    turnSignals: null,
    priorTurnSignals: null,
    turnEffort: null,
    modelStepId: null,
  };
}

/** What the state has used of its budgets, beside the budgets (steps, tokens, USD; null = no ceiling). */
function budgetsOf(s: LoopState) {
  const c = s.config;
  return {
    stepsUsed: s.stepsUsed,
    stepBudget: c.stepBudget,
    tokensUsed: s.tokensUsed,
    tokenBudget: c.tokenBudget,
    costUsd: s.costUsd,
    costBudgetUsd: c.costBudgetUsd,
  };
}

/** The ceiling the state has reached (step-budget.ts `reachedCeiling`), or null. */
export function ceilingOf(s: LoopState): Ceiling | null {
  return reachedCeiling(budgetsOf(s));
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
    budgets: budgetsOf(s),
    previousBudgets: s.previousBudgets,
    thresholds: { stallSteps: c.stallSteps, graceSteps: c.stallGraceSteps, repeatableTools: [...c.repeatableTools] },
    ...(promptTokens !== undefined ? { context: { promptTokens, contextWindow: c.contextWindow, ratio: c.saturationRatio } } : {}),
  });
  const escalating = raised.find((a) => a.escalate && a.kind !== "budget") ?? null;
  // Budget ceilings are enforced by reachedCeiling, so an escalating budget alert is not recorded here.
  const alertsToRecord = raised.filter((a) => a !== escalating && !(a.kind === "budget" && a.escalate));
  // A warning (not an info note) makes the next turn `after_failure` for the effort dial.
  const warned = alertsToRecord.some((a) => a.severity !== "info");
  const turnSignals = warned && s.turnSignals ? { ...s.turnSignals, warned: true } : s.turnSignals;
  return { ...s, escalating, alertsToRecord, turnSignals, previousBudgets: { stepsUsed: s.stepsUsed, tokensUsed: s.tokensUsed, costUsd: s.costUsd } };
}

/**
 * Folds the outcome of an action into the state (pure). `modelStepId`/`toolStepId` are derived from
 * the state. `turn_start` and `compacted` change nothing but the pending alerts; `approval` with a
 * verdict marks the turn for the effort dial (a human decided).
 */
export function foldOutcome(state: LoopState, outcome: LoopOutcome): LoopState {
  const s: LoopState = { ...state, alertsToRecord: [], escalating: null };
  switch (outcome.kind) {
    case "model": {
      const { turn } = outcome;
      const stepId = s.modelStepId ?? `model-${s.turn}`;
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
        turnSignals: { ...FRESH_TURN, calls: outcome.calls.length },
        priorTurnSignals: s.turnSignals,
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
        turnSignals: signalsAfterTool(s.turnSignals, result.ok, result.ok && isConsequentialCall(inspected)),
      };
      return withDetectors(next);
    }
    case "approval": {
      // A human's verdict on the call: the next model turn is the first after a human decision.
      if (!outcome.verdict || !s.turnSignals) return s;
      return { ...s, turnSignals: { ...s.turnSignals, humanDecision: true } };
    }
    case "checkpointed":
      return { ...s, stepsSinceCheckpoint: 0, latestCheckpointId: outcome.checkpointId, costUsd: Math.max(s.costUsd, outcome.spendUsd) };
    default:
      return s;
  }
}

/** A turn's signals after one of its calls ran (`ok`: it succeeded; `effect`: it was consequential). */
function signalsAfterTool(t: TurnSignals | null, ok: boolean, effect: boolean): TurnSignals {
  const base = t ?? { ...FRESH_TURN, calls: 1 };
  return { ...base, failed: base.failed || !ok, sideEffect: base.sideEffect || effect };
}

/** The state after `next_turn` (and after the last call of a turn moved on). */
export function advanceTurn(state: LoopState): LoopState {
  return { ...state, turn: state.turn + 1, turnProgress: null, turnEffort: null, modelStepId: null };
}
