import { jsonBytes, MAX_FACT_KEY_LENGTH, MAX_FACT_VALUE_BYTES, MAX_GOAL_CHARS, MAX_LAUNCH_FACTS, MAX_LAUNCH_FACTS_BYTES } from "./limits.ts";

/** How much of the launch limits a goal and its facts use (for the launch form's live counters). */
export interface LaunchUsage {
  /** Characters of the trimmed goal (the server trims before it counts). */
  goalChars: number;
  factCount: number;
  /** UTF-8 bytes of all facts as one JSON object. */
  factsBytes: number;
  /** The largest fact value, by UTF-8 bytes of its JSON; null without facts. */
  largestFact: { key: string; bytes: number } | null;
}

/** Measures `goal` and `facts` against the launch limits (lib/contracts/limits.ts). */
export function measureLaunch(goal: string, facts: Record<string, unknown>): LaunchUsage {
  let largestFact: LaunchUsage["largestFact"] = null;
  for (const [key, value] of Object.entries(facts)) {
    const bytes = jsonBytes(value);
    if (!largestFact || bytes > largestFact.bytes) largestFact = { key, bytes };
  }
  return { goalChars: goal.trim().length, factCount: Object.keys(facts).length, factsBytes: jsonBytes(facts), largestFact };
}

/**
 * The launch limits a goal and facts break, each as "field: the limit (got …)" in the server's words
 * (server/domain/launch-task.ts checks the same limits, and more, at the tRPC boundary):
 * goal ≤ {@link MAX_GOAL_CHARS} characters, ≤ {@link MAX_LAUNCH_FACTS} facts, keys ≤
 * {@link MAX_FACT_KEY_LENGTH} characters, each value ≤ {@link MAX_FACT_VALUE_BYTES} bytes of JSON,
 * all facts ≤ {@link MAX_LAUNCH_FACTS_BYTES} bytes of JSON. Empty when all fit.
 */
export function launchLimitProblems(goal: string, facts: Record<string, unknown>): string[] {
  const usage = measureLaunch(goal, facts);
  const problems: string[] = [];
  if (usage.goalChars > MAX_GOAL_CHARS) problems.push(`goal: at most ${MAX_GOAL_CHARS} characters (got ${usage.goalChars})`);
  if (usage.factCount > MAX_LAUNCH_FACTS) problems.push(`facts: at most ${MAX_LAUNCH_FACTS} facts per launch (got ${usage.factCount})`);
  for (const [key, value] of Object.entries(facts)) {
    if (key.length === 0) problems.push("facts: a fact key must not be empty");
    if (key.length > MAX_FACT_KEY_LENGTH) problems.push(`facts: a fact key has at most ${MAX_FACT_KEY_LENGTH} characters (got ${key.length})`);
    const bytes = jsonBytes(value);
    if (bytes > MAX_FACT_VALUE_BYTES) problems.push(`facts: "${key.slice(0, 80)}": at most ${MAX_FACT_VALUE_BYTES} bytes of JSON (got ${bytes})`);
  }
  if (usage.factsBytes > MAX_LAUNCH_FACTS_BYTES) problems.push(`facts: at most ${MAX_LAUNCH_FACTS_BYTES} bytes of JSON in all (got ${usage.factsBytes})`);
  return problems;
}

/**
 * Reads the launch form's facts text: empty = no facts; otherwise a JSON object of key → value.
 * Returns the facts or a problem naming the field.
 */
export function parseFactsText(text: string): { facts: Record<string, unknown> } | { problem: string } {
  if (text.trim() === "") return { facts: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `facts: not valid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return { problem: 'facts: a JSON object of key → value, e.g. {"region": "eu-west-1"}' };
  return { facts: value as Record<string, unknown> };
}

/**
 * A whole number typed by a person: digits only (spaces around allowed), else NaN — so "1e3",
 * "0x10", "12.0" and "1_000" are refused rather than read as 1000, 16 or 12 (Number() accepts them;
 * `1e3` launched a 1,000-package audit). Pure.
 */
export function parseWholeNumber(text: string): number {
  return /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN;
}

/**
 * A dollar amount typed by a person: plain decimal digits with an optional fraction and an optional
 * leading `$` (spaces around allowed), else NaN — so "1e-3", "0x10" and "1_000" are refused as
 * `cli launch --cost-budget` refuses them (scripts/cli/command.ts usdValue), rather than read by Number(). Pure.
 */
export function parseUsdText(text: string): number {
  const m = /^\s*\$?(-?\d+(?:\.\d+)?)\s*$/.exec(text);
  return m?.[1] ? Number(m[1]) : Number.NaN;
}
