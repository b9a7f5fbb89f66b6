import { describe, expect, it } from "vitest";
import {
  budgetAlert,
  canonicalArguments,
  contentWords,
  DEFAULT_THRESHOLDS,
  detectAlerts,
  detectDrift,
  detectRepeatedCalls,
  detectStall,
  detectToolFailures,
  driftScore,
  type StepRecord,
} from "../../server/domain/detectors.ts";

// The demo goal (server/tools/demo/license-audit.ts) with N = 50.
const LICENSE_GOAL =
  "Audit the licenses of the first 50 packages in node_modules: record name, version and license of each as facts, write licenses.csv (name,version,license,copyleft), email the summary to audit@example.com, then finish.";

/** Builds a history from a compact spec: "m" model step, "t:<tool>:<args>" tool step, "c" checkpoint, "h" human; `facts` per step. */
function history(spec: { s: string; facts: number; q?: string }[]): StepRecord[] {
  return spec.map(({ s, facts, q }, i) => {
    const [kind, tool, ...rest] = s.split(":");
    const base = { stepId: `s${i}`, factsAfter: facts, ...(q !== undefined ? { openQuestion: q } : {}) };
    if (kind === "t") return { ...base, kind: "tool", tool: tool!, rawArguments: rest.join(":"), ok: true };
    if (kind === "c") return { ...base, kind: "checkpoint" };
    if (kind === "h") return { ...base, kind: "human" };
    return { ...base, kind: "model", tokens: 100 };
  });
}

/** `n` model steps (prose, no tool calls) all leaving the working set at `facts`. */
const prose = (n: number, facts: number) => Array.from({ length: n }, () => ({ s: "m", facts }));

describe("detectStall", () => {
  const summary = (steps: StepRecord[], opts: { sinceStepIndex?: number; stallSteps?: number; graceSteps?: number } = {}) =>
    detectStall({ steps, ...opts }).map((a) => `${a.stepId}:${a.severity}:${a.escalate}`);

  it.each([
    // [name, spec, expected alerts]
    [
      "prose without facts is a stall: warning at the 5th flat step, critical 3 steps later",
      [{ s: "m", facts: 2 }, ...prose(8, 2)],
      ["s5:warning:false", "s8:critical:true"],
    ],
    ["4 flat steps: nothing yet", [{ s: "m", facts: 2 }, ...prose(4, 2)], []],
    ["from an empty start, 5 steps at 0 facts is a stall", prose(5, 0), ["s4:warning:false"]],
    [
      "one tool, many different arguments, each adding a fact: not a stall",
      Array.from({ length: 12 }, (_, i) => ({ s: `t:read_file:{"path":"node_modules/p${i}/package.json"}`, facts: i + 1 })),
      [],
    ],
    ["growth every 4th step keeps it alive", Array.from({ length: 16 }, (_, i) => ({ s: "m", facts: Math.floor(i / 4) + 1 })), []],
    [
      "a shrink then re-grow to the old size is not growth (high-water mark)",
      [
        { s: "m", facts: 5 },
        { s: "m", facts: 4 },
        { s: "m", facts: 5 },
        { s: "m", facts: 4 },
        { s: "m", facts: 5 },
        { s: "m", facts: 5 },
      ],
      ["s5:warning:false"],
    ],
    [
      "checkpoint and human steps neither count nor reset",
      [{ s: "m", facts: 1 }, ...prose(3, 1), { s: "c", facts: 1 }, { s: "h", facts: 1 }, ...prose(2, 1)],
      ["s7:warning:false"],
    ],
    ["nothing after the critical for the same flat run", [{ s: "m", facts: 1 }, ...prose(12, 1)], ["s5:warning:false", "s8:critical:true"]],
  ] as const)("%s", (_name, spec, expected) => {
    expect(summary(history([...spec]))).toEqual(expected);
  });

  it("thresholds are parameters (per profile)", () => {
    const steps = history([{ s: "m", facts: 1 }, ...prose(4, 1)]);
    expect(summary(steps, { stallSteps: 2, graceSteps: 1 })).toEqual(["s2:warning:false", "s3:critical:true"]);
  });

  it("the window restarts at sinceStepIndex, with the size before it as the baseline", () => {
    // 9 flat steps escalated; resumed at index 9 with guidance, then 4 flat steps: no alert yet…
    const steps = history([{ s: "m", facts: 3 }, ...prose(8, 3), { s: "h", facts: 3 }, ...prose(4, 3)]);
    expect(summary(steps, { sinceStepIndex: 9 })).toEqual([]);
    // …the 5th flat step after the resume warns again; without the index nothing new would be raised.
    const more = history([{ s: "m", facts: 3 }, ...prose(8, 3), { s: "h", facts: 3 }, ...prose(5, 3)]);
    expect(summary(more, { sinceStepIndex: 9 })).toEqual(["s14:warning:false"]);
    expect(summary(more).filter((a) => a.startsWith("s14"))).toEqual([]);
  });

  it("evidence names the flat steps", () => {
    const [warning] = detectStall({ steps: history([{ s: "m", facts: 1 }, ...prose(5, 1)]) });
    expect(warning?.evidence).toEqual({ stepIds: ["s1", "s2", "s3", "s4", "s5"], flatSteps: 5, workingSetSize: 1 });
  });
});

