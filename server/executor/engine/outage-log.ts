/**
 * One log line per PostgreSQL outage instead of one per failed statement. While the database is
 * down, every lease poll (every `pollMs`), every heartbeat and every HTTP call that touches the
 * database fails; logging each one floods the log (~15 lines for a few seconds' restart, most with
 * an empty message: node-postgres reports a refused connection as an `AggregateError` whose
 * `message` is ""). {@link OutageLog} writes the first failure (naming the error code and message,
 * never empty), then at most one reminder per {@link OUTAGE_REMINDER_MS} while it stays down, then
 * one recovery line at the first success. Pure apart from the injected `log` and clock.
 */

/** Interval between two "still unreachable" lines of one outage, ms. */
export const OUTAGE_REMINDER_MS = 60_000;

/** Error codes and message fragments of "the database is not there" (as opposed to a bad statement). */
const UNREACHABLE =
  /ECONNREFUSED|ECONNRESET|ENOTFOUND|ETIMEDOUT|EPIPE|EHOSTUNREACH|connect ENOENT|Connection terminated|terminating connection|the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)|Can't reach database|server has closed the connection|Connection closed|DatabaseNotReachable|ConnectionClosed|\b(57P01|57P02|57P03|08000|08001|08003|08004|08006|P1001|P1002|P1017)\b/i;

/**
 * Text of an error and everything it wraps (`code`, `message`, `cause`, `AggregateError.errors`),
 * de-duplicated, e.g. `"ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432"`. Never empty: an error
 * with nothing to say is described by its name (or `"unknown error"`).
 */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  const add = (text: unknown) => {
    if (typeof text !== "string" && typeof text !== "number") return;
    const t = String(text).trim();
    if (t && !parts.some((p) => p.includes(t))) parts.push(t);
  };
  const seen = new Set<unknown>();
  const walk = (e: unknown, depth: number) => {
    if (depth > 4 || e === null || e === undefined || seen.has(e)) return;
    seen.add(e);
    if (typeof e !== "object") return add(e);
    const o = e as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown; kind?: unknown };
    add(o.code);
    add(o.kind);
    add(o.message);
    if (Array.isArray(o.errors)) for (const inner of o.errors.slice(0, 3)) walk(inner, depth + 1);
    walk(o.cause, depth + 1);
  };
  walk(error, 0);
  if (parts.length) return parts.join(": ");
  return error instanceof Error && error.name ? error.name : "unknown error";
}

/** True when `error` says the database cannot be reached (refused, reset, shutting down, starting up). */
export function isDatabaseUnreachable(error: unknown): boolean {
  return UNREACHABLE.test(describeError(error));
}

/** Rate-limited outage log of one process (see the file comment). */
export class OutageLog {
  private downSince: number | undefined;
  private lastLineAt = 0;
  private failures = 0;

  /**
   * @param log where lines go, with their level (`error` for the outage lines, `info` for the recovery)
   * @param now clock, ms (injected for tests)
   * @param reminderMs at most one "still unreachable" line per this many ms (default {@link OUTAGE_REMINDER_MS})
   */
  constructor(
    private readonly log: (line: string, level: "error" | "info") => void,
    private readonly now: () => number = Date.now,
    private readonly reminderMs = OUTAGE_REMINDER_MS,
  ) {}

  /** True while an outage is open (a failure seen, no success since). */
  get down(): boolean {
    return this.downSince !== undefined;
  }

  /**
   * Reports a failed database operation `where` (e.g. "lease", "heartbeat", "HTTP POST /v1/checkpoint").
   * Returns false — and logs nothing — when `error` is not a "database unreachable" error (the
   * caller logs it as before); true when it was taken as part of an outage: the first one writes
   * `PostgreSQL unreachable (<where>): <code: message>; …`, later ones at most a reminder per `reminderMs`.
   */
  failure(where: string, error: unknown): boolean {
    if (!isDatabaseUnreachable(error)) return false;
    const at = this.now();
    this.failures += 1;
    if (this.downSince === undefined) {
      this.downSince = at;
      this.lastLineAt = at;
      this.log(`PostgreSQL unreachable (${where}): ${describeError(error)}; retrying, further failures are not logged until it is back`, "error");
    } else if (at - this.lastLineAt >= this.reminderMs) {
      this.lastLineAt = at;
      this.log(
        `PostgreSQL still unreachable after ${Math.round((at - this.downSince) / 1000)} s (${this.failures} failed operations; latest, ${where}: ${describeError(error)})`,
        "error",
      );
    }
    return true;
  }

  /** Reports a database operation that succeeded: closes an open outage with one recovery line. No-op otherwise. */
  ok(): void {
    if (this.downSince === undefined) return;
    const at = this.now();
    this.log(`PostgreSQL reachable again after ${at - this.downSince} ms (${this.failures} failed operations during the outage)`, "info");
    this.downSince = undefined;
    this.failures = 0;
  }
}
