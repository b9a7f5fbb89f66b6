import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "../../server/db/embedded-postgres.ts";
import { applyMigrations } from "../../server/db/migrations.ts";
import { freePort } from "./ports.ts";

/**
 * Vitest global setup for integration tests: a real PostgreSQL. TEST_DATABASE_URL when set (it must
 * name a local database whose name contains "test" — the guard refuses anything else), otherwise an
 * ephemeral embedded PostgreSQL on a free port, deleted afterwards. Migrations are applied, and the
 * URL is handed to tests as `inject("databaseUrl")` and process.env.DATABASE_URL.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let url = process.env.TEST_DATABASE_URL;
  let stop = async () => {};
  if (url) {
    const parsed = new URL(url);
    if (!["127.0.0.1", "localhost", "::1"].includes(parsed.hostname) || !parsed.pathname.includes("test")) {
      throw new Error(`TEST_DATABASE_URL must point at a local database whose name contains "test"; got ${parsed.host}${parsed.pathname}`);
    }
  } else {
    const dir = mkdtempSync(join(tmpdir(), "longhaul-test-pg-"));
    const pg = await startEmbeddedPostgres({ dir, port: await freePort(), database: "longhaul_test", ephemeral: true });
    url = pg.url;
    stop = pg.stop;
  }
  await applyMigrations(url);
  process.env.DATABASE_URL = url;
  project.provide("databaseUrl", url);
  return stop;
}

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}