describe("canonicalArguments", () => {
  it.each([
    ['{"a":1,"b":2}', '{"b":2,"a":1}'],
    ['{"a":1,"b":2}', '{ "a" : 1 ,\n  "b": 2 }'],
    ['{"n":1}', '{"n":1.0}'],
    ['{"n":1}', '{"n":1e0}'],
    ['{"n":100}', '{"n":1E2}'],
    ['{"x":{"d":[1,2],"c":"s"}}', '{"x":{"c":"s","d":[1.0,2]}}'],
    ["not json {", "  not json {  "],
  ])("%s ≡ %s", (a, b) => {
    expect(canonicalArguments(a)).toBe(canonicalArguments(b));
  });

  it.each([
    ['{"a":1}', '{"a":2}'],
    ['{"a":[1,2]}', '{"a":[2,1]}'],
    ['{"a":"1"}', '{"a":1}'],
    ['"abc"', "abc"],
    ["not json {", "not json }"],
  ])("%s ≢ %s", (a, b) => {
    expect(canonicalArguments(a)).not.toBe(canonicalArguments(b));
  });
});

describe("detectRepeatedCalls", () => {
  const summary = (spec: { s: string; facts: number }[], repeatableTools?: string[], sinceStepIndex?: number) =>
    detectRepeatedCalls({ steps: history(spec), repeatableTools, sinceStepIndex }).map((a) => `${a.stepId}:${a.severity}:${a.escalate}`);

  it.each([
    ["one call: nothing", [{ s: 't:read_file:{"path":"a"}', facts: 1 }], []],
    [
      "2nd identical call → warning, 3rd → critical + escalate",
      [
        { s: 't:read_file:{"path":"a","limit":10}', facts: 1 },
        { s: "m", facts: 1 },
        { s: 't:read_file:{"limit":10.0,"path":"a"}', facts: 1 },
        { s: 't:read_file:{ "path": "a", "limit": 1e1 }', facts: 1 },
      ],
      ["s2:warning:false", "s3:critical:true"],
    ],
    [
      "malformed arguments compare as trimmed raw text",
      [
        { s: "t:search:{query: x", facts: 1 },
        { s: "t:search:  {query: x ", facts: 1 },
      ],
      ["s1:warning:false"],
    ],
    [
      "same arguments, different tools: not a repeat",
      [
        { s: 't:read_file:{"path":"a"}', facts: 1 },
        { s: 't:stat:{"path":"a"}', facts: 1 },
      ],
      [],
    ],
    [
      "paging with a different offset: not a repeat",
      [
        { s: 't:list_files:{"dir":"x","offset":0}', facts: 1 },
        { s: 't:list_files:{"dir":"x","offset":100}', facts: 2 },
        { s: 't:list_files:{"dir":"x","offset":200}', facts: 3 },
      ],
      [],
    ],
    [
      "a 4th identical call is critical too",
      Array.from({ length: 4 }, () => ({ s: 't:send_email:{"to":"a@b.c"}', facts: 1 })),
      ["s1:warning:false", "s2:critical:true", "s3:critical:true"],
    ],
  ] as const)("%s", (_name, spec, expected) => {
    expect(summary([...spec])).toEqual(expected);
  });

  it("a tool declared repeatable never raises", () => {
    const spec = Array.from({ length: 3 }, () => ({ s: "t:now:{}", facts: 1 }));
    expect(summary(spec, ["now"])).toEqual([]);
    expect(summary(spec)).toEqual(["s1:warning:false", "s2:critical:true"]);
  });

  it("calls before sinceStepIndex are not counted", () => {
    const spec = [
      { s: 't:read_file:{"path":"a"}', facts: 1 },
      { s: 't:read_file:{"path":"a"}', facts: 1 },
      { s: "h", facts: 1 },
      { s: 't:read_file:{"path":"a"}', facts: 1 },
    ];
    expect(summary(spec, [], 2)).toEqual([]);
    expect(summary(spec)).toEqual(["s1:warning:false", "s3:critical:true"]);
  });

  it("evidence lists every occurrence", () => {
    const alerts = detectRepeatedCalls({ steps: history(Array.from({ length: 3 }, () => ({ s: 't:x:{"a":1}', facts: 0 }))) });
    expect(alerts.at(-1)?.evidence).toEqual({ stepIds: ["s0", "s1", "s2"], tool: "x", occurrences: 3 });
  });
});

