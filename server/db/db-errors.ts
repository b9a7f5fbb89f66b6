/**
 * Recognising "the database is not there" (down, restarting, refusing connections) among the errors
 * Prisma and the pg driver raise, so the API can answer 503 naming it instead of 500 "Internal
 * error". Codes: Prisma P1001 can't reach the server, P1002 timed out, P1008 operation
 * timed out, P1017 server closed the connection; PostgreSQL 57P01 admin shutdown, 57P02 crash
 * shutdown, 57P03 cannot connect now (starting up); socket errors ECONNREFUSED, ECONNRESET, EPIPE.
 */
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017"]);
const PG_CODES = new Set(["57P01", "57P02", "57P03", "ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT"]);
const MESSAGES = /Can't reach database server|Connection terminated|the database system is (starting up|shutting down)|Server has closed the connection/i;

/**
 * The cause's code when `error` (or an error in its `cause` chain, 6 deep) says the database is
 * unreachable or restarting — e.g. "P1001", "57P03", "ECONNREFUSED" — else null. Pure.
 */
export function databaseUnavailableCode(error: unknown): string | null {
  let e: unknown = error;
  let byMessage = false;
  for (let depth = 0; e && typeof e === "object" && depth < 6; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (PRISMA_CODES.has(code) || PG_CODES.has(code))) return code;
    const message = (e as { message?: unknown }).message;
    if (typeof message === "string" && MESSAGES.test(message)) byMessage = true;
    e = (e as { cause?: unknown }).cause;
  }
  // A raw query's P2010 wraps the driver's words ("Can't reach database server …") without its code.
  return byMessage ? "unreachable" : null;
}

const lastLogged = new Map<string, number>();
/** Longest a cause stays quiet in the log after its line (ms): one line per cause, not one per request. */
export const OUTAGE_LOG_QUIET_MS = 30_000;

/**
 * Logs one line for a database outage's cause (`code`), at most once per OUTAGE_LOG_QUIET_MS per
 * code, with how many requests it refused since the last line; never a stack trace.
 */
export function logDatabaseUnavailable(code: string, where: string, now = Date.now()): void {
  const last = lastLogged.get(code);
  const counted = (suppressed.get(code) ?? 0) + 1;
  if (last !== undefined && now - last < OUTAGE_LOG_QUIET_MS) {
    suppressed.set(code, counted);
    return;
  }
  lastLogged.set(code, now);
  suppressed.set(code, 0);
  console.error(`[db] database unavailable (${code}) — answering 503 (${where}${counted > 1 ? `; ${counted - 1} more since the last line` : ""})`);
}
const suppressed = new Map<string, number>();

/**
 * What the API answers (503) while the database is unavailable, by its cause's code: "not answering"
 * when it accepted the request and said nothing (code `no_answer`: stopped processes, a hung disk),
 * else "down or restarting". Both name the database, which is how the pages recognise the answer.
 */
export function databaseUnavailableMessage(code: string): string {
  return code === "no_answer"
    ? "the database is not answering (it accepts connections but does not reply: stopped or overloaded): try again in a moment"
    : "the database is unavailable (down or restarting): try again in a moment";
}
