import { csvNumber, percentileOfHistogram, toCsv } from "./cost-rollup.ts";
import { JUDGE_UNAVAILABLE } from "../../lib/contracts/eval.ts";

/** One cell as the report reads it (money USD, durations ms). */
export interface EvalReportCell {
  cellId: string;
  caseKey: string;
  profile: string;
  repeat: number;
  /** pending · running · passed · failed · cancelled */
  status: string;
  taskId: string | null;
  taskStatus: string | null;
  failureClass: string | null;
  steps: number | null;
  tokens: number | null;
  costUsd: number | null;
  judgeCostUsd: number | null;
  wasteUsd: number | null;
  escalations: number | null;
  durationMs: number | null;
}

/** The figures of one profile. Rates in [0, 1]; null when nothing to divide by. */
export interface EvalProfileReport {
  profile: string;
  /** Cells of this profile in the run, and those that have ended (passed, failed or cancelled). */
  cells: number;
  ended: number;
  passed: number;
  /**
   * Ended cells whose checks all passed but for a judge that gave no verdict (failure class
   * `judge_unavailable`): not judged, so in neither the numerator nor the denominator of the pass
   * rate (NOT_JUDGED_RULE). `judged` = ended − notJudged.
   */
  notJudged: number;
  judged: number;
  /** passed ÷ judged (cells not judged are left out). */
  passRate: number | null;
  /** Wilson score interval (95 %, z = 1.96) of the pass rate. */
  passRateLow: number | null;
  passRateHigh: number | null;
  completionRate: number | null;
  /** Share of cases whose every repeat passed (cases with all repeats ended and judged only) — τ-bench's pass^k. */
  passHatK: number | null;
  stepsP50: number | null;
  stepsP90: number | null;
  tokens: number;
  /** All spend of the profile's ended cells ÷ passing cells (judge cost excluded). */
  costPerPassUsd: number | null;
  /** All spend ÷ cells whose task completed (docs/ARCHITECTURE.md, "Cost"). */
  costPerCompletedUsd: number | null;
  costUsd: number;
  judgeCostUsd: number;
  /** Waste (retry, replay, discarded, restart) ÷ spend. */
  wasteShare: number | null;
  escalationsPerTask: number | null;
  durationP50Ms: number | null;
  durationP90Ms: number | null;
  /** Failure class → number of cells (cells not judged are counted in `notJudged`, not here). */
  failureClasses: Record<string, number>;
}

const ENDED = new Set(["passed", "failed", "cancelled"]);

/** True for an ended cell that was not judged: its judge gave no verdict (NOT_JUDGED_RULE). */
export function notJudged(cell: Pick<EvalReportCell, "status" | "failureClass">): boolean {
  return cell.status === "failed" && cell.failureClass === JUDGE_UNAVAILABLE;
}

/** PostgreSQL percentile_cont over plain values (see percentileOfHistogram). */
export function percentile(values: readonly number[], p: number): number | null {
  return percentileOfHistogram(
    values.map((value) => ({ value, count: 1 })),
    p,
  );
}

/**
 * Wilson score interval for `passes` out of `n` at z (default 1.96, 95 %): E. B. Wilson (1927),
 * "Probable inference, the law of succession, and statistical inference". Null for n = 0.
 */
