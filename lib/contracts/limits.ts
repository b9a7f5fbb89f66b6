/**
 * Size limits shared by the UI, the server and the executor (client-safe: no imports). Each says
 * where it comes from; a limit checked in two places is defined once, here.
 */

/**
 * Largest JSON output of one durable step, bytes: Inngest's per-step state limit (4 MB,
 * `consts.go` MaxStepOutputSize; docs/INNGEST-PROTOCOL.md §7 "A state-size limit"), which the embedded
 * executor enforces too (`OutputTooLarge`). State the agent carries between steps must stay below it.
 */
export const EXECUTOR_MAX_STEP_OUTPUT_BYTES = 4 * 1024 * 1024;
/** Largest request body the executor accepts (Inngest: 32 MB of state per run). */
export const EXECUTOR_MAX_RUN_STATE_BYTES = 32 * 1024 * 1024;

/** Fact keys and values as `record_fact` takes them (docs/CONTRACTS.md): keys 1–200 characters, values ≤ 16 KiB of JSON. */
export const MAX_FACT_KEY_LENGTH = 200;
export const MAX_FACT_VALUE_BYTES = 16 * 1024;
/** Most facts one escalation decision may edit. */
export const MAX_FACT_EDITS = 200;

/** Longest goal a launch may carry, characters (it is copied verbatim into every checkpoint and model context). */
export const MAX_GOAL_CHARS = 20_000;
/** Most facts a launch may carry. */
export const MAX_LAUNCH_FACTS = 1_000;
/**
 * Most bytes of JSON all of a launch's facts may take together: a quarter of the executor's step
 * output limit ({@link EXECUTOR_MAX_STEP_OUTPUT_BYTES}), because the working set travels inside step
 * outputs (the run's start, every checkpoint) next to the goal, the completed steps and their outputs.
 */
export const MAX_LAUNCH_FACTS_BYTES = EXECUTOR_MAX_STEP_OUTPUT_BYTES / 4;
/** Largest step budget a launch may set (model + tool steps). */
export const MAX_STEP_BUDGET = 100_000;
/** Largest token budget a launch may set (prompt + completion tokens). */
export const MAX_TOKEN_BUDGET = 1_000_000_000;
/** Smallest dollar budget a launch may set, USD: a millionth of a dollar, the stored precision (Decimal(12,6)). */
export const MIN_COST_BUDGET_USD = 0.000001;
/** Largest dollar budget a launch may set, USD. */
export const MAX_COST_BUDGET_USD = 999_999;
/** Most packages the license-audit demo may be asked to read. */
export const MAX_DEMO_PACKAGES = 5_000;

/** Longest guidance a human may give a resumed run (escalation decision, resume, fork), characters. */
export const MAX_GUIDANCE_CHARS = 10_000;

/** UTF-8 size of `value` serialised as JSON, bytes (0 for a value JSON cannot hold). */
export function jsonBytes(value: unknown): number {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return 0;
  }
  return text === undefined ? 0 : new TextEncoder().encode(text).length;
}

/** Most characters of an id in the API (server/domain/input-fields.ts idField's default `max`). */
export const MAX_ID_CHARS = 100;
/** Characters an id may hold (idField's pattern). */
export const ID_PATTERN = /^[A-Za-z0-9_:.-]+$/;

/** True when `id` could be an id at all (length and characters as idField accepts); a page answers 404 at once otherwise. Pure. */
export function plausibleId(id: string): boolean {
  const trimmed = id.trim();
  return trimmed.length > 0 && trimmed.length <= MAX_ID_CHARS && ID_PATTERN.test(trimmed);
}

/**
 * Shortest and longest password, characters: sign-up and sign-in (better-auth's
 * `minPasswordLength` / `maxPasswordLength`; 8 is its default and NIST SP 800-63B §5.1.1.2's
 * minimum), an admin's add user and reset, and a user's own change — one pair for the server's
 * checks and the forms' `minLength` / `maxLength`.
 */
export const PASSWORD_MIN_LENGTH = 8;
/** Longest password, characters (better-auth's default `maxPasswordLength`); see {@link PASSWORD_MIN_LENGTH}. */
export const PASSWORD_MAX_LENGTH = 128;
