import { EFFORT_LEVELS, EFFORT_SITUATIONS, RECOMMENDED_EFFORT_RULES, type EffortLevel, type EffortSituation } from "../../lib/contracts/effort.ts";

/**
 * The effort dial's part of the profile form: what the inputs hold, and the `effort` field of the spec
 * they make (server/domain/profile-spec.ts `effortPolicySchema` validates it). Pure, client-safe.
 */
export interface EffortFormValue {
  /** The dial is on (the profile has a policy); off = `effort: null`, nothing sent. */
  on: boolean;
  default: EffortLevel;
  /** Situation → level, "" = no rule (the default applies). */
  rules: Record<EffortSituation, EffortLevel | "">;
  /** Level → model, "" = the profile's model. */
  models: Record<EffortLevel, string>;
}

const isLevel = (v: unknown): v is EffortLevel => typeof v === "string" && (EFFORT_LEVELS as readonly string[]).includes(v);

/** The form's value of a stored `effort` (null/absent: off, prefilled with the recommended rules for when it is turned on). */
export function effortValueOf(effort: unknown): EffortFormValue {
  const e = effort && typeof effort === "object" ? (effort as { default?: unknown; rules?: Record<string, unknown>; models?: Record<string, unknown> }) : null;
  const rules = Object.fromEntries(
    EFFORT_SITUATIONS.map((k) => {
      const v = e ? e.rules?.[k] : RECOMMENDED_EFFORT_RULES[k];
      return [k, isLevel(v) ? v : ""];
    }),
  ) as EffortFormValue["rules"];
  const models = Object.fromEntries(EFFORT_LEVELS.map((l) => [l, typeof e?.models?.[l] === "string" ? e.models[l] : ""])) as EffortFormValue["models"];
  return { on: e !== null, default: isLevel(e?.default) ? e.default : "medium", rules, models };
}

/** The spec's `effort` of the form's value: null when off; rules and models without their empty entries. */
export function effortSpecOf(
  v: EffortFormValue,
): { default: EffortLevel; rules: Partial<Record<EffortSituation, EffortLevel>>; models: Partial<Record<EffortLevel, string>> } | null {
  if (!v.on) return null;
  const rules = Object.fromEntries(Object.entries(v.rules).filter(([, level]) => level !== "")) as Partial<Record<EffortSituation, EffortLevel>>;
  const models = Object.fromEntries(
    Object.entries(v.models)
      .map(([l, m]) => [l, m.trim()] as const)
      .filter(([, m]) => m !== ""),
  ) as Partial<Record<EffortLevel, string>>;
  return { default: v.default, rules, models };
}
