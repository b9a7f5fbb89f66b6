/** Display helpers of the eval pages (plain functions, no React). */

/** A rate in [0, 1] as a whole percentage, "—" for null. */
export const pct = (x: number | null | undefined): string => (x === null || x === undefined ? "—" : `${Math.round(x * 100)}%`);

/** US dollars with 4 decimals (eval cells cost fractions of a cent offline), "—" for null. */
export const usd4 = (x: number | null | undefined): string => (x === null || x === undefined ? "—" : `$${x.toFixed(4)}`);

/** Milliseconds as seconds with one decimal, "—" for null. */
export const secs = (ms: number | null | undefined): string => (ms === null || ms === undefined ? "—" : `${(ms / 1000).toFixed(1)} s`);

/** Words for failure classes. */
export const FAILURE_CLASS_LABEL: Record<string, string> = {
  transient: "transient",
  saturation: "saturation",
  drift: "drift",
  dead_end: "dead end",
  budget: "budget",
  loop: "loop",
  stall: "stall",
  tool_failure: "tool failure",
  check_failed: "check failed",
  judge_unavailable: "not judged (judge unavailable)",
  escalation: "escalation",
  error: "error",
  cancelled: "cancelled",
};
