import { FAILURE_CLASSES } from "@/lib/contracts/failure.ts";

// The task list's URL → task.list input, without React: the page's hook reads it from the URL, and
// the server page (app/tasks) prefetches the same first page under the same query key.

export const STATUS_OPTIONS = [
  ["queued", "Queued"],
  ["running", "Running"],
  ["waiting_for_human", "Waiting on human"],
  ["completed", "Completed"],
  ["dead_end", "Dead end"],
  ["failed", "Failed"],
  ["cancelled", "Cancelled"],
] as const;
type StatusValue = (typeof STATUS_OPTIONS)[number][0];
export const OUTCOME_OPTIONS = [
  ["clean", "Completed clean"],
  ["with_alerts", "Completed with alerts"],
  ["completed_with_gaps", "Completed with gaps"],
] as const;
type OutcomeValue = (typeof OUTCOME_OPTIONS)[number][0];
const DAY_MS = 86_400_000;

/** "YYYY-MM-DD" → midnight UTC of that day; null when not such a date. */
export function dayStart(value: string | null): Date | null {
  if (!value || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const d = new Date(`${value}T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? null : d;
}

/**
 * An ISO instant as the value of a `datetime-local` input read as UTC ("2026-12-02T14:05:00", with
 * milliseconds when it has some); "" when `iso` is not an instant.
 */
export function utcInputValue(iso: string): string {
  const d = new Date(iso);
  if (!iso || Number.isNaN(d.getTime())) return "";
  const s = d.toISOString();
  return s.endsWith(".000Z") ? s.slice(0, 19) : s.slice(0, 23);
}

/** A `datetime-local` input's value read as UTC → an ISO instant; null when empty or not a time. */
export function utcInputInstant(value: string): string | null {
  const d = new Date(`${value}Z`);
  return value && !Number.isNaN(d.getTime()) ? d.toISOString() : null;
}

/**
 * The task list's view of its URL (`status`, `profile`, `outcome`, `model`, `failure`, `from`, `to`,
 * `since`, `q`, `sort`; unknown values are ignored, except `since`, sent as written so a bad one is
 * refused naming the field) and the `task.list` input it asks for (launch days as UTC instants,
 * `to` inclusive; 100 rows a page). Pure.
 */
export function taskListView(search: { get(name: string): string | null }) {
  const status = (search.get("status") ?? "").split(",").filter((s): s is StatusValue => STATUS_OPTIONS.some(([v]) => v === s));
  const profile = search.get("profile") ?? "";
  const outcomeParam = search.get("outcome");
  const outcome = OUTCOME_OPTIONS.some(([v]) => v === outcomeParam) ? (outcomeParam as OutcomeValue) : undefined;
  const model = search.get("model") ?? "";
  const failureParam = search.get("failure");
  const failure = FAILURE_CLASSES.find((c) => c === failureParam);
  const fromDay = search.get("from") ?? "";
  const toDay = search.get("to") ?? "";
  const since = search.get("since") ?? "";
  const q = search.get("q") ?? "";
  const sort = search.get("sort") === "oldest" ? ("oldest" as const) : ("newest" as const);
  const from = dayStart(fromDay);
  const toStart = dayStart(toDay);
  const filtered = status.length > 0 || !!profile || !!model || !!failure || !!outcome || !!from || !!toStart || !!since || !!q;
  const input = {
    limit: 100,
    sort,
    ...(status.length ? { status } : {}),
    ...(profile ? { profile } : {}),
    ...(outcome ? { outcome } : {}),
    ...(model ? { model } : {}),
    ...(failure ? { failure } : {}),
    ...(from ? { from } : {}),
    ...(toStart ? { to: new Date(toStart.getTime() + DAY_MS) } : {}),
    ...(since ? { since } : {}),
    ...(q ? { q } : {}),
  } as const;

  return { status, profile, outcome, model, failure, fromDay, toDay, since, q, sort, filtered, input };
}
