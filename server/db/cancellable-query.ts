import { randomUUID } from "node:crypto";
import { Prisma, type PrismaClient } from "./client.ts";

/**
 * Runs one raw read that `signal` can stop on the database, not only in Node: the statement is
 * tagged with a fresh token in a leading SQL comment, and when `signal` aborts while it runs, the
 * backend whose current statement carries that token is sent `pg_cancel_backend` (PostgreSQL docs,
 * "Server Signaling Functions"). PostgreSQL then stops the statement with SQLSTATE 57014
 * (query_canceled) and this call rejects with the signal's reason. Without it a request the browser
 * gave up on (a page closed or left while its 10,000-step list was being built) keeps a backend
 * busy for up to a second, and the next page's request waits behind it.
 *
 * Only a statement still running is matched (`state = 'active'` and its own token), and PostgreSQL
 * ignores a cancel that reaches a backend waiting for its next command, so an abort that comes as
 * the statement ends cannot stop another request's statement on the same pooled connection.
 * `signal` undefined: a plain `$queryRaw`. Already aborted: rejects with its reason, asking nothing.
 *
 * @throws the signal's reason (an `AbortError` DOMException unless the aborter gave one) once aborted;
 * any error of the statement itself otherwise.
 */
export async function cancellableQueryRaw<T>(prisma: PrismaClient, sql: Prisma.Sql, signal?: AbortSignal): Promise<T> {
  if (!signal) return prisma.$queryRaw<T>(sql);
  signal.throwIfAborted();
  // A UUID only (hex and dashes): nothing a caller controls reaches the raw comment.
  const token = `longhaul-cancel:${randomUUID()}`;
  const tagged = Prisma.sql`/* ${Prisma.raw(token)} */ ${sql}`;
  let cancelling: Promise<unknown> | undefined;
  const onAbort = () => {
    cancelling = prisma.$queryRaw`
      SELECT pg_cancel_backend(pid) FROM pg_stat_activity
      WHERE state = 'active' AND pid <> pg_backend_pid() AND starts_with(query, ${`/* ${token} */`})`.catch(() => undefined);
  };
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await prisma.$queryRaw<T>(tagged);
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw error;
  } finally {
    signal.removeEventListener("abort", onAbort);
    await cancelling;
  }
}
