import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "@playwright/test";
import { chromiumLaunchOptions } from "./scripts/lib/chromium.ts";

// End-to-end tests run the real stack (`scripts/start.ts`: embedded PostgreSQL, web, executor,
// scripted model) on test ports with a fresh data directory, in Debian's Chromium (docs/STACK.md pitfall 5).
process.env.LONGHAUL_E2E_DATA ??= mkdtempSync(join(tmpdir(), "longhaul-e2e-"));
const port = Number(process.env.E2E_PORT ?? 3100);
const executorPort = Number(process.env.E2E_EXECUTOR_PORT ?? 8388);
const modelPort = Number(process.env.E2E_MODEL_PORT ?? 8887);
const pgPort = Number(process.env.E2E_PG_PORT ?? 54429);

export const e2ePorts = { port, executorPort, modelPort, pgPort };

/**
 * Specs that read or change state every other spec shares, so nothing may run beside them: they
 * freeze the database (database-frozen), cancel every running task (task-list-batch), arm a fault
 * that the next model call of any task takes (costs), count the escalations that arrive while a tab
 * is open (notifications), or count whole-database outcomes and task-list rows (run-page-scale,
 * screenshots). With more than one worker they run one at a time after every other spec has ended;
 * the rest make their own users, tasks and profiles and filter on them.
 */
const SHARED_STATE_SPECS = [
  "database-frozen.spec.ts",
  "task-list-batch.spec.ts",
  "costs.spec.ts",
  "notifications.spec.ts",
  "run-page-scale.spec.ts",
  "screenshots.spec.ts",
].map((f) => `**/${f}`);

/**
 * Playwright workers (E2E_WORKERS, default 1). Two share the one web server, executor and database:
 * `own-state` on both, then `shared-state` on one (it depends on `own-state`, so it starts after).
 * Two took the suite from 447 s to 338–367 s on the 2-core machine, but are not the default yet: in
 * one of four full runs at load ~10 two own-state specs failed (a layout check measured the page
 * while it was still settling, since fixed; a `page.goto` aborted, not understood), and a project
 * that depends on another is skipped when the other fails, so such a failure also hides the
 * `shared-state` results (docs/BENCHMARKS.md, "The test loop's time").
 */
const workers = Number(process.env.E2E_WORKERS ?? 1);

/**
 * Whether this run names spec files, lines or a title filter (`npx playwright test tests/e2e/x.spec.ts`).
 * Playwright runs a dependency project in full whatever the filter, so a named run drops the
 * dependency instead of running every other spec first.
 */
const namedRun = process.argv.slice(2).some((a) => /\.spec\.ts(:\d+)*$/.test(a) || /^(-g|--grep)/.test(a));

export default defineConfig({
  testDir: "tests/e2e",
  timeout: 180_000,
  expect: { timeout: 15_000 },
  workers,
  projects: [
    { name: "own-state", testIgnore: SHARED_STATE_SPECS },
    { name: "shared-state", testMatch: SHARED_STATE_SPECS, dependencies: workers > 1 && !namedRun ? ["own-state"] : [], workers: 1 },
  ],
  // A stray test.only must not pass CI with the rest of the suite skipped.
  forbidOnly: !!process.env.CI,
  reporter: [["list"]],
  // Signs up the first user (admin, every role) once the server is up; every spec starts signed in as it.
  globalSetup: "./tests/e2e/global-setup.ts",
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    storageState: join(process.env.LONGHAUL_E2E_DATA, "e2e-admin-state.json"),
    // A failed test keeps its trace (actions, DOM snapshots, network, console) but no screencast:
    // its frames cost the browser 56 s of CPU in a full run (200 → 144 s; the suite 319 → 303 s;
    // docs/BENCHMARKS.md, "The test loop's time"), and a trace's DOM snapshots show the page anyway.
    trace: { mode: "retain-on-failure", screenshots: false },
    // The headless shell: the same Chromium for half the CPU (scripts/lib/chromium.ts); a spec that
    // needs the full browser says so with `test.use`.
    launchOptions: chromiumLaunchOptions("shell"),
  },
  webServer: {
    command: `node --import tsx scripts/start.ts --no-build`,
    url: `http://127.0.0.1:${port}/api/health`,
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGINT", timeout: 20_000 },
    env: {
      PORT: String(port),
      EXECUTOR_PORT: String(executorPort),
      MODEL_PORT: String(modelPort),
      EMBEDDED_PG_PORT: String(pgPort),
      DATA_DIR: process.env.LONGHAUL_E2E_DATA,
      DATABASE_URL: "",
      OPENAI_API_KEY: "",
      OPENAI_BASE_URL: "",
      INNGEST_BASE_URL: "",
      INNGEST_SIGNING_KEY: "",
      INNGEST_EVENT_KEY: "",
      NEXT_TELEMETRY_DISABLED: "1",
      CHECKPOINT_DISABLE: "1",
    },
  },
});
