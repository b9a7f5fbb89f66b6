/**
 * Recognising the API's "the database is unavailable" answer (server/api/trpc.ts: tRPC code
 * SERVICE_UNAVAILABLE, HTTP 503, a message naming the database) among a query's errors, in one place
 * for every page's error display (components/ui/load-error.tsx) and the query client's retry rule.
 */

/** What a page says while the database is down, restarting or not answering (stopped): the page keeps its frame and asks again by itself. */
export const DATABASE_RESTARTING_TEXT = "The database is not answering (down, restarting or stopped) — this page retries by itself";

/** How often a page asks again while the database is unavailable (ms). */
export const DATABASE_RETRY_MS = 3_000;

/**
 * True when `error` (a TRPCClientError, or anything with its `data.code` / `data.httpStatus` and
 * `message`) is the API's 503 "the database is unavailable" answer. Pure.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== "object") return false;
  const data = (error as { data?: { code?: unknown; httpStatus?: unknown } | null }).data;
  const message = (error as { message?: unknown }).message;
  const unavailable = data?.code === "SERVICE_UNAVAILABLE" || data?.httpStatus === 503;
  return unavailable && typeof message === "string" && /database/i.test(message);
}
