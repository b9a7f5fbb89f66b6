import { inject } from "vitest";

/**
 * This test file's database URL: the copy of the migrated test database that belongs to the vitest
 * worker running the file (`VITEST_POOL_ID`, 1…maxWorkers; tests/support/global-setup.ts makes one
 * per worker). Files running at the same time never share it, so a file may count or delete whole
 * tables without seeing another file's rows.
 * @throws Error when the worker has no database (the project lacks the integration global setup).
 */
export function testDatabaseUrl(): string {
  const urls = inject("databaseUrls");
  const worker = Number(process.env.VITEST_POOL_ID ?? "1");
  const url = urls?.[worker - 1];
  if (!url)
    throw new Error(`no test database for vitest worker ${worker} (${urls?.length ?? 0} made): is tests/support/global-setup.ts this project's globalSetup?`);
  return url;
}
