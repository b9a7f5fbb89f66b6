import type { CeilingUsage } from "../../lib/contracts/ceiling.ts";
import { z } from "zod";
import { percentile } from "./eval-report.ts";

/** What one passing run of a case (or template) took. Money USD. */
export interface PassingRun {
  steps: number;
  tokens: number;
  costUsd: number;
}

/** A budget suggestion from history, or the default when there is too little of it. */
export interface BudgetSuggestion {
  basis: "history" | "default";
  /** Passing runs it rests on. */
  samples: number;
  stepsP50: number | null;
  stepsP90: number | null;
  /** p90 of the passing runs' tokens (prompt + completion) and dollars; null without history. */
  tokensP90: number | null;
  costP90Usd: number | null;
  /** ceil(p90 × headroom) from history (null for a p90 of 0: no ceiling suggested); the fallback's otherwise. */
  stepBudget: number | null;
  tokenBudget: number | null;
  costBudgetUsd: number | null;
  headroom: number;
  /** One sentence for the launch form and the report: "similar tasks took median X, p90 Y steps" or why there is no suggestion. */
  note: string;
}

/** Ceiling after rounding away binary noise (30.4 × 1.25 is 38, not 38.000000000000004). */
const ceil = (x: number): number => Math.ceil(Number(x.toFixed(6)));

/** Headroom over the p90 of passing runs ("p90 with a stated headroom"). */
export const BUDGET_HEADROOM = 1.25;
/** Fewest passing runs a suggestion rests on; below it the default applies and the note says so. */
export const MIN_BUDGET_SAMPLES = 3;

/**
 * Budgets derived from what passing runs of the same case or template actually took : each ceiling is ceil(p90 × headroom) of the passing runs' steps,
 * tokens and dollars (p90 with PostgreSQL percentile_cont semantics; dollars rounded up to the
 * micro-dollar). With fewer than `minSamples` passing runs: basis `default`, the `fallback` budgets,
 * and a note that says there is no history yet.
 */
export function suggestBudgets({
  history,
  fallback,
  headroom = BUDGET_HEADROOM,
  minSamples = MIN_BUDGET_SAMPLES,
}: {
  history: readonly PassingRun[];
  fallback: { stepBudget: number | null; tokenBudget: number | null; costBudgetUsd: number | null };
  headroom?: number;
  minSamples?: number;
}): BudgetSuggestion {
  const steps = history.map((h) => h.steps);
  const r2 = (x: number | null) => (x === null ? null : Number(x.toFixed(2)));
  const p50 = r2(percentile(steps, 0.5));
  const p90 = r2(percentile(steps, 0.9));
  if (history.length < minSamples) {
    return {
      basis: "default",
      samples: history.length,
      stepsP50: p50,
      stepsP90: p90,
      tokensP90: null,
      costP90Usd: null,
      ...fallback,
      headroom,
      note: `no history yet (${history.length} passing run${history.length === 1 ? "" : "s"}, ${minSamples} needed): today's default applies`,
    };
  }
  const tokensP90 = percentile(
    history.map((h) => h.tokens),
    0.9,
  )!;
  const usdP90 = percentile(
    history.map((h) => h.costUsd),
    0.9,
  )!;
  return {
    basis: "history",
    samples: history.length,
    stepsP50: p50,
    stepsP90: p90,
    tokensP90: r2(tokensP90),
    costP90Usd: Number(usdP90.toFixed(6)),
    // A p90 of nothing (runs that recorded no tokens, or a profile without prices: $0) is no basis
    // for a ceiling — a budget of 0 would refuse the launch — so that ceiling is not suggested.
    stepBudget: p90! > 0 ? ceil(p90! * headroom) : null,
    tokenBudget: tokensP90 > 0 ? ceil(tokensP90 * headroom) : null,
    costBudgetUsd: usdP90 > 0 ? ceil(usdP90 * headroom * 1e6) / 1e6 : null,
    headroom,
    note: `similar tasks took median ${p50} steps, p90 ${p90} (${history.length} passing runs); suggested ceiling p90 × ${headroom}`,
  };
}

/** The three budgets a launch may give (absent or null = not given). */
export interface GivenBudgets {
  stepBudget?: number | null;
  tokenBudget?: number | null;
  costBudgetUsd?: number | null;
}