export function wilsonInterval(passes: number, n: number, z = 1.96): { low: number; high: number } | null {
  if (n <= 0) return null;
  const p = passes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

const round = (x: number, digits = 6): number => Number(x.toFixed(digits));
const ratio = (a: number, b: number, digits = 6): number | null => (b > 0 ? round(a / b, digits) : null);

/**
 * The per-profile report of an eval run from its cells: the profiles in `profiles` order, each with
 * the figures of {@link EvalProfileReport}. Cells still pending or running count in `cells` only.
 * Cells not judged (their judge gave no verdict) count in `ended` and `notJudged`, not in the pass
 * rate, its interval or pass^k (NOT_JUDGED_RULE); spend, steps and durations include them.
 * pass^k counts a case once all `repeats` of it ended and were judged, and passes it when every one passed.
 */
export function buildEvalReport({
  cells,
  profiles,
  repeats,
}: {
  cells: readonly EvalReportCell[];
  profiles: readonly string[];
  repeats: number;
}): EvalProfileReport[] {
  return profiles.map((profile) => {
    const mine = cells.filter((c) => c.profile === profile);
    const ended = mine.filter((c) => ENDED.has(c.status));
    const passed = ended.filter((c) => c.status === "passed").length;
    const judged = ended.filter((c) => !notJudged(c));
    const completed = ended.filter((c) => c.taskStatus === "completed").length;
    const cost = ended.reduce((s, c) => s + (c.costUsd ?? 0), 0);
    const waste = ended.reduce((s, c) => s + (c.wasteUsd ?? 0), 0);
    const byCase = new Map<string, EvalReportCell[]>();
    for (const c of judged) byCase.set(c.caseKey, [...(byCase.get(c.caseKey) ?? []), c]);
    const fullCases = [...byCase.values()].filter((cs) => cs.length >= repeats);
    const failureClasses: Record<string, number> = {};
    for (const c of judged) if (c.status !== "passed") failureClasses[c.failureClass ?? "unknown"] = (failureClasses[c.failureClass ?? "unknown"] ?? 0) + 1;
    const interval = wilsonInterval(passed, judged.length);
    const steps = ended.map((c) => c.steps).filter((s): s is number => s !== null);
    const durations = ended.map((c) => c.durationMs).filter((s): s is number => s !== null);
    return {
      profile,
      cells: mine.length,
      ended: ended.length,
      passed,
      notJudged: ended.length - judged.length,
      judged: judged.length,
      passRate: ratio(passed, judged.length, 4),
      passRateLow: interval ? round(interval.low, 4) : null,
      passRateHigh: interval ? round(interval.high, 4) : null,
      completionRate: ratio(completed, ended.length, 4),
      passHatK: ratio(fullCases.filter((cs) => cs.every((c) => c.status === "passed")).length, fullCases.length, 4),
      stepsP50: percentile(steps, 0.5),
      stepsP90: percentile(steps, 0.9),
      tokens: ended.reduce((s, c) => s + (c.tokens ?? 0), 0),
      costPerPassUsd: ratio(cost, passed),
      costPerCompletedUsd: ratio(cost, completed),
      costUsd: round(cost),
      judgeCostUsd: round(ended.reduce((s, c) => s + (c.judgeCostUsd ?? 0), 0)),
      wasteShare: ratio(waste, cost, 4),
      escalationsPerTask: ratio(
        ended.reduce((s, c) => s + (c.escalations ?? 0), 0),
        ended.length,
        4,
      ),
      durationP50Ms: percentile(durations, 0.5),
      durationP90Ms: percentile(durations, 0.9),
      failureClasses,
    };
  });
}

/** One case × profile comparison between two eval runs. */
export interface EvalRunDiff {
  caseKey: string;
  profile: string;
  /** Passing share of the case's repeats in the base run and in this run (null: not in that run). */
  base: number | null;
  current: number | null;
  change: "regressed" | "improved" | "same" | "new" | "gone";
}

/**
 * Compares two eval runs case × profile by the share of passing repeats: lower now = regressed,
 * higher = improved; cells not judged are left out as in the pass rate. Used by the report's
 * side-by-side view and the CLI's `--no-regression-from` gate.
 */
export function diffEvalRuns({ base, current }: { base: readonly EvalReportCell[]; current: readonly EvalReportCell[] }): EvalRunDiff[] {
  const share = (cells: readonly EvalReportCell[]) => {
    const m = new Map<string, { pass: number; n: number }>();
    for (const c of cells) {
      if (!ENDED.has(c.status) || notJudged(c)) continue;
      const k = `${c.caseKey}\u0000${c.profile}`;
      const e = m.get(k) ?? { pass: 0, n: 0 };
      e.n++;
      if (c.status === "passed") e.pass++;
      m.set(k, e);
    }
    return new Map([...m].map(([k, v]) => [k, v.pass / v.n]));
  };
  const a = share(base);
  const b = share(current);
  const keys = [...new Set([...a.keys(), ...b.keys()])].sort();
  return keys.map((k) => {
    const [caseKey, profile] = k.split("\u0000") as [string, string];
    const x = a.get(k) ?? null;
    const y = b.get(k) ?? null;
    const change = x === null ? "new" : y === null ? "gone" : y < x ? "regressed" : y > x ? "improved" : "same";
    return { caseKey, profile, base: x === null ? null : round(x, 4), current: y === null ? null : round(y, 4), change };
  });
}

/**
 * One cell as exported (CSV and JSON): the report's cell plus `pass` (true / false once ended and
 * judged; null while pending or running, and for a cell not judged) and `judged` (false for a cell
 * whose judge gave no verdict — failure class judge_unavailable —, true for the other ended cells,
 * null while pending or running).
 */
export type EvalExportRow = EvalReportCell & { pass: boolean | null; judged: boolean | null };

/** The export's columns, in order (the CSV header; the JSON rows' keys). */
export const EVAL_EXPORT_COLUMNS = [
  "cellId",
  "caseKey",
  "profile",
  "repeat",
  "status",
  "pass",
  "judged",
  "taskId",
  "taskStatus",
  "failureClass",
  "steps",
  "tokens",
  "costUsd",
  "judgeCostUsd",
  "wasteUsd",
  "escalations",
  "durationMs",
] as const satisfies readonly (keyof EvalExportRow)[];

/**
 * The report's export rows (one row per cell, plain numbers): each cell with the columns of
 * {@link EVAL_EXPORT_COLUMNS}, in that order; `pass` — true for a passed cell, false for a failed or
 * cancelled one, null while it is pending or running and for a cell not judged (`judged` false,
 * failure class judge_unavailable). Money in USD, durations in ms, as numbers. Pure.
 */
export function evalExportRows(cells: readonly EvalReportCell[]): EvalExportRow[] {
  return cells.map((c) => ({
    cellId: c.cellId,
    caseKey: c.caseKey,
    profile: c.profile,
    repeat: c.repeat,
    status: c.status,
    pass: ENDED.has(c.status) && !notJudged(c) ? c.status === "passed" : null,
    judged: ENDED.has(c.status) ? !notJudged(c) : null,
    taskId: c.taskId,
    taskStatus: c.taskStatus,
    failureClass: c.failureClass,
    steps: c.steps,
    tokens: c.tokens,
    costUsd: c.costUsd,
    judgeCostUsd: c.judgeCostUsd,
    wasteUsd: c.wasteUsd,
    escalations: c.escalations,
    durationMs: c.durationMs,
  }));
}

/**
 * The report as CSV (RFC 4180, CRLF), header first, one row per cell ({@link evalExportRows}):
 * plain numbers (no currency sign, percent or thousands separator; dollars to 8 decimals, trailing
 * zeros dropped; "" for none), `pass` and `judged` as true / false ("" for none), and every text cell neutralised against
 * formula injection (a leading = + - @ tab or CR gets an apostrophe: cost-rollup.ts
 * neutraliseFormula, OWASP "CSV injection"). Pure.
 */
export function evalCellsCsv(cells: readonly EvalReportCell[]): string {
  const cell = (v: string | number | boolean | null): string => (typeof v === "number" ? csvNumber(v) : v === null ? "" : String(v));
  return toCsv(
    EVAL_EXPORT_COLUMNS,
    evalExportRows(cells).map((r) => EVAL_EXPORT_COLUMNS.map((k) => cell(r[k]))),
  );
}