describe("detectToolFailures", () => {
  /** "ok" a tool call that worked, "<code>" one that failed with that error code, "m" a model step. */
  const steps = (codes: string[]): StepRecord[] =>
    codes.map((c, i) =>
      c === "m"
        ? { stepId: `s${i}`, kind: "model", factsAfter: 0 }
        : {
            stepId: `s${i}`,
            kind: "tool",
            tool: "record_fact",
            rawArguments: `{"n":${i}}`,
            ok: c === "ok",
            ...(c === "ok" ? {} : { errorCode: c }),
            factsAfter: 0,
          },
    );
  const summary = (codes: string[], toolFailureSteps?: number, sinceStepIndex?: number) =>
    detectToolFailures({ steps: steps(codes), toolFailureSteps, sinceStepIndex }).map((a) => `${a.stepId}:${a.severity}:${a.escalate}`);

  it.each([
    ["one malformed call: nothing", ["m", "invalid_json"], []],
    [
      "2nd in a row → warning, 3rd → critical + escalate (model steps in between do not interrupt)",
      ["m", "invalid_json", "m", "invalid_arguments", "m", "invalid_json"],
      ["s3:warning:false", "s5:critical:true"],
    ],
    ["a call that worked resets the streak", ["invalid_json", "invalid_json", "ok", "invalid_json", "invalid_json"], ["s1:warning:false", "s4:warning:false"]],
    ["honest misses while exploring (not_found) are not malformed calls", ["not_found", "not_found", "not_found", "not_a_file"], []],
    ["a miss between malformed calls resets the streak", ["invalid_json", "invalid_json", "not_found", "invalid_json"], ["s1:warning:false"]],
    ["unknown tools count", ["unknown_tool", "unknown_tool", "unknown_tool"], ["s1:warning:false", "s2:critical:true"]],
    ["a human's rejection is not a malformed call", ["rejected_by_human", "rejected_by_human", "rejected_by_human"], []],
  ] as const)("%s", (_name, codes, expected) => {
    expect(summary([...codes])).toEqual(expected);
  });

  it("threshold per profile, window restarts at sinceStepIndex, evidence names the steps and codes", () => {
    const codes = ["invalid_json", "invalid_arguments", "invalid_json", "invalid_json"];
    expect(summary(codes, 4)).toEqual(["s2:warning:false", "s3:critical:true"]);
    expect(summary(codes, 3, 2)).toEqual(["s3:warning:false"]);
    const last = detectToolFailures({ steps: steps(codes) }).at(-1)!;
    expect(last.evidence).toEqual({ stepIds: ["s0", "s1", "s2", "s3"], tools: ["record_fact"], codes });
    expect(last.message).toContain("invalid_json, invalid_arguments");
  });

  it("detectAlerts escalates on it before the stall detector would", () => {
    const codes = ["m", "invalid_json", "m", "invalid_arguments", "m", "invalid_json"];
    const raised = detectAlerts({ steps: steps(codes), goal: LICENSE_GOAL });
    expect(raised.filter((a) => a.escalate).map((a) => a.kind)).toEqual(["tool_failure"]);
  });
});

