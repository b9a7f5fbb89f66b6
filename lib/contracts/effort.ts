/**
 * The effort dial: how hard the model thinks on each step, decided per step by the agent loop from
 * the situation (server/domain/agent-loop/effort.ts) and mapped by each provider adapter to its own
 * control (OpenAI Responses `reasoning.effort`, Chat Completions `reasoning_effort`, Anthropic
 * Messages `output_config.effort` / a thinking budget). Client-safe constants shared by the profile
 * form, the timeline and the server; the validating schema is server/domain/profile-spec.ts.
 */

/**
 * The levels a profile's policy chooses from, cheapest first. Three, because they are the ones every
 * provider with such a control accepts: OpenAI's `reasoning_effort` and Responses `reasoning.effort`
 * take low / medium / high (plus minimal and xhigh on some models), Anthropic's `effort` takes
 * low / medium / high (plus max on some models).
 */
export const EFFORT_LEVELS = ["low", "medium", "high"] as const;
export type EffortLevel = (typeof EFFORT_LEVELS)[number];

/** The order of a level (0 = low): a re-ask happens when a turn ran below the level its situation asks for. */
export function effortRank(level: EffortLevel): number {
  return EFFORT_LEVELS.indexOf(level);
}

/**
 * The situations a policy has a rule for, in the order the loop checks them (the first that holds
 * chooses; none holds → the policy's `default`):
 *
 * - `after_human`: the first model turn after a human decision (a resume, fork or approval verdict);
 * - `after_failure`: the turn after a failed or malformed tool call, a turn without a tool call, or a
 *   detector warning;
 * - `planning`: the first turn of a run that starts from the beginning;
 * - `side_effect`: a turn that proposes a side-effecting, open-world (egress) or risky call — the
 *   turn after an effect committed is run at this level at once; a turn run lower that proposes one
 *   is discarded and asked again at this level;
 * - `checkpoint`: the model's checkpoint summary;
 * - `mechanical`: the turn after read-only results only, all of them successful, inside a segment.
 */
export const EFFORT_SITUATIONS = ["after_human", "after_failure", "planning", "side_effect", "checkpoint", "mechanical"] as const;
export type EffortSituation = (typeof EFFORT_SITUATIONS)[number];

/**
 * The rule recorded on a step (Step.effortRule): the situation that chose its level, or `default`
 * when none held. Step.effortLevel and Step.effortRule have CHECK constraints equal to
 * {@link EFFORT_LEVELS} and this list (migration status_checks).
 */
export const EFFORT_RULES = [...EFFORT_SITUATIONS, "default"] as const;
export type EffortRule = (typeof EFFORT_RULES)[number];

/** The recommended rules (a policy that names no `rules` gets these): high where a mistake is costly, low for mechanical turns. */
export const RECOMMENDED_EFFORT_RULES: Readonly<Record<EffortSituation, EffortLevel>> = {
  after_human: "high",
  after_failure: "high",
  planning: "high",
  side_effect: "high",
  checkpoint: "high",
  mechanical: "low",
};

/** Short words for a rule, as the timeline and the profile form show them. */
export const EFFORT_RULE_LABELS: Readonly<Record<EffortRule, string>> = {
  after_human: "first turn after a human decision",
  after_failure: "after a failed call or a warning",
  planning: "first turn (planning)",
  side_effect: "proposes a side effect",
  checkpoint: "checkpoint summary",
  mechanical: "mechanical (after read-only results)",
  default: "no rule applied: the policy's default",
};

/** A profile's effort policy as stored (server/domain/profile-spec.ts `effortPolicySchema` parses what an admin writes). */
export interface EffortPolicy {
  /** The level of a turn no rule applies to. */
  default: EffortLevel;
  /** Situation → level; a situation not listed gets `default` (so `{}` is a fixed level). */
  rules: Partial<Record<EffortSituation, EffortLevel>>;
  /** Level → model name, for levels that run on another model than the profile's (a cheaper one for low). */
  models: Partial<Record<EffortLevel, string>>;
}

/** What the loop decided for one model call, recorded on its step. `model` is the model called. */
export interface EffortChoice {
  level: EffortLevel;
  model: string;
  rule: EffortRule;
}

/** The words for a recorded rule (an unknown one, from a newer version, is shown as it is). */
export function effortRuleLabel(rule: string): string {
  return (EFFORT_RULE_LABELS as Record<string, string>)[rule] ?? rule;
}
