import { effortRank, type EffortChoice, type EffortPolicy, type EffortSituation } from "../../../lib/contracts/effort.ts";
import type { InspectedCall, LoopState, TurnSignals } from "./types.ts";

// The effort dial's decisions (pure): which level — and which model — a model call runs at, from
// the loop's state, and when a turn is asked again at a higher level.

/** A turn's signals before any of its calls ran (fold.ts starts each model turn with these). */
export const FRESH_TURN: TurnSignals = { calls: 0, failed: false, sideEffect: false, warned: false, humanDecision: false };

/** The call sends, writes or spends (ledger fingerprint), leaves the organisation (egress) or is risky: a `side_effect` situation. */
export function isConsequentialCall(call: InspectedCall): boolean {
  return call.valid && (call.fingerprint !== null || call.risky || call.egress === true);
}

/**
 * The situation of the model turn about to start, the first that holds in this order (null = none:
 * the policy's default). Honest about what the state can tell before the model answers:
 *
 * - `after_human`: the segment starts right after a human decision (a resume or fork), or a human's
 *   verdict on a call arrived during the previous turn;
 * - `after_failure`: the previous turn had a failed or malformed call, no call at all (the model was
 *   nudged), or a detector warning;
 * - `planning`: the first turn of a run that starts from the beginning;
 * - `side_effect`: the previous turn committed an effect (the agent is in its effects phase). The
 *   turn that *first* proposes one cannot be foreseen: {@link recheckForSideEffect} asks it again;
 * - `mechanical`: the previous turn of this segment ran only read-only calls, all successful, with
 *   no warning and no human in between — nothing is pending but the next read. The first turn of a
 *   segment is never mechanical: it starts from a checkpoint's open question.
 */
export function turnSituation(s: LoopState): EffortSituation | null {
  const c = s.config;
  const t = s.turnSignals;
  const first = s.turn === c.firstTurn && t === null;
  if ((first && c.afterHuman) || t?.humanDecision) return "after_human";
  if (t && (t.failed || t.calls === 0 || t.warned)) return "after_failure";
  if (first && c.fromReason === null) return "planning";
  if (t?.sideEffect) return "side_effect";
  if (t) return "mechanical";
  return null;
}

/**
 * The level, model and rule for a call in `situation` under `policy`: the situation's rule when the
 * policy has one, else the policy's default; the level's model when the policy names one, else
 * `profileModel`. Null without a policy (nothing is sent, nothing recorded).
 */
export function effortFor(policy: EffortPolicy | null | undefined, situation: EffortSituation | null, profileModel: string): EffortChoice | null {
  if (!policy) return null;
  const ruled = situation ? policy.rules[situation] : undefined;
  const level = ruled ?? policy.default;
  return { level, model: policy.models[level] ?? profileModel, rule: ruled ? situation! : "default" };
}

/** The effort of the model turn about to start (`turnSituation` under the profile's policy). */
export function turnEffort(s: LoopState): EffortChoice | null {
  return effortFor(s.config.effort, turnSituation(s), s.config.model ?? "");
}

/** The effort of a checkpoint's summary request (rule `checkpoint`). */
export function checkpointEffort(s: LoopState): EffortChoice | null {
  return effortFor(s.config.effort, "checkpoint", s.config.model ?? "");
}

/**
 * A turn that ran below the policy's `side_effect` level and proposes a consequential call
 * ({@link isConsequentialCall}) is asked again at that level before any of its calls runs: the level
 * is chosen before the model answers, so this is the one honest way to run "the turn that proposes a
 * side effect" at high effort — at the price of the cheaper call, recorded as discarded. Null when
 * no re-ask is due (no policy, no such call, the turn already ran high enough, or it is a re-ask).
 */
export function recheckForSideEffect(s: LoopState, calls: readonly InspectedCall[]): EffortChoice | null {
  const policy = s.config.effort;
  const ran = s.turnEffort;
  if (!policy || !ran || s.modelStepId !== `model-${s.turn}`) return null;
  const wanted = effortFor(policy, "side_effect", s.config.model ?? "");
  if (!wanted || wanted.rule !== "side_effect" || effortRank(wanted.level) <= effortRank(ran.level)) return null;
  return calls.some(isConsequentialCall) ? wanted : null;
}