describe("budgetAlert", () => {
  const none = { stepsUsed: 0, stepBudget: null, tokensUsed: 0, tokenBudget: null, costUsd: 0, costBudgetUsd: null };
  const level = (a: ReturnType<typeof budgetAlert>) => (a ? `${a.severity}:${a.escalate}` : null);

  it.each([
    ["steps 79 %", { stepsUsed: 79, stepBudget: 100 }, null],
    ["steps 80 %", { stepsUsed: 80, stepBudget: 100 }, "warning:false"],
    ["steps 99 %", { stepsUsed: 99, stepBudget: 100 }, "warning:false"],
    ["steps 100 %", { stepsUsed: 100, stepBudget: 100 }, "critical:true"],
    ["tokens 79 %", { tokensUsed: 79_000, tokenBudget: 100_000 }, null],
    ["tokens 80 %", { tokensUsed: 80_000, tokenBudget: 100_000 }, "warning:false"],
    ["tokens 100 %", { tokensUsed: 100_000, tokenBudget: 100_000 }, "critical:true"],
    ["dollars 79 %", { costUsd: 3.95, costBudgetUsd: 5 }, null],
    ["dollars 80 %", { costUsd: 4, costBudgetUsd: 5 }, "warning:false"],
    ["dollars over", { costUsd: 5.01, costBudgetUsd: 5 }, "critical:true"],
    ["the worst ceiling wins", { stepsUsed: 85, stepBudget: 100, costUsd: 5, costBudgetUsd: 5 }, "critical:true"],
    ["no ceilings", {}, null],
    ["a zero budget is ignored", { stepsUsed: 3, stepBudget: 0 }, null],
  ] as const)("%s → %s", (_name, over, expected) => {
    expect(level(budgetAlert({ ...none, ...over, stepId: "s9" }))).toBe(expected);
  });

  it("with previous usage, only a crossing raises", () => {
    const at = (stepsUsed: number, before: number) =>
      level(budgetAlert({ ...none, stepsUsed, stepBudget: 10, previous: { stepsUsed: before, tokensUsed: 0, costUsd: 0 } }));
    expect(at(8, 7)).toBe("warning:false");
    expect(at(9, 8)).toBeNull();
    expect(at(10, 9)).toBe("critical:true");
    expect(at(11, 10)).toBeNull();
  });

  it("evidence lists the ceilings at or above the warning level", () => {
    const alert = budgetAlert({ ...none, stepsUsed: 90, stepBudget: 100, tokensUsed: 10, tokenBudget: 100, costUsd: 1, costBudgetUsd: 1, stepId: "s3" });
    expect(alert?.stepId).toBe("s3");
    expect(alert?.evidence.ceilings).toEqual([
      { name: "cost", used: 1, limit: 1, ratio: 1 },
      { name: "steps", used: 90, limit: 100, ratio: 0.9 },
    ]);
  });
});

