/** Display helpers of the eval pages (plain functions, no React). */
import { EVAL_FAILURE_LABELS } from "@/lib/contracts/failure.ts";

/** A rate in [0, 1] as a whole percentage, "—" for null. */
export const pct = (x: number | null | undefined): string => (x === null || x === undefined ? "—" : `${Math.round(x * 100)}%`);

/** US dollars with 4 decimals (eval cells cost fractions of a cent offline), "—" for null. */
export const usd4 = (x: number | null | undefined): string => (x === null || x === undefined ? "—" : `$${x.toFixed(4)}`);

/** Milliseconds as seconds with one decimal, "—" for null. */
export const secs = (ms: number | null | undefined): string => (ms === null || ms === undefined ? "—" : `${(ms / 1000).toFixed(1)} s`);

/** Words for failure classes: the shared list (lib/contracts/failure.ts), indexed by the stored text. */
export const FAILURE_CLASS_LABEL: Readonly<Record<string, string>> = EVAL_FAILURE_LABELS;
