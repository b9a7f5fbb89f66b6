/**
 * How an API input field is named on the command line, so a problem the API (or its schema run
 * locally) finds in `demo.limit` is reported as `--limit`, with the value the user gave. Pure.
 */
import type { FieldLabel, FlagValues } from "../lib/cli-args.ts";

/** API input path → the flag that sets it (without `--`). */
const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  goal: "goal",
  "demo.limit": "limit",
  "demo.postUrl": "post-url",
  profile: "profile",
  stepBudget: "step-budget",
  tokenBudget: "token-budget",
  costBudgetUsd: "cost-budget",
  "overrides.stepBudget": "step-budget",
  "overrides.tokenBudget": "token-budget",
  "overrides.costBudgetUsd": "cost-budget",
  template: "template",
  workspace: "workspace",
  status: "status",
  "selection.filter.status": "status",
  "selection.filter.failure": "failure",
  "selection.filter.profile": "profile",
  "selection.filter.from": "since",
  "selection.filter.to": "until",
  limit: "limit",
  guidance: "guidance",
  deadEndReason: "reason",
  idempotencyKey: "idempotency-key",
  launchKey: "idempotency-key",
  "budgetIncrease.steps": "extra-steps",
  "budgetIncrease.tokens": "extra-tokens",
  "budgetIncrease.usd": "extra-usd",
};

/**
 * How an API input field is named on the command line (`demo.limit` → `--limit`, `taskId` →
 * `<taskId>`), with the raw value given for it; null for fields the CLI does not set.
 */
export function labeller(values: FlagValues, positionals: readonly string[]): (path: string) => FieldLabel {
  return (path) => {
    if (path === "taskId" || path === "escalationId") return { label: `<${path}>`, given: positionals[0] };
    if (path === "decision") return { label: "<decision>", given: positionals[1] };
    const flag = FLAG_OF_FIELD[path];
    return flag ? { label: `--${flag}`, given: values[flag] } : null;
  };
}
