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
  /** ceil(p90 × headroom) from history; the fallback's otherwise. */
  stepBudget: number | null;
  tokenBudget: number | null;
  costBudgetUsd: number | null;
  headroom: number;
  /** One sentence for the launch form and the report: "similar tasks took median X, p90 Y steps" or why there is no suggestion. */
  note: string;
}

/** Ceiling after rounding away binary noise (30.4 × 1.25 is 38, not 38.000000000000004). */
const ceil = (x: number): number => Math.ceil(Number(x.toFixed(6)));

/** Headroom over the p90 of passing runs (issue 17: "p90 with a stated headroom"). */
export const BUDGET_HEADROOM = 1.25;
/** Fewest passing runs a suggestion rests on; below it the default applies and the note says so. */
export const MIN_BUDGET_SAMPLES = 3;

/**
 * Budgets derived from what passing runs of the same case or template actually took (issue 17,
 * "Budgets derived from history"): each ceiling is ceil(p90 × headroom) of the passing runs' steps,
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
    stepBudget: ceil(p90! * headroom),
    tokenBudget: ceil(tokensP90 * headroom),
    costBudgetUsd: ceil(usdP90 * headroom * 1e6) / 1e6,
    headroom,
    note: `similar tasks took median ${p50} steps, p90 ${p90} (${history.length} passing runs); suggested ceiling p90 × ${headroom}`,
  };
}
