/**
 * Hard ceilings enforced by the orchestrator, whatever the model does (ARCHITECTURE.md step 4).
 * Returns the ceiling reached before starting another model turn, or null.
 *
 * - `stepsUsed`: model + tool steps taken in this task so far; a model turn may add up to
 *   1 + (tool calls) steps, so the turn is refused when `stepsUsed >= stepBudget`.
 * - `tokensUsed`/`tokenBudget`: prompt + completion tokens (null budget = no ceiling).
 */
export function reachedCeiling({
  stepsUsed,
  stepBudget,
  tokensUsed,
  tokenBudget,
}: {
  stepsUsed: number;
  stepBudget: number;
  tokensUsed: number;
  tokenBudget: number | null;
}): { kind: "steps" | "tokens"; used: number; limit: number } | null {
  if (stepsUsed >= stepBudget) return { kind: "steps", used: stepsUsed, limit: stepBudget };
  if (tokenBudget !== null && tokensUsed >= tokenBudget) return { kind: "tokens", used: tokensUsed, limit: tokenBudget };
  return null;
}
