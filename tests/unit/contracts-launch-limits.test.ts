import { describe, expect, it } from "vitest";
import { launchLimitProblems, measureLaunch, parseFactsText, parseUsdText, parseWholeNumber } from "../../lib/contracts/launch-limits.ts";
import { MAX_FACT_VALUE_BYTES, MAX_GOAL_CHARS, MAX_LAUNCH_FACTS, MAX_LAUNCH_FACTS_BYTES } from "../../lib/contracts/limits.ts";
import { launchTaskInputSchema } from "../../server/domain/launch-task.ts";

/** The form's message without its "(got …)" tail: what the server's message for the same limit starts with. */
const head = (problem: string) => problem.replace(/ \(got \d+\)$/, "");

/** The server's messages for the same input (the form must refuse what the server refuses, in its words). */
function serverProblems(goal: string, facts: Record<string, unknown>): string[] {
  const r = launchTaskInputSchema.safeParse({ goal, facts });
  return r.success ? [] : r.error.issues.map((i) => i.message);
}

const manyFacts = (n: number, value: unknown = 1) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value]));

describe("launch limits as the launch form checks them", () => {
  it.each([
    ["a goal at the limit", "g".repeat(MAX_GOAL_CHARS), {}, []],
    ["a goal one over", "g".repeat(MAX_GOAL_CHARS + 1), {}, [`goal: at most ${MAX_GOAL_CHARS} characters (got ${MAX_GOAL_CHARS + 1})`]],
    ["the most facts", "g", manyFacts(MAX_LAUNCH_FACTS), []],
    ["one fact too many", "g", manyFacts(MAX_LAUNCH_FACTS + 1), [`facts: at most ${MAX_LAUNCH_FACTS} facts per launch (got ${MAX_LAUNCH_FACTS + 1})`]],
    [
      "a fact over 16 KiB",
      "g",
      { big: "x".repeat(MAX_FACT_VALUE_BYTES) },
      [`facts: "big": at most ${MAX_FACT_VALUE_BYTES} bytes of JSON (got ${MAX_FACT_VALUE_BYTES + 2})`],
    ],
  ] as const)("%s", (_, goal, facts, expected) => {
    expect(launchLimitProblems(goal, facts)).toEqual(expected);
    // The server refuses the same input with the same message.
    for (const p of expected) expect(serverProblems(goal, facts).some((m) => m.startsWith(head(p)))).toBe(true);
    if (expected.length === 0) expect(serverProblems(goal, facts)).toEqual([]);
  });

  it("all facts over 1 MiB together, each under 16 KiB: refused naming the total", () => {
    const facts = manyFacts(80, "y".repeat(15_000));
    const usage = measureLaunch("g", facts);
    expect(usage.factsBytes).toBeGreaterThan(MAX_LAUNCH_FACTS_BYTES);
    expect(usage.largestFact).toEqual({ key: "k0", bytes: 15_002 });
    const problems = launchLimitProblems("g", facts);
    expect(problems).toEqual([`facts: at most ${MAX_LAUNCH_FACTS_BYTES} bytes of JSON in all (got ${usage.factsBytes})`]);
    expect(serverProblems("g", facts).some((m) => m.startsWith(problems[0]!))).toBe(true);
  });

  it("counts the trimmed goal, as the server does", () => {
    expect(measureLaunch("  abc \n", {})).toEqual({ goalChars: 3, factCount: 0, factsBytes: 2, largestFact: null });
  });

  it.each([
    ["", { facts: {} }],
    ['{"a": 1, "b": [true]}', { facts: { a: 1, b: [true] } }],
    ["[1, 2]", { problem: 'facts: a JSON object of key → value, e.g. {"region": "eu-west-1"}' }],
    ["null", { problem: 'facts: a JSON object of key → value, e.g. {"region": "eu-west-1"}' }],
  ] as const)("parseFactsText(%j)", (text, expected) => {
    expect(parseFactsText(text)).toEqual(expected);
  });

  it("facts text that is not JSON names the field", () => {
    const r = parseFactsText("{oops");
    expect("problem" in r && r.problem).toMatch(/^facts: not valid JSON \(/);
  });
});

describe("parseWholeNumber (numeric launch fields take whole numbers only)", () => {
  it.each([
    ["20", 20],
    [" 7 ", 7],
    ["0", 0],
  ])("%j → %d", (text, n) => expect(parseWholeNumber(text)).toBe(n));
  it.each(["1e3", "0x10", "12.0", "1_000", "-5", "+5", "", "1,000", "Infinity"])("%j is refused", (text) => expect(parseWholeNumber(text)).toBeNaN());
});

describe("parseUsdText (a dollar budget is plain decimal, as `cli launch --cost-budget` takes it)", () => {
  it.each([
    ["0.50", 0.5],
    [" $2 ", 2],
    ["0.001", 0.001],
  ])("%j → %d", (text, n) => expect(parseUsdText(text)).toBe(n));
  it.each(["1e-3", "0x10", "1_000", ".5", "1.", "", "$", "Infinity", "1,5"])("%j is refused", (text) => expect(parseUsdText(text)).toBeNaN());
});
