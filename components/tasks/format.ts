import { formatDistanceToNowStrict } from "date-fns";

/** 1234567 → "1.2 M", 12345 → "12.3 k". */
export function compactNumber(n: number): string {
  return new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 }).format(n);
}

/** Dollars with enough digits for small agent costs: $0.0123. */
export function usd(n: number): string {
  return n >= 1 ? `$${n.toFixed(2)}` : `$${n.toFixed(4)}`;
}

/** 850 → "850 ms", 12_300 → "12.3 s", 125_000 → "2 m 5 s". */
export function durationMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return m < 60 ? `${m} m ${s} s` : `${Math.floor(m / 60)} h ${m % 60} m`;
}

/** "4 minutes ago" (relative, for lists; the absolute time goes in a title). */
export function ago(date: Date | null | undefined): string {
  return date ? `${formatDistanceToNowStrict(date)} ago` : "—";
}

/** Pads to two digits. */
const two = (n: number) => String(n).padStart(2, "0");

/** An unambiguous absolute time: "2026-12-01 08:19:06 UTC" (24 h, always UTC). */
export function absoluteUtc(date: Date | null | undefined): string {
  if (!date) return "—";
  return `${date.getUTCFullYear()}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())} ${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} UTC`;
}

/** The last 8 characters of an id ("task_01kb…x7p2qk9d" → "x7p2qk9d"): the random tail of a ULID, distinct between tasks launched together. */
export function shortId(id: string): string {
  return id.length > 8 ? id.slice(-8) : id;
}
