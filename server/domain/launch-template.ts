import { z } from "zod";
import { AppError } from "../errors.ts";
import { percentile } from "./eval-report.ts";
import { budgetBasisOf, budgetsFromHistory, suggestBudgets, type BudgetBasis, type BudgetSuggestion, type PassingRun } from "./budget-from-history.ts";
import { launchTaskInputSchema, type LaunchTaskInput } from "./launch-task.ts";

/** A template's name: kebab-case, 1–60 characters (the CLI's `launch --template <name>`). */
export const templateNameSchema = z
  .string("name: a template name")
  .trim()
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "name: kebab-case (lowercase letters, digits and single dashes)")
  .max(60, "name: at most 60 characters");

/** What a template keeps: the launch input (launchTaskInputSchema's shape) without launchKey. */
export type TemplateLaunch = Omit<z.output<typeof launchTaskInputSchema>, "launchKey">;

/**
 * Validates a template's launch with the launch's own schema (so a template holds only what a
 * launch would take) and drops launchKey: a template launches many times, each with its own key.
 * @throws AppError BAD_INPUT with the launch schema's first message.
 */
export function parseTemplateLaunch(launch: unknown): TemplateLaunch {
  const parsed = launchTaskInputSchema.safeParse(launch);
  if (!parsed.success) throw new AppError("BAD_INPUT", `launch: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  const { launchKey: _dropped, ...rest } = parsed.data;
  return rest;
}

/** A task as "Save as template" reads it (the task row, its profile's name). Money USD. */
export interface TaskShape {
  goal: string;
  profileName: string;
  stepBudget: number;
  tokenBudget: number | null;
  costBudgetUsd: number | null;
  requireApproval: boolean;
  workspace: string;
  /** task.input: { demo?: "license-audit" | "mcp-audit", limit?: number, facts?: {...} } */
  input: unknown;
}

/**
 * The launch that repeats a task's shape: its goal (or, for a demo, the demo kind and package
 * limit — the demo's goal is rebuilt at launch), profile, budgets, approval setting, workspace and
 * launch facts. A demo's emailTo / postUrl are not kept on the task, so the template uses the
 * defaults. Validated as a launch (parseTemplateLaunch).
 */
export function templateLaunchFromTask(task: TaskShape): TemplateLaunch {
  const input = (task.input ?? {}) as { demo?: string; limit?: number; facts?: Record<string, unknown> };
  const what = input.demo === "license-audit" || input.demo === "mcp-audit" ? { demo: { kind: input.demo, limit: input.limit ?? 1 } } : { goal: task.goal };
  return parseTemplateLaunch({
    ...what,
    profile: task.profileName,
    stepBudget: task.stepBudget,
    ...(task.tokenBudget === null ? {} : { tokenBudget: task.tokenBudget }),
    ...(task.costBudgetUsd === null ? {} : { costBudgetUsd: task.costBudgetUsd }),
    requireApproval: task.requireApproval,
    workspace: task.workspace,
    ...(input.facts && Object.keys(input.facts).length ? { facts: input.facts } : {}),
  });
}

/**
 * An eval case's launch (launchTaskInputSchema without profile and launchKey) as a template's, with
 * the profile the template launches on; and back: a template's launch as an eval case's (profile
 * dropped — an eval run chooses its profiles).
 */
export function templateLaunchFromEvalCase(caseLaunch: unknown, profile: string): TemplateLaunch {
  return parseTemplateLaunch({ ...(caseLaunch as object), profile });
}

/** See templateLaunchFromEvalCase. */
export function evalCaseLaunchFromTemplate(launch: TemplateLaunch): Omit<TemplateLaunch, "profile"> {
  const { profile: _profile, ...rest } = launch;
  return rest;
}

/**
 * The launch a template makes, with the caller's overrides on top (budgets chosen on the form,
 * a launch key), validated again as a launch.
 */
export function launchFromTemplate(launch: unknown, overrides: Partial<LaunchTaskInput>): z.output<typeof launchTaskInputSchema> {
  const merged = { ...(launch as object), ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) };
  const parsed = launchTaskInputSchema.safeParse(merged);
  if (!parsed.success) throw new AppError("BAD_INPUT", parsed.error.issues[0]?.message ?? "launch: invalid");
  return parsed.data;
}

/**
 * The launch a template makes with its history applied: each budget the operator does not give
 * (absent, or `undefined` as the form and the CLI send an untouched field) takes the history's
 * suggestion (budgetsFromHistory: ceil(p90 × 1.25) once there are 3 completed tasks), then the
 * operator's overrides go on top and win. Returns the validated launch and the budget basis the task
 * records (null when no ceiling came from history), which the escalation at such a ceiling quotes.
 * Pure. @throws AppError BAD_INPUT as launchFromTemplate.
 */
export function templateLaunchWithHistory({
  name,
  launch,
  history,
  overrides,
}: {
  name: string;
  launch: unknown;
  history: BudgetSuggestion;
  overrides: Partial<LaunchTaskInput>;
}): { input: z.output<typeof launchTaskInputSchema>; budgetBasis: BudgetBasis | null } {
  // A key present with `undefined` is not an override: spread over the history's budgets it would
  // erase them, and the template's own (or the profile's) budget would apply while the task still
  // recorded that its budget came from history.
  const given = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined && v !== null)) as Partial<LaunchTaskInput>;
  const { budgets, ceilings } = budgetsFromHistory(history, given);
  return { input: launchFromTemplate(launch, { ...budgets, ...given }), budgetBasis: budgetBasisOf("template", name, history, ceilings) };
}

/** What the completed tasks of a template took, and the budgets suggested from it. USD. */
export interface TemplateHistory extends BudgetSuggestion {
  costP50Usd: number | null;
  costP90Usd: number | null;
}

/**
 * p50 / p90 of steps and dollars of a template's completed tasks, and the budget suggestion from
 * them (suggestBudgets: ceil(p90 × 1.25), at least 3 completed tasks, else the template's own
 * budgets). Dollars rounded to the micro-dollar.
 */
export function templateHistory(history: readonly PassingRun[], fallback: Parameters<typeof suggestBudgets>[0]["fallback"]): TemplateHistory {
  const usd = history.map((h) => h.costUsd);
  const r6 = (x: number | null) => (x === null ? null : Number(x.toFixed(6)));
  const suggestion = suggestBudgets({ history, fallback });
  return {
    ...suggestion,
    note: suggestion.note.replace("passing runs", "completed tasks").replace("passing run", "completed task"),
    costP50Usd: r6(percentile(usd, 0.5)),
    costP90Usd: r6(percentile(usd, 0.9)),
  };
}
