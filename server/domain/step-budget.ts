import type { CeilingUsage } from "../../lib/contracts/ceiling.ts";

/** A hard ceiling reached: which one, how much was used, and the limit (steps, tokens, or USD for `cost`); the shape is lib/contracts/ceiling.ts's. */
export type Ceiling = CeilingUsage;

/**
 * Hard ceilings enforced by the orchestrator, whatever the model does (docs/ARCHITECTURE.md
 * "How a run works", step 4: steps, tokens, dollars per task). Returns the ceiling reached,
 * or null. The loop calls it before every model call and every tool call, so a run never overshoots
 * a ceiling by more than the step in flight.
 *
 * - `stepsUsed`/`stepBudget`: model + tool steps taken in this task so far (all runs).
 * - `tokensUsed`/`tokenBudget`: prompt + completion tokens (null budget = no ceiling).
 * - `costUsd`/`costBudgetUsd`: the task's model spend in USD so far — recorded tokens × the profile's
 *   prices, retries and checkpoints included, because they are paid for (null budget = no ceiling).
 * Checked in that order; the first reached is returned.
 */
export function reachedCeiling({
  stepsUsed,
  stepBudget,
  tokensUsed,
  tokenBudget,
  costUsd = 0,
  costBudgetUsd = null,
}: {
  stepsUsed: number;
  stepBudget: number;
  tokensUsed: number;
  tokenBudget: number | null;
  costUsd?: number;
  costBudgetUsd?: number | null;
}): Ceiling | null {
  if (stepsUsed >= stepBudget) return { kind: "steps", used: stepsUsed, limit: stepBudget };
  if (tokenBudget !== null && tokensUsed >= tokenBudget) return { kind: "tokens", used: tokensUsed, limit: tokenBudget };
  if (costBudgetUsd !== null && costBudgetUsd > 0 && costUsd >= costBudgetUsd) return { kind: "cost", used: costUsd, limit: costBudgetUsd };
  return null;
}
