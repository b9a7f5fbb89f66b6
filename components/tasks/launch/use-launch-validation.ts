import { launchLimitProblems, measureLaunch, parseFactsText, parseUsdText, parseWholeNumber } from "@/lib/contracts/launch-limits.ts";
import { MAX_COST_BUDGET_USD, MAX_DEMO_PACKAGES, MAX_STEP_BUDGET, MAX_TOKEN_BUDGET, MIN_COST_BUDGET_USD } from "@/lib/contracts/limits.ts";

/** The form's raw text fields, as typed. */
export interface LaunchFields {
  mode: "demo" | "goal";
  limit: string;
  goal: string;
  stepBudget: string;
  tokenBudget: string;
  costBudget: string;
  factsText: string;
}

/** A whole number in [1, max] from text, undefined for empty; the error names the field. */
function wholeIn(text: string, max: number, name: string): { value: number | undefined; error: string | null } {
  const value = text.trim() === "" ? undefined : parseWholeNumber(text);
  const bad = value !== undefined && (!Number.isInteger(value) || value < 1 || value > max);
  return { value, error: bad ? `${name}: a whole number from 1 to ${max}` : null };
}

/**
 * The form's fields parsed and checked against the launch limits (lib/contracts/limits.ts): the
 * numbers to send (undefined = empty = the profile's) and one error per field, or null.
 */
export function validateLaunch(f: LaunchFields) {
  const limitNumber = parseWholeNumber(f.limit);
  const limitError =
    f.mode === "demo" && (!Number.isInteger(limitNumber) || limitNumber < 1 || limitNumber > MAX_DEMO_PACKAGES)
      ? `Package limit: a whole number from 1 to ${MAX_DEMO_PACKAGES}`
      : null;
  const steps = wholeIn(f.stepBudget, MAX_STEP_BUDGET, "Step budget");
  const tokens = wholeIn(f.tokenBudget, MAX_TOKEN_BUDGET, "Token budget");
  const costNumber = f.costBudget.trim() === "" ? undefined : parseUsdText(f.costBudget);
  // Worded as the server's refusal of `cli launch --cost-budget 1e-3` (server/domain/launch-task.ts).
  const costError =
    costNumber === undefined
      ? null
      : !Number.isFinite(costNumber)
        ? "Dollar budget: a number of US dollars, e.g. 0.50"
        : costNumber < MIN_COST_BUDGET_USD || costNumber > MAX_COST_BUDGET_USD
          ? `Dollar budget: from ${MIN_COST_BUDGET_USD.toFixed(6)} to ${MAX_COST_BUDGET_USD} (USD)`
          : null;
  const parsedFacts = parseFactsText(f.factsText);
  const facts = "facts" in parsedFacts ? parsedFacts.facts : {};
  const goalText = f.mode === "goal" ? f.goal : "";
  const usage = measureLaunch(goalText, facts);
  const problems = launchLimitProblems(goalText, facts);
  const goalError =
    f.mode === "goal" && f.goal.trim() === "" ? "Goal: required" : (problems.find((p) => p.startsWith("goal:"))?.replace(/^goal:/, "Goal:") ?? null);
  const factsError =
    "problem" in parsedFacts
      ? parsedFacts.problem.replace(/^facts:/, "Facts:")
      : (problems.find((p) => p.startsWith("facts:"))?.replace(/^facts:/, "Facts:") ?? null);
  const errors = { limitError, budgetError: steps.error, tokenError: tokens.error, costError, goalError, factsError };
  return {
    limitNumber,
    budgetNumber: steps.value,
    tokenNumber: tokens.value,
    costNumber,
    facts,
    usage,
    ...errors,
    valid: Object.values(errors).every((e) => e === null),
  };
}
