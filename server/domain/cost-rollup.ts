import { z } from "zod";
import { inputObject, textField } from "./input-fields.ts";

/**
 * The managers' cost rollups: filters, the outcome and failure-class vocabularies, and the
 * pure shaping of the outcomes table into cells and CSV (the CSV has the table's rows and columns,
 * each figure as a plain number). The SQL lives in server/db/cost-queries.ts.
 */

/**
 * Outcome of a task for the cost pages (from Task.status and Task.outcome; `running` = queued or
 * running). `completed_with_gaps` is a completed task whose result names gaps (Task.outcome, issue
 * 18): its own outcome row and filter, so a manager sees how much of the spend bought partial
 * results. It still completed, so it counts as completed wherever "completed" is a count — the
 * rollup's `completed`, completion rate, cost per completed task and the steps-per-completed-task
 * histogram ({@link COMPLETED_OUTCOMES}); the split between the two is the byOutcome rows.
 */
export const COST_OUTCOMES = ["completed", "completed_with_gaps", "dead_end", "failed", "cancelled", "waiting", "running"] as const;
export type CostOutcome = (typeof COST_OUTCOMES)[number];

/** The outcomes that count as a completed task (completion rate, cost per completed task, steps per completed task). */
export const COMPLETED_OUTCOMES: readonly CostOutcome[] = ["completed", "completed_with_gaps"];

import { FAILURE_CLASSES, type FailureClass } from "../../lib/contracts/failure.ts";
import { calendarDayProblem, isoUtc } from "../../lib/contracts/dates.ts";
export { FAILURE_CLASSES, type FailureClass };

/** cost_rollup.failure: '' for none, else a failure class (longhaul_cost_failure). Also a CHECK constraint on the column (migration status_checks). */
export const COST_ROLLUP_FAILURES = ["", ...FAILURE_CLASSES] as const;