/**
 * The budgets a launch takes from a history suggestion (templates and eval cases alike): each ceiling
 * the launch does not give itself, when the suggestion rests on history; `ceilings` names the ones
 * taken (for budgetBasisOf). A default suggestion (too little history) gives nothing: the launch's
 * own defaults apply.
 */
export function budgetsFromHistory(
  s: BudgetSuggestion,
  given: GivenBudgets,
): { budgets: { stepBudget?: number; tokenBudget?: number; costBudgetUsd?: number }; ceilings: CeilingUsage["kind"][] } {
  const budgets: { stepBudget?: number; tokenBudget?: number; costBudgetUsd?: number } = {};
  const ceilings: CeilingUsage["kind"][] = [];
  if (s.basis !== "history") return { budgets, ceilings };
  const fields = [
    ["steps", "stepBudget"],
    ["tokens", "tokenBudget"],
    ["cost", "costBudgetUsd"],
  ] as const;
  for (const [kind, key] of fields) {
    const suggested = s[key];
    if ((given[key] !== undefined && given[key] !== null) || suggested === null) continue;
    budgets[key] = suggested;
    ceilings.push(kind);
  }
  return { budgets, ceilings };
}

const nullableNumber = z.number().nullable().catch(null);

/**
 * What a task records when its budgets came from history (Task.budgetBasis): the template or eval
 * case the history is of, how many passing runs it rests on, and their p50 / p90 (steps, tokens,
 * USD), the headroom, and which ceilings came from history (the others were chosen by the
 * operator). The agent loop quotes it when the task reaches one of those ceilings.
 */
export const budgetBasisSchema = z.object({
  source: z.enum(["template", "case"]),
  /** Template name, or `suite/case` for an eval case. */
  name: z.string(),
  samples: z.number(),
  stepsP50: nullableNumber,
  stepsP90: nullableNumber,
  tokensP90: nullableNumber,
  costP90Usd: nullableNumber,
  headroom: z.number(),
  ceilings: z.array(z.enum(["steps", "tokens", "cost"])),
});
export type BudgetBasis = z.infer<typeof budgetBasisSchema>;

/**
 * The basis to record for a suggestion whose `ceilings` were applied, or null when the suggestion
 * is the default (no history) or none of its ceilings was used.
 */
export function budgetBasisOf(source: BudgetBasis["source"], name: string, s: BudgetSuggestion, ceilings: CeilingUsage["kind"][]): BudgetBasis | null {
  if (s.basis !== "history" || ceilings.length === 0) return null;
  return {
    source,
    name,
    samples: s.samples,
    stepsP50: s.stepsP50,
    stepsP90: s.stepsP90,
    tokensP90: s.tokensP90,
    costP90Usd: s.costP90Usd,
    headroom: s.headroom,
    ceilings,
  };
}

/** Task.budgetBasis as stored (JSON), or null when absent or not of the recorded shape (then the escalation simply says nothing of history). */
export function parseBudgetBasis(json: unknown): BudgetBasis | null {
  const parsed = budgetBasisSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/**
 * The sentence a budget escalation adds when the ceiling reached was derived from history:
 * "This task is not like the others: 38 steps against a p90 of 30 steps (4 completed tasks of
 * template readme-summary; ceiling p90 × 1.25)." Null when the task's budgets are not from history, or the
 * history has no p90 for that ceiling's kind.
 */
export function historyCeilingNote(ceiling: CeilingUsage, basis: BudgetBasis | null): string | null {
  if (!basis || !basis.ceilings.includes(ceiling.kind)) return null;
  const p90 = ceiling.kind === "steps" ? basis.stepsP90 : ceiling.kind === "tokens" ? basis.tokensP90 : basis.costP90Usd;
  if (p90 === null) return null;
  const fmt = (x: number) => (ceiling.kind === "cost" ? `$${x.toFixed(6)}` : x.toLocaleString("en-US"));
  const unit = ceiling.kind === "cost" ? "" : ` ${ceiling.kind}`;
  const of = basis.source === "template" ? `completed tasks of template ${basis.name}` : `passing runs of eval case ${basis.name}`;
  return `This task is not like the others: ${fmt(ceiling.used)}${unit} against a p90 of ${fmt(p90)}${unit} (${basis.samples} ${of}; ceiling p90 × ${basis.headroom}).`;
}
