import type { PrismaClient } from "./client.ts";
import { prisma as sharedPrisma } from "./prisma.ts";

/** How long the health check waits for `SELECT 1` (ms): a live local database answers in about a millisecond. */
export const PING_TIMEOUT_MS = 2_000;

/**
 * Whether the database answers (`SELECT 1`) within `timeoutMs`: `{up: true}`, or `{up: false, error}`
 * with the driver's message (a refused connection, a database restarting) or the time waited.
 */
export async function pingDatabase({
  prisma,
  timeoutMs = PING_TIMEOUT_MS,
}: {
  prisma: PrismaClient;
  timeoutMs?: number;
}): Promise<{ up: true } | { up: false; error: string }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  // A database that accepts connections but never answers (stopped with SIGSTOP, a hung disk, a
  // network partition) would hold the query, and the health check with it, indefinitely.
  const timeout = new Promise<{ up: false; error: string }>((resolve) => {
    timer = setTimeout(() => resolve({ up: false, error: `the database did not answer SELECT 1 within ${timeoutMs} ms` }), timeoutMs);
  });
  const ping = prisma.$queryRaw`SELECT 1`.then(
    () => ({ up: true }) as const,
    (error: unknown) => ({ up: false, error: String(error) }) as const,
  );
  try {
    return await Promise.race([ping, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** pingDatabase on the web process's shared client (what /api/health asks): routes never hold the Prisma client themselves. */
export function pingSharedDatabase(): Promise<{ up: true } | { up: false; error: string }> {
  return pingDatabase({ prisma: sharedPrisma() });
}
