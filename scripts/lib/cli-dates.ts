/**
 * The one parser of the CLI's time flags (`--since`, `--until` of `costs`, `resume`, `cancel`), so
 * every command takes the same forms and refuses bad ones in the same words, naming the flag. Pure.
 */
import { calendarDayProblem, filterInstantProblem, isoUtc } from "../../lib/contracts/dates.ts";

const MAX_DAYS = 3650;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Parses a time flag's value. `accept: "day"` (costs, whose filters are UTC days): a date
 * `YYYY-MM-DD`, or a duration `Nd` (N = 1–3650) = the UTC day N days before `now`. `accept:
 * "instant"` (resume / cancel, whose filters are instants): also an ISO date-time with its zone
 * (2026-12-01T14:05:00Z), and `Nd` = the instant N days before `now`. Days are checked with
 * calendarDayProblem (lib/contracts/dates.ts), the rule the API applies.
 * @returns `{ value }` (the string to send to the API) or `{ problem }`: one usage line naming `--<flag>` and the forms it accepts.
 */
export function parseTimeFlag({
  flag,
  value,
  accept,
  now = new Date(),
}: {
  flag: string;
  value: string;
  accept: "day" | "instant";
  now?: Date;
}): { value: string; problem?: undefined } | { problem: string; value?: undefined } {
  const forms =
    accept === "day" ? "a date YYYY-MM-DD or a duration like 30d" : "an ISO date-time (2026-12-01T14:05:00Z), a date YYYY-MM-DD or a duration like 30d";
  const days = /^(\d{1,6})d$/.exec(value);
  if (days) {
    const n = Number(days[1]);
    if (n < 1 || n > MAX_DAYS) return { problem: `--${flag}: days must be between 1 and ${MAX_DAYS}, got ${n}` };
    const at = new Date(now.getTime() - n * 86_400_000);
    return { value: accept === "day" ? at.toISOString().slice(0, 10) : isoUtc(at) };
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const problem = calendarDayProblem(value);
    return problem ? { problem: `--${flag}: ${problem} (${forms})` } : { value };
  }
  if (accept === "instant" && ISO_DATE_TIME.test(value)) {
    const problem = calendarDayProblem(value.slice(0, 10)) ?? filterInstantProblem(new Date(value));
    return problem ? { problem: `--${flag}: ${problem} (${forms})` } : { value };
  }
  return { problem: `--${flag}: ${forms}, got ${JSON.stringify(value)}` };
}

/** "--since must be on or before --until" when both parsed values are given and out of order (days or ISO instants, compared as instants), else null. */
export function sinceUntilProblem(since: string | undefined, until: string | undefined, strict = false): string | null {
  if (since === undefined || until === undefined) return null;
  const [a, b] = [new Date(since).getTime(), new Date(until).getTime()];
  if (strict ? a < b : a <= b) return null;
  return strict ? "--since must be before --until" : "--since must be on or before --until";
}