const day = z.string("must be a date YYYY-MM-DD").superRefine((s, ctx) => {
  const problem = calendarDayProblem(s);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

/**
 * What every date on /costs, in `cost.rollup`, in `cli costs` and in the CSV's range means: a task
 * counts — its whole spend, its outcome and its steps — on the UTC day it was launched
 * (Task.createdAt), a cohort view. Chosen so that each period's numerator (all spend of the tasks
 * launched then) and denominator (those of them that completed) are the same tasks, so the
 * cost-per-completed-task trend and the spend-by-cause chart add up to the table and the headline
 * for any range; spend is not split by the day each model call happened (a task's calls can span
 * days, and a call-day split would mix one period's spend with another period's completions).
 */
export const COST_DATE_BASIS = "launch day (UTC)";

/**
 * Filters of /costs, the API and the CLI, all optional. `from`/`to`: inclusive UTC days on the
 * task's launch day (COST_DATE_BASIS); `profile`: agent profile name; `model`: model name;
 * `outcome`; `bucket`: day or week (ISO weeks, Monday) for the time series.
 */
export const costFiltersSchema = inputObject({
  from: day.optional(),
  to: day.optional(),
  profile: textField("profile", 200).optional(),
  model: textField("model", 200).optional(),
  outcome: z.enum(COST_OUTCOMES).optional(),
  bucket: z.enum(["day", "week"]).default("day"),
}).refine((f) => !f.from || !f.to || f.from <= f.to, { message: "from must be on or before to", path: ["from"] });
export type CostFilters = z.infer<typeof costFiltersSchema>;

/**
 * Task.status (and, for a completed task, Task.outcome) → outcome: `completed_with_gaps` for a
 * completed task with Task.outcome `completed_with_gaps`, else by status (waiting_for_human →
 * waiting; queued, running → running). server/db/sql/task-cost.sql longhaul_cost_outcome mirrors it.
 */
export function outcomeOf(status: string, taskOutcome: string | null = null): CostOutcome {
  if (status === "completed") return taskOutcome === "completed_with_gaps" ? "completed_with_gaps" : "completed";
  if (status === "dead_end" || status === "failed" || status === "cancelled") return status;
  if (status === "waiting_for_human") return "waiting";
  return "running";
}

/**
 * The failure class of a task that did not complete: `dead_end` for a dead end, else from the end
 * reason of its latest run that has one (Run.endReason: budget_exhausted → budget; loop, stall,
 * tool_failure, transient, saturation, drift, error as they are — the classes the eval report uses,
 * lib/contracts/failure.ts; unknown reasons → error).
 * Completed, running and user-cancelled tasks have none (null). This is the key the rollup stores
 * (longhaul_cost_failure in server/db/sql/task-cost.sql mirrors it); what /costs and its CSVs
 * show is {@link reportedFailureClass}.
 */
export function failureClassOf(status: string, lastEndReason: string | null): FailureClass | null {
  if (status === "completed" || status === "queued" || status === "running") return null;
  if (status === "dead_end") return "dead_end";
  if (lastEndReason === null || lastEndReason === "cancelled_by_user") return null;
  if (lastEndReason === "budget_exhausted") return "budget";
  return (FAILURE_CLASSES as readonly string[]).includes(lastEndReason) ? (lastEndReason as FailureClass) : "error";
}

/**
 * The failure class /costs, cost.rollup and the per-task CSV show: none for a cancelled task,
 * whatever its run's end reason (a cancel is a person's choice, not a failure: a task
 * cancelled by a batch or an escalation decision once read as "Error"), else {@link failureClassOf}.
 * Applied when reading (server/db/cost-queries.ts), so the stored rollup keys stay as the
 * triggers wrote them.
 */
export function reportedFailureClass(status: string, lastEndReason: string | null): FailureClass | null {
  return status === "cancelled" ? null : failureClassOf(status, lastEndReason);
}

/** Money and spend split of a group of tasks (USD). */
export interface CostGroup {
  key: string;
  tasks: number;
  completed: number;
  usd: number;
  productiveUsd: number;
  overheadUsd: number;
  wasteUsd: number;
  /** Part of `usd` whose tokens were estimated (the provider reported none); > 0 → the figure is flagged. */
  estimatedUsd: number;
  /** usd / completed; null when nothing completed. */
  costPerCompletedUsd: number | null;
  /** The price tables the group's dollars come from, sorted (more than one: the figure mixes tables). */
  priceVersions: string[];
}

/** One row of the outcomes-by-profile-and-model table. */
export interface OutcomeRow {
  profile: string;
  model: string;
  launched: number;
  completed: number;
  /** Mean model + tool steps per completed task; null when none completed. */
  stepsPerCompleted: number | null;
  escalationsPerTask: number;
  usd: number;
  costPerCompletedUsd: number | null;
  estimatedUsd: number;
  /** The price tables the row's dollars come from, sorted. */
  priceVersions: string[];
}

/** USD with 4 decimals ("$0.0123"), "—" for null; an estimated figure gets a trailing "*". */
export function formatUsd(usd: number | null, estimated = false): string {
  if (usd === null) return "—";
  return `$${usd.toFixed(4)}${estimated ? "*" : ""}`;
}

/** The outcomes table's header, as shown and as exported. */
export const OUTCOME_TABLE_HEADER = [
  "Profile",
  "Model",
  "Launched",
  "Completed",
  "Completion rate",
  "Steps / completed (mean)",
  "Escalations / task (mean)",
  "Spend",
  "Cost / completed task",
  "Price table",
  "Estimated",
] as const;

/**
 * The cells of the outcomes table, as strings, exactly as the page shows them (the CSV is built from
 * the same cells). Rounding: USD 4 decimals, rates in whole percent, means 1 decimal; an estimated
 * figure ends in "*" and the Estimated column says "yes"; "Price table" names the price table(s)
 * the row's dollars come from (joined with " + " when they are several; "—" before any call).
 */
export function outcomeTableCells(rows: readonly OutcomeRow[]): string[][] {
  return rows.map((r) => {
    const est = r.estimatedUsd > 0;
    return [
      r.profile,
      r.model,
      String(r.launched),
      String(r.completed),
      r.launched > 0 ? `${Math.round((100 * r.completed) / r.launched)}%` : "—",
      r.stepsPerCompleted === null ? "—" : r.stepsPerCompleted.toFixed(1),
      r.escalationsPerTask.toFixed(2),
      formatUsd(r.usd, est),
      formatUsd(r.costPerCompletedUsd, est),
      r.priceVersions.length > 0 ? r.priceVersions.join(" + ") : "—",
      est ? "yes" : "no",
    ];
  });
}

/** RFC 4180 CSV of a header and rows (fields quoted when they hold a comma, quote or line break; formula-like cells neutralised, {@link neutraliseFormula}). */
export function toCsv(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const field = (raw: string) => {
    const v = neutraliseFormula(raw);
    return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
  };
  return [header, ...rows].map((r) => r.map(field).join(",")).join("\r\n") + "\r\n";
}

/**
 * A CSV cell that a spreadsheet would run as a formula (it starts with =, +, -, @, tab or CR — OWASP
 * "CSV injection"; a profile or model name is user-written) gets a leading apostrophe, so it is shown
 * as text. A plain number (e.g. -0.5) is left as it is. Pure.
 */
export function neutraliseFormula(cell: string): string {
  return /^[=+\-@\t\r]/.test(cell) && !/^[+-]?\d+(\.\d+)?$/.test(cell) ? `'${cell}` : cell;
}

/**
 * A number as a CSV data cell ("CSV exports are data"): plain decimal, no currency sign,
 * percent or thousands separator, at most `decimals` places with trailing zeros dropped
 * (0.50000000 → "0.5"); "" for null or a non-finite value, so a spreadsheet reads an empty cell.
 */
export function csvNumber(n: number | null, decimals = 8): string {
  if (n === null || !Number.isFinite(n)) return "";
  const fixed = n.toFixed(decimals);
  const trimmed = fixed.includes(".") ? fixed.replace(/\.?0+$/, "") : fixed;
  return trimmed === "-0" ? "0" : trimmed;
}

/** The outcomes CSV's header: the table's columns, with units where the cells are plain numbers. */
export const OUTCOME_CSV_HEADER = [
  "Profile",
  "Model",
  "Launched",
  "Completed",
  "Completion rate (fraction)",
  "Steps / completed (mean)",
  "Escalations / task (mean)",
  "Spend (USD)",
  "Cost / completed task (USD)",
  "Price table",
  "Estimated",
] as const;

/**
 * The outcomes table as data rows: the same rows and columns as {@link outcomeTableCells}, but each
 * figure a plain number ({@link csvNumber}: USD to 8 places as stored, the completion rate as a
 * fraction to 4 places, means to 4 places; empty when there is none) so a spreadsheet can sum them.
 */
export function outcomeCsvCells(rows: readonly OutcomeRow[]): string[][] {
  return rows.map((r) => [
    r.profile,
    r.model,
    String(r.launched),
    String(r.completed),
    r.launched > 0 ? csvNumber(r.completed / r.launched, 4) : "",
    csvNumber(r.stepsPerCompleted, 4),
    csvNumber(r.escalationsPerTask, 4),
    csvNumber(r.usd),
    csvNumber(r.costPerCompletedUsd),
    r.priceVersions.join(" + "),
    r.estimatedUsd > 0 ? "yes" : "no",
  ]);
}

/** The outcomes table as CSV data: {@link OUTCOME_CSV_HEADER} and {@link outcomeCsvCells}. */
export function outcomeTableCsv(rows: readonly OutcomeRow[]): string {
  return toCsv(OUTCOME_CSV_HEADER, outcomeCsvCells(rows));
}

/**
 * The price tables of a set of rollup rows: each row's key holds a task's tables joined with " + "
 * ('' before any call); returns the distinct tables, sorted.
 */
export function priceVersionsOf(keys: readonly (string | null)[]): string[] {
  const out = new Set<string>();
  for (const k of keys) for (const v of (k ?? "").split(" + ")) if (v) out.add(v);
  return [...out].sort();
}

/**
 * A percentile of a histogram with PostgreSQL's `percentile_cont` semantics (linear interpolation
 * between the two nearest ranks: position p·(N − 1), 0-based, over the N values in order).
 * `bins`: value → how many times it occurs (any order; counts ≤ 0 ignored); `p` in [0, 1].
 * Returns null for an empty histogram.
 * @throws RangeError when p is outside [0, 1].
 */
export function percentileOfHistogram(bins: readonly { value: number; count: number }[], p: number): number | null {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`p: must be between 0 and 1, got ${p}`);
  const sorted = bins.filter((b) => b.count > 0).sort((a, b) => a.value - b.value);
  const n = sorted.reduce((s, b) => s + b.count, 0);
  if (n === 0) return null;
  const pos = p * (n - 1);
  const valueAt = (rank: number): number => {
    let seen = 0;
    for (const b of sorted) {
      seen += b.count;
      if (rank < seen) return b.value;
    }
    return sorted[sorted.length - 1]!.value;
  };
  const lo = Math.floor(pos);
  const lower = valueAt(lo);
  const upper = valueAt(Math.ceil(pos));
  return lower + (pos - lo) * (upper - lower);
}

/** One task of the per-task CSV (server/db/cost-queries.ts taskCostRows). USD; `launchedAt` the task's createdAt. */
export interface TaskCostRow {
  taskId: string;
  launchedAt: Date;
  profile: string;
  model: string;
  /** Task.status (mapped to an outcome by outcomeOf, with `outcome`). */
  status: string;
  /** Task.outcome: completed · completed_with_gaps for a completed task; null otherwise (absent = null). */
  outcome?: string | null;
  /** The end reason of the task's latest run that has one (mapped by failureClassOf). */
  lastEndReason: string | null;
  /** The budget's steps of all runs: model + tool (task_cost.steps, counted by `longhaul_budget_step`; lib/contracts/step-count.ts). */
  steps: number;
  /** Checkpoint steps and human (escalation decision) steps of all runs, counted apart from the budget (absent = 0). */
  checkpointSteps?: number;
  humanSteps?: number;
  /** Prompt + completion tokens of all calls. */
  tokens: number;
  /** Of those: prompt tokens read from and written to the providers' caches, completion tokens spent reasoning (absent = 0). */
  cachedTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
  costUsd: number;
  /** Retries, replays, discarded and restarted work (the table's waste). */
  wasteUsd: number;
  /** The launch template's name, and the eval case as `suite/case`; "" or absent = none (compare like with like). */
  template?: string;
  evalCase?: string;
}

/** The per-task CSV's header (one row per task beside the grouped table). */
export const TASK_CSV_HEADER = [
  "Task id",
  "Launched at (UTC)",
  "Profile",
  "Model",
  "Outcome",
  "Failure class",
  "Budget steps (model + tool)",
  "Tokens billed (every model call)",
  "Cost (USD)",
  "Waste (USD)",
  "Template",
  "Eval case",
  "Checkpoint steps",
  "Human steps",
  "Cached prompt tokens",
  "Cache write tokens",
  "Reasoning tokens",
] as const;

/**
 * One row per task as CSV data: ISO 8601 launch time with its zone (isoUtc), the outcome and
 * failure class by the same rules as the grouped table (outcomeOf, reportedFailureClass), plain numbers
 * (csvNumber: USD to 8 places as stored), the budget's steps with checkpoint and human steps in
 * their own columns (lib/contracts/step-count.ts), and the tokens read from and written to the
 * providers' caches and spent reasoning. Formula-like names are neutralised by toCsv.
 */
export function taskCostCsv(rows: readonly TaskCostRow[]): string {
  return toCsv(
    TASK_CSV_HEADER,
    rows.map((r) => [
      r.taskId,
      isoUtc(r.launchedAt),
      r.profile,
      r.model,
      outcomeOf(r.status, r.outcome ?? null),
      reportedFailureClass(r.status, r.lastEndReason) ?? "",
      String(r.steps),
      String(r.tokens),
      csvNumber(r.costUsd),
      csvNumber(r.wasteUsd),
      r.template ?? "",
      r.evalCase ?? "",
      String(r.checkpointSteps ?? 0),
      String(r.humanSteps ?? 0),
      String(r.cachedTokens ?? 0),
      String(r.cacheWriteTokens ?? 0),
      String(r.reasoningTokens ?? 0),
    ]),
  );
}

/**
 * Whether the figures in scope really mix prices ("Mixed price tables" only when the
 * prices differ). `versions`: the price tables named (priceVersionsOf; "profile:<name>" or
 * "genai-prices@<v>", a " (model not listed)" suffix ignored). Two profiles' own tables with the
 * same per-million-token prices (input, cached — the input price when unset —, output) are one
 * price; `profilePrices` gives them by profile name (USD per MTok; a profile missing from it counts
 * as its own price). Every other table is its own price. True when more than one price remains. Pure.
 */
export function pricesDiffer(
  versions: readonly string[],
  profilePrices: ReadonlyMap<string, { inputPerMTok: number | null; cachedPerMTok: number | null; outputPerMTok: number | null }>,
): boolean {
  const keys = new Set<string>();
  for (const raw of versions) {
    const v = raw.replace(/ \(model not listed\)$/, "");
    const p = v.startsWith("profile:") ? profilePrices.get(v.slice("profile:".length)) : undefined;
    keys.add(p && p.inputPerMTok !== null && p.outputPerMTok !== null ? `prices:${p.inputPerMTok}/${p.cachedPerMTok ?? p.inputPerMTok}/${p.outputPerMTok}` : v);
  }
  return keys.size > 1;
}
