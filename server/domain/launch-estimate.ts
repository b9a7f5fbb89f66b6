import { percentile } from "./eval-report.ts";

/** What one completed task of the same profile took: model + tool steps, US dollars, and the demo's package (or file) limit (null for a goal). */
export interface CompletedTaskCost {
  steps: number;
  costUsd: number;
  limit: number | null;
}

/** What a launch is estimated to cost before it starts ("a launch shows what similar tasks cost"). */
export interface LaunchEstimate {
  /** `history`: estimated from completed tasks; `none`: no completed task of the kind yet. */
  basis: "history" | "none";
  /** `goal` (completed goal tasks of the profile, as they are) or `per-unit` (a demo: each task's cost and steps per package, times this limit). */
  method: "goal" | "per-unit";
  /** Completed tasks the estimate rests on. */
  samples: number;
  /** Median and p90 (PostgreSQL percentile_cont) of the dollars and steps, for this launch (scaled to its limit for a demo). */
  costP50Usd: number | null;
  costP90Usd: number | null;
  stepsP50: number | null;
  stepsP90: number | null;
  /** A demo's history: the smallest and largest limit of the tasks it rests on; null for a goal or without history. */
  limits: { min: number; max: number } | null;
  /** One sentence for the launch form, saying what the estimate rests on and how it was made. */
  note: string;
}

const usd = (x: number) => `$${x < 0.01 && x > 0 ? x.toPrecision(2) : x.toFixed(2)}`;
const whole = (x: number) => Math.round(x).toLocaleString("en-US");
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * The estimate a launch form shows before Launch, from the completed tasks of the same
 * profile (and, for a demo, the same demo kind):
 * - a goal: the median and p90 of their dollars and steps, "from N completed tasks";
 * - a demo with `limit` packages (files for mcp-audit): each task's dollars and steps divided by its
 *   own limit, the median and p90 of those per-package figures, times `limit` — so a 1,000-package
 *   audit after 50-package ones says what 1,000 packages will cost at the rate seen, and the note
 *   names the limits seen (a rate from far smaller runs is still a rate, not a measurement).
 * No completed task: basis `none` and a note "no history yet". Percentiles with PostgreSQL
 * percentile_cont semantics (eval-report.ts `percentile`); dollars rounded to the micro-dollar.
 */
export function estimateLaunch({
  history,
  profile,
  demo,
}: {
  history: readonly CompletedTaskCost[];
  profile: string;
  /** The demo launched and its limit (whole number ≥ 1); absent = a goal launch. */
  demo?: { kind: string; limit: number };
}): LaunchEstimate {
  const micro = (x: number | null) => (x === null ? null : Math.round(x * 1e6) / 1e6);
  const tenth = (x: number | null) => (x === null ? null : Math.round(x * 10) / 10);
  if (!demo) {
    const rows = history.filter((h) => h.limit === null);
    if (rows.length === 0) return none("goal", `no history yet: no completed goal task of profile ${profile}`);
    const cost = rows.map((r) => r.costUsd);
    const steps = rows.map((r) => r.steps);
    const e = {
      costP50Usd: micro(percentile(cost, 0.5)),
      costP90Usd: micro(percentile(cost, 0.9)),
      stepsP50: tenth(percentile(steps, 0.5)),
      stepsP90: tenth(percentile(steps, 0.9)),
    };
    return {
      basis: "history",
      method: "goal",
      samples: rows.length,
      ...e,
      limits: null,
      note: `From ${plural(rows.length, "completed task")} of profile ${profile}: median ${usd(e.costP50Usd!)} and ${whole(e.stepsP50!)} steps, p90 ${usd(e.costP90Usd!)} and ${whole(e.stepsP90!)} steps.`,
    };
  }
  const unit = demo.kind === "mcp-audit" ? "file" : "package";
  const rows = history.filter((h): h is CompletedTaskCost & { limit: number } => h.limit !== null && h.limit >= 1);
  if (rows.length === 0) return none("per-unit", `no history yet: no completed ${demo.kind} task of profile ${profile}`);
  const costPer = rows.map((r) => r.costUsd / r.limit);
  const stepsPer = rows.map((r) => r.steps / r.limit);
  const perP50 = percentile(costPer, 0.5)!;
  const e = {
    costP50Usd: micro(perP50 * demo.limit),
    costP90Usd: micro(percentile(costPer, 0.9)! * demo.limit),
    stepsP50: tenth(percentile(stepsPer, 0.5)! * demo.limit),
    stepsP90: tenth(percentile(stepsPer, 0.9)! * demo.limit),
  };
  const limits = { min: Math.min(...rows.map((r) => r.limit)), max: Math.max(...rows.map((r) => r.limit)) };
  const seen = limits.min === limits.max ? `${whole(limits.min)}` : `${whole(limits.min)}–${whole(limits.max)}`;
  return {
    basis: "history",
    method: "per-unit",
    samples: rows.length,
    ...e,
    limits,
    note:
      `From ${plural(rows.length, `completed ${demo.kind} task`)} of profile ${profile} (${seen} ${unit}s each), scaled per ${unit}: ` +
      `median ${usd(perP50)} per ${unit} × ${whole(demo.limit)} = ${usd(e.costP50Usd!)} and ${whole(e.stepsP50!)} steps, p90 ${usd(e.costP90Usd!)} and ${whole(e.stepsP90!)} steps.`,
  };
}

function none(method: LaunchEstimate["method"], note: string): LaunchEstimate {
  return {
    basis: "none",
    method,
    samples: 0,
    costP50Usd: null,
    costP90Usd: null,
    stepsP50: null,
    stepsP90: null,
    limits: null,
    note: `${note[0]!.toUpperCase()}${note.slice(1)}.`,
  };
}
