/**
 * Budget ceilings as shown to people (the escalation card, messages). Client-safe: no imports.
 * The ceiling itself is detected in server/domain/step-budget.ts (`reachedCeiling`).
 */

/** Which ceiling a budget escalation hit: steps, tokens, or cost (US dollars). */
export interface CeilingUsage {
  kind: "steps" | "tokens" | "cost";
  used: number;
  limit: number;
}

/** US dollars with four decimals, or six under a cent (so $0.000004 does not read "$0.0000"). */
export function ceilingUsd(x: number, limit: number): string {
  return `$${x.toFixed(limit < 0.01 ? 6 : 4)}`;
}

/** "steps budget is reached: 24 of 24" / "dollar budget is reached: $0.0123 of $0.0100" — the run's message at a ceiling. */
export function describeCeiling(c: CeilingUsage): string {
  if (c.kind === "cost") return `dollar budget is reached: ${ceilingUsd(c.used, c.limit)} of ${ceilingUsd(c.limit, c.limit)}`;
  return `${c.kind} budget is reached: ${c.used} of ${c.limit}`;
}

/** US dollars as the dashboard prints them: two decimals from $1, four below. */
function dashboardUsd(n: number): string {
  return n >= 1 ? `$${n.toFixed(2)}` : `$${n.toFixed(4)}`;
}

/** "dollar ceiling: $0.0021 used of $0.0020" / "token ceiling: 1,200 used of 1,000 tokens" / "step ceiling: 24 used of 24 steps" — the escalation card's line. */
export function describeCeilingUsage(c: CeilingUsage): string {
  if (c.kind === "cost") return `dollar ceiling: ${dashboardUsd(c.used)} used of ${dashboardUsd(c.limit)}`;
  if (c.kind === "tokens") return `token ceiling: ${c.used.toLocaleString("en-US")} used of ${c.limit.toLocaleString("en-US")} tokens`;
  return `step ceiling: ${c.used} used of ${c.limit} steps`;
}
