import { describe, expect, it } from "vitest";
import { budgetsFromHistory, historyCeilingNote, parseBudgetBasis, suggestBudgets, type BudgetBasis } from "../../server/domain/budget-from-history.ts";

// Task.budgetBasis ("a ceiling derived from history says so"): the stored JSON read back,
// and the sentence a budget escalation adds for a ceiling that came from history.

const basis: BudgetBasis = {
  source: "template",
  name: "weekly-audit",
  samples: 4,
  stepsP50: 30,
  stepsP90: 36.5,
  tokensP90: 120_000,
  costP90Usd: 0.0125,
  headroom: 1.25,
  ceilings: ["steps", "cost"],
};

describe("parseBudgetBasis", () => {
  it("reads back what was stored; anything else (absent, another shape, an unknown ceiling) is null", () => {
    expect(parseBudgetBasis(JSON.parse(JSON.stringify(basis)))).toEqual(basis);
    expect(parseBudgetBasis(null)).toBeNull();
    expect(parseBudgetBasis({ ...basis, source: "guess" })).toBeNull();
    expect(parseBudgetBasis({ ...basis, ceilings: ["steps", "minutes"] })).toBeNull();
    expect(parseBudgetBasis({ ...basis, stepsP90: "36" })).toEqual({ ...basis, stepsP90: null });
  });
});

describe("historyCeilingNote", () => {
  it("quotes the p90 of the ceiling reached when it came from history, in its unit", () => {
    expect(historyCeilingNote({ kind: "steps", used: 46, limit: 46 }, basis)).toBe(
      "This task is not like the others: 46 steps against a p90 of 36.5 steps (4 completed tasks of template weekly-audit; ceiling p90 × 1.25).",
    );
    expect(historyCeilingNote({ kind: "cost", used: 0.016, limit: 0.015625 }, { ...basis, source: "case", name: "audits/small" })).toBe(
      "This task is not like the others: $0.016000 against a p90 of $0.012500 (4 passing runs of eval case audits/small; ceiling p90 × 1.25).",
    );
  });
  it("says nothing for a ceiling the operator chose, or without a basis", () => {
    expect(historyCeilingNote({ kind: "tokens", used: 150_000, limit: 150_000 }, basis)).toBeNull();
    expect(historyCeilingNote({ kind: "steps", used: 46, limit: 46 }, null)).toBeNull();
  });
});

describe("budgets from history with nothing to go on", () => {
  it("suggests no token or dollar ceiling from runs that recorded none (a budget of 0 would refuse the launch)", () => {
    const s = suggestBudgets({
      history: [4, 6, 10].map((steps) => ({ steps, tokens: 0, costUsd: 0 })),
      fallback: { stepBudget: 40, tokenBudget: null, costBudgetUsd: null },
    });
    expect([s.basis, s.stepBudget, s.tokenBudget, s.costBudgetUsd]).toEqual(["history", 12, null, null]);
    const { budgets, ceilings } = budgetsFromHistory(s, {});
    expect(budgets).toEqual({ stepBudget: 12 });
    expect(ceilings).toEqual(["steps"]);
  });
});