describe("drift", () => {
  it.each([
    // [open question, drifts?]
    ["Which license does each of the remaining 20 of 50 packages declare?", false],
    ["Which JavaScript bundler has the nicest logo, and what colours does it use?", true],
    ["Which packages in node_modules have a copyleft license?", false],
    ["What version of lodash is installed, and under which licence terms?", false],
    ["Has the summary email been sent?", false],
    ["What is the weather in Lisbon tomorrow?", true],
    ["Which restaurant near the office serves the best ramen?", true],
  ] as const)("goal = license audit, question %j → drift %s", (question, drifts) => {
    const alert = detectDrift({ goal: LICENSE_GOAL, openQuestion: question, stepId: "s1" });
    expect(alert !== null).toBe(drifts);
    if (alert) expect(alert).toMatchObject({ kind: "drift", severity: "warning", escalate: false });
  });

  it("scores are in [0, 1] and the realistic pair lands on either side of the threshold", () => {
    const onGoal = driftScore({ goal: LICENSE_GOAL, openQuestion: "Which license does each of the remaining 20 of 50 packages declare?" });
    const offGoal = driftScore({ goal: LICENSE_GOAL, openQuestion: "Which JavaScript bundler has the nicest logo, and what colours does it use?" });
    expect(onGoal).toBeGreaterThanOrEqual(0.4);
    expect(offGoal).toBe(0);
    expect(onGoal).toBeGreaterThan(DEFAULT_THRESHOLDS.driftThreshold);
  });

  it("stems and drops stop words", () => {
    expect([...contentWords("The Licenses, licensing and LICENSE of packages")]).toEqual(["licens", "packag"]);
  });

  it("a generic progress question names no topic and does not drift (the budget scenario never leaves its goal)", () => {
    // scripted-budget's checkpoint answer (server/llm/scripted/agent.ts) on a goal it shares no word with.
    const goal = "Examine every entry of the workspace, one per step, and record a fact for each";
    expect(detectDrift({ goal, openQuestion: "What is the next step toward the goal?", stepId: "s1" })).toBeNull();
    // A question with a topic of its own still drifts.
    expect(detectDrift({ goal, openQuestion: "What is the next step toward the bundler's logo colours?", stepId: "s1" })).not.toBeNull();
  });

  it("no open question → no alert", () => {
    expect(detectDrift({ goal: LICENSE_GOAL, openQuestion: "  ", stepId: "s1" })).toBeNull();
    expect(detectDrift({ goal: LICENSE_GOAL, openQuestion: undefined, stepId: "s1" })).toBeNull();
  });
});

describe("detectAlerts", () => {
  const kinds = (alerts: ReturnType<typeof detectAlerts>) => alerts.map((a) => `${a.kind}:${a.severity}`);

  it("returns only what the latest step raised, so calling after each step never repeats an alert", () => {
    const spec = [{ s: "m", facts: 1 }, ...prose(9, 1)];
    const steps = history(spec);
    const perStep = steps.map((_, i) => kinds(detectAlerts({ steps: steps.slice(0, i + 1), goal: LICENSE_GOAL })));
    expect(perStep.flat()).toEqual(["stall:warning", "stall:critical"]);
    expect(perStep[5]).toEqual(["stall:warning"]);
    expect(perStep[8]).toEqual(["stall:critical"]);
  });

  it("combines detectors, most severe first", () => {
    const steps = history([
      { s: 't:read_file:{"path":"a"}', facts: 1 },
      { s: 't:read_file:{"path":"a"}', facts: 2 },
      { s: 't:read_file:{"path":"a"}', facts: 3, q: "Which JavaScript bundler has the nicest logo?" },
    ]);
    const alerts = detectAlerts({
      steps,
      goal: LICENSE_GOAL,
      budgets: { stepsUsed: 8, stepBudget: 10, tokensUsed: 0, tokenBudget: null, costUsd: 0, costBudgetUsd: null },
      context: { promptTokens: 900, contextWindow: 1000, ratio: 0.85 },
    });
    expect(kinds(alerts)).toEqual(["loop:critical", "budget:warning", "drift:warning", "saturation:info"]);
    expect(alerts.every((a) => a.stepId === "s2")).toBe(true);
    expect(alerts.filter((a) => a.escalate).map((a) => a.kind)).toEqual(["loop"]);
  });

  it("an unchanged open question is judged once; per-profile thresholds apply", () => {
    const q = "What is the weather in Lisbon tomorrow?";
    const steps = history([
      { s: "m", facts: 1, q },
      { s: "m", facts: 2, q },
    ]);
    expect(kinds(detectAlerts({ steps: steps.slice(0, 1), goal: LICENSE_GOAL }))).toEqual(["drift:warning"]);
    expect(kinds(detectAlerts({ steps, goal: LICENSE_GOAL }))).toEqual([]);
    const flat = history([{ s: "m", facts: 1 }, ...prose(2, 1)]);
    expect(kinds(detectAlerts({ steps: flat, goal: LICENSE_GOAL, thresholds: { stallSteps: 2 } }))).toEqual(["stall:warning"]);
  });

  it("empty history → no alerts", () => {
    expect(detectAlerts({ steps: [], goal: LICENSE_GOAL })).toEqual([]);
  });
});
