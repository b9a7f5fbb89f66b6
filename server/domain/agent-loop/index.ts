/**
 * The agent loop as a pure state machine, so every decision is table-tested without an engine.
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
 * `checkpoint-<n>-<k>` (before a risky call), `compact-<n>` (`compact-<n>-<limit>` when a compacted
 * start is compacted again for a tighter stated limit), `escalate-<n>`.
 *
 * The parts (server/domain/agent-loop/): `types.ts` the shapes and `CONTROL_TOOLS`, `fold.ts`
 * `initialLoopState` / `foldOutcome` / `advanceTurn`, `decide.ts` `decide` / `nextAction`,
 * `reasons.ts` the reason tables, `effort.ts` the effort dial (the level and model of each model call,
 * and the re-ask of a turn that proposed a side effect below its level: `model-<n>-recheck`). Import
 * the loop from this index.
 *
 * Where to add things:
 * - a checkpoint trigger after a turn: `checkpointReasonAfterTurn` (checkpoint.ts), called from
 *   `endOfTurn` (decide.ts); one inside a turn: `atCall`; at a turn's start: `atTurnStart`.
 * - a control tool (a tool the loop reacts to by name): `CONTROL_TOOLS` and `afterTool`.
 * - a ceiling: `reachedCeiling` (step-budget.ts); it is checked before every model and tool call.
 */

export * from "./types.ts";
export { advanceTurn, foldOutcome, initialLoopState } from "./fold.ts";
export { decide, nextAction } from "./decide.ts";
export { checkpointEffort, effortFor, FRESH_TURN, isConsequentialCall, recheckForSideEffect, turnEffort, turnSituation } from "./effort.ts";
export { alertKindForEscalation, checkpointReasonForEscalation, endReasonOfModelError, escalationReasonOfAlert } from "./reasons.ts";
