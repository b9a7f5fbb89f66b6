/** Earliest and latest years a date filter accepts (PostgreSQL has no year 0; JS Dates stop at 275760). */
export const MIN_FILTER_YEAR = 1970;
export const MAX_FILTER_YEAR = 9999;

/**
 * Why `value` is not a calendar day `YYYY-MM-DD` the filters accept, or null when it is: the form,
 * a real day of that month (2026-02-30 is not — JS `Date` would roll it over to March), and a year
 * from 1970 to 9999 (PostgreSQL refuses year 0 with a 500-worthy "out of range"). Used by the task
 * list, /costs, the API and the CLI so they refuse the same days in the same words.
 */
export function calendarDayProblem(value: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return "expected a date YYYY-MM-DD";
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < MIN_FILTER_YEAR || year > MAX_FILTER_YEAR) return `the year must be from ${MIN_FILTER_YEAR} to ${MAX_FILTER_YEAR}, got ${m[1]}`;
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return `${value} is not a day of the calendar`;
  return null;
}

/** Why instant `d` is outside the years the filters accept, or null (see calendarDayProblem). */
export function filterInstantProblem(d: Date): string | null {
  if (Number.isNaN(d.getTime())) return "not a date";
  const year = d.getUTCFullYear();
  return year < MIN_FILTER_YEAR || year > MAX_FILTER_YEAR ? `the year must be from ${MIN_FILTER_YEAR} to ${MAX_FILTER_YEAR}, got ${year}` : null;
}

/**
 * An instant as ISO 8601 in UTC to the second, with its zone: "2026-12-02T05:14:00Z" (no
 * milliseconds). The one format of absolute times in API messages (409 CONFLICT "claimed by X
 * since …"), CSV exports and the CLI ("One date format"). "" for an invalid date. Pure.
 */
export function isoUtc(date: Date | string): string {
  const d = new Date(date);
  return Number.isNaN(d.getTime()) ? "" : d.toISOString().replace(/\.\d{3}Z$/, "Z");
}
