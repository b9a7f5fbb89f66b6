import { describe, expect, it } from "vitest";
import {
  decideEscalation,
  decideEscalationInputSchema,
  decisionTargetProblems,
  factValueProblem,
  MAX_COST_BUDGET_USD,
  MAX_TOKEN_BUDGET,
  type DecidePorts,
  type DecisionTarget,
} from "../../server/domain/decide-escalation.ts";
import { resumeGuidance } from "../../server/domain/apply-escalation-decision.ts";
import { AppError } from "../../server/errors.ts";
import { fakeApplyPorts } from "../support/fake-apply-ports.ts";

// The budget raise and fact edits of a resume decision: the schema's limits (messages name the field
// and the limit) and the checks against the task (dollar raise only with a dollar budget, edits only
// with a checkpoint), enforced by decideEscalation before anything is recorded.

const base = { escalationId: "esc_1", decision: "resume" };

/** The messages of a failed parse (or [] when it parses). */
function issues(input: Record<string, unknown>): string[] {
  const res = decideEscalationInputSchema.safeParse({ ...base, ...input });
  return res.success ? [] : res.error.issues.map((i) => i.message);
}

describe("budgetIncrease.usd", () => {
  it("takes a positive number of dollars up to 1,000,000", () => {
    expect(decideEscalationInputSchema.parse({ ...base, budgetIncrease: { usd: 0.5 } }).budgetIncrease).toEqual({ usd: 0.5 });
    expect(issues({ budgetIncrease: { usd: 1_000_000 } })).toEqual([]);
    expect(issues({ budgetIncrease: { usd: 0.000001, steps: 10, tokens: 5000 } })).toEqual([]);
  });

  it("refuses 0, negatives, more than 1,000,000 and non-numbers, naming the field and the limit", () => {
    expect(issues({ budgetIncrease: { usd: 0 } })).toEqual(["budgetIncrease.usd: must be more than 0"]);
    expect(issues({ budgetIncrease: { usd: -1 } })).toEqual(["budgetIncrease.usd: must be more than 0"]);
    expect(issues({ budgetIncrease: { usd: 1_000_000.01 } })).toEqual(["budgetIncrease.usd: at most 1000000"]);
    expect(issues({ budgetIncrease: { usd: "5" } })).toEqual(["budgetIncrease.usd: a number of US dollars"]);
    expect(issues({ budgetIncrease: { usd: Number.NaN } })).toEqual(["budgetIncrease.usd: a number of US dollars"]);
  });

  it("names the field for steps and tokens too, and refuses unknown keys", () => {
    expect(issues({ budgetIncrease: { steps: 1.5 } })).toEqual(["budgetIncrease.steps: a whole number of steps"]);
    expect(issues({ budgetIncrease: { steps: 100_001 } })).toEqual(["budgetIncrease.steps: at most 100000"]);
    expect(issues({ budgetIncrease: { tokens: -1 } })).toEqual(["budgetIncrease.tokens: at least 0"]);
    expect(issues({ budgetIncrease: { tokens: 1_000_000_001 } })).toEqual(["budgetIncrease.tokens: at most 1000000000"]);
    expect(issues({ budgetIncrease: { dollars: 5 } })).toHaveLength(1);
  });
});

describe("factEdits", () => {
  it("takes JSON values under keys of 1–200 characters", () => {
    const edits = { "audit:note": { read: "README.md" }, n: 3, s: "x", list: [1, null, true], nothing: null, ["k".repeat(200)]: 1 };
    expect(decideEscalationInputSchema.parse({ ...base, factEdits: edits }).factEdits).toEqual(edits);
  });

  it("refuses empty and over-long keys, naming the field and the limit", () => {
    expect(issues({ factEdits: { "": 1 } })).toEqual(["factEdits: a fact key must not be empty"]);
    expect(issues({ factEdits: { ["k".repeat(201)]: 1 } })).toEqual(["factEdits: a fact key has at most 200 characters (got 201)"]);
  });

  it("refuses values that are not plain JSON or are over 16 KiB, naming the key", () => {
    expect(issues({ factEdits: { a: undefined } })).toEqual(['factEdits["a"]: not JSON (no value)']);
    expect(issues({ factEdits: { a: { b: Number.POSITIVE_INFINITY } } })).toEqual(['factEdits["a"]: not plain JSON (NaN, Infinity or a non-JSON object)']);
    expect(issues({ factEdits: { big: "x".repeat(16 * 1024) } })).toEqual(['factEdits["big"]: at most 16384 bytes of JSON (got 16386)']);
    expect(factValueProblem("x".repeat(16 * 1024 - 2))).toBeNull();
    expect(factValueProblem(new Date(0))).toMatch(/not plain JSON/);
  });

  it("refuses more than 200 edits in one decision", () => {
    const many = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`k${i}`, i]));
    expect(issues({ factEdits: many })).toEqual(["factEdits: at most 200 facts per decision (got 201)"]);
  });
});

const withDollars: DecisionTarget = { taskId: "task_1", reason: "risky_action", tokenBudget: 10_000, costBudgetUsd: 0.002, hasCheckpoint: true };
const noBudgets: DecisionTarget = { taskId: "task_1", reason: "budget", tokenBudget: null, costBudgetUsd: null, hasCheckpoint: true };
const parse = (input: Record<string, unknown>) => decideEscalationInputSchema.parse({ ...base, ...input });

