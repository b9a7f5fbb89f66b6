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

/** The server's refusals of a profile's `effort`, each under the control it is about. */
export interface EffortErrors {
  default?: string;
  rules: Partial<Record<EffortSituation, string>>;
  models: Partial<Record<EffortLevel, string>>;
  /** About the policy as a whole (`effort: …`, `effort.rules: unknown situation(s) …`), shown below the dial. */
  policy?: string;
}

/**
 * Splits the server's refusal `message` (one problem a line, server/domain/profile-spec.ts
 * `effortPolicySchema`: "effort.models.low: at most 200 characters", "effort.rules.planning: one of
 * low, medium, high", "effort.default: …") by the control each line names; lines about `effort` as a
 * whole go to `policy`, lines about other fields are left out. Several lines for one control are joined with "; ".
 */
export function effortErrorsOf(message: string | undefined): EffortErrors {
  const out: EffortErrors = { rules: {}, models: {} };
  const add = (prev: string | undefined, line: string) => (prev ? `${prev}; ${line}` : line);
  for (const line of (message ?? "").split("\n")) {
    const m = /^effort(?:\.([a-z_]+)(?:\.([a-z_]+))?)?:/.exec(line);
    if (!m) continue;
    const [, part, key] = m;
    if (part === "default" && !key) out.default = add(out.default, line);
    else if (part === "rules" && (EFFORT_SITUATIONS as readonly string[]).includes(key ?? ""))
      out.rules[key as EffortSituation] = add(out.rules[key as EffortSituation], line);
    else if (part === "models" && isLevel(key)) out.models[key] = add(out.models[key], line);
    else out.policy = add(out.policy, line);
  }
  return out;
}
