import { resolve } from "node:path";
import { startEmbeddedPostgres } from "../../server/db/embedded-postgres.ts";

/** Default port of the embedded PostgreSQL cluster started under `.data/postgres`. */
export const EMBEDDED_PG_PORT = Number(process.env.EMBEDDED_PG_PORT ?? 54329);

/**
 * Runs `fn` with a database URL: DATABASE_URL when set, otherwise the embedded PostgreSQL under
 * `<DATA_DIR or .data>/postgres`, started for the call and stopped after it.
 */
export async function withDatabaseUrl<T>(fn: (url: string) => Promise<T>): Promise<T> {
  if (process.env.DATABASE_URL) return fn(process.env.DATABASE_URL);
  const dataDir = resolve(process.env.DATA_DIR ?? ".data");
  const pg = await startEmbeddedPostgres({ dir: resolve(dataDir, "postgres"), port: EMBEDDED_PG_PORT });
  try {
    return await fn(pg.url);
  } finally {
    await pg.stop();
  }
}