describe("decisionTargetProblems", () => {
  it("allows a dollar raise only when the task has a dollar budget", () => {
    expect(decisionTargetProblems(parse({ budgetIncrease: { usd: 1 } }), withDollars)).toEqual([]);
    expect(decisionTargetProblems(parse({ budgetIncrease: { usd: 1 } }), noBudgets)).toEqual([
      "budgetIncrease.usd: task task_1 has no dollar budget, so there is no dollar ceiling to raise; leave it out",
    ]);
  });

  it("accepts a token raise without a token budget (no ceiling stays no ceiling)", () => {
    expect(decisionTargetProblems(parse({ budgetIncrease: { tokens: 5_000, steps: 10 } }), noBudgets)).toEqual([]);
  });

  it("refuses raises past what the task's columns hold", () => {
    expect(decisionTargetProblems(parse({ budgetIncrease: { usd: 1_000_000 } }), withDollars)).toEqual([
      `budgetIncrease.usd: the dollar budget would become $1000000.002000, more than the most a task can hold ($${MAX_COST_BUDGET_USD.toFixed(6)})`,
    ]);
    expect(
      decisionTargetProblems(parse({ budgetIncrease: { tokens: 1_000_000_000 } }), { ...withDollars, tokenBudget: MAX_TOKEN_BUDGET - 999_999_999 }),
    ).toEqual([`budgetIncrease.tokens: the token budget would become ${MAX_TOKEN_BUDGET + 1}, more than the most a task can hold (${MAX_TOKEN_BUDGET})`]);
  });

  it("refuses fact edits without a checkpoint, and budgets or edits on a dead end or cancel", () => {
    expect(decisionTargetProblems(parse({ factEdits: { a: 1 } }), { ...withDollars, hasCheckpoint: false })[0]).toMatch(
      /^factEdits: this escalation has no checkpoint/,
    );
    expect(decisionTargetProblems(parse({ factEdits: {} }), { ...withDollars, hasCheckpoint: false })).toEqual([]);
    expect(decisionTargetProblems(parse({ decision: "cancel", budgetIncrease: { usd: 1 }, factEdits: { a: 1 } }), withDollars)).toEqual([
      "budgetIncrease: only with resume, approve or reject (a cancel starts no run)",
      "factEdits: only with resume, approve or reject (a cancel starts no run)",
    ]);
    expect(decisionTargetProblems(parse({ decision: "approve", budgetIncrease: { usd: 1 }, factEdits: { a: 1 } }), withDollars)).toEqual([]);
  });
});

describe("decideEscalation checks the target before recording", () => {
  function ports(target: DecisionTarget | null) {
    const recorded: unknown[] = [];
    const p: DecidePorts = {
      describeTarget: () => Promise.resolve(target),
      recordDecision: (input) => {
        recorded.push(input);
        return Promise.resolve({ ok: true, applyAfter: null });
      },
      sendApplied: () => Promise.resolve(),
      sendDecided: () => Promise.resolve(),
      apply: fakeApplyPorts(),
      sendRunStarted: () => Promise.resolve(),
      undoDecision: () => Promise.resolve(null),
      endUndoWindow: () => Promise.resolve(null),
    };
    return { p, recorded };
  }

  it("BAD_INPUT naming the field, and nothing recorded, for a dollar raise on a task without a dollar budget", async () => {
    const { p, recorded } = ports(noBudgets);
    const err = await decideEscalation({ input: parse({ budgetIncrease: { usd: 2 } }), actor: "ann", ports: p }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: "BAD_INPUT", message: expect.stringMatching(/^budgetIncrease\.usd: task task_1 has no dollar budget/) as unknown });
    expect(recorded).toEqual([]);
  });

  it("records a dollar raise with fact edits when the task has a dollar budget; NOT_FOUND for an unknown escalation", async () => {
    const { p, recorded } = ports(withDollars);
    await decideEscalation({ input: parse({ budgetIncrease: { usd: 2 }, factEdits: { a: 1 } }), actor: "ann", ports: p });
    expect(recorded).toMatchObject([{ budgetIncrease: { usd: 2 }, factEdits: { a: 1 }, actor: "ann" }]);
    const missing = ports(null);
    expect(await decideEscalation({ input: parse({}), actor: "ann", ports: missing.p }).catch((e: unknown) => e)).toMatchObject({ code: "NOT_FOUND" });
    expect(missing.recorded).toEqual([]);
  });
});

describe("resumeGuidance", () => {
  const evidence = { stepId: "tool-7-0", tool: "http_post", arguments: { url: "https://x.example" }, idempotencyKey: "k", fingerprint: "f" };
  it("unresolved_effect: approve says it happened (don't repeat), reject says it did not (do it again)", () => {
    expect(resumeGuidance({ decision: "approve", reason: "unresolved_effect", evidence, by: "ann", note: "Receipt 42." })).toBe(
      "ann checked the external system: http_post did happen. Do not repeat it; go on from there. Receipt 42.",
    );
    expect(resumeGuidance({ decision: "reject", reason: "unresolved_effect", evidence, by: "ann", note: null })).toBe(
      "ann checked the external system: http_post did not happen. Do it again.",
    );
  });
  it("risky actions and plain resumes keep their guidance", () => {
    expect(resumeGuidance({ decision: "approve", reason: "risky_action", evidence: {}, by: "bob", note: null })).toBe(
      "The proposed action was approved by bob: go ahead with it.",
    );
    expect(resumeGuidance({ decision: "reject", reason: "risky_action", evidence: {}, by: "bob", note: "no" })).toBe(
      "The proposed action was rejected by bob: do not do it. no",
    );
    expect(resumeGuidance({ decision: "resume", reason: "budget", evidence: {}, by: "bob", note: "go on" })).toBe("go on");
    expect(resumeGuidance({ decision: "resume", reason: "budget", evidence: {}, by: "bob", note: null })).toBeNull();
  });
});
