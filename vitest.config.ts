import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { defineConfig } from "vitest/config";

/** `@/…` as in tsconfig.json (route handlers under app/ import with it; the auth tests call them). */
const alias = [{ find: /^@\//, replacement: `${resolve(import.meta.dirname)}/` }];

const integrationDir = resolve(import.meta.dirname, "tests/integration");
/** A file that boots the whole agent stack (tests/support/agent-stack.ts: app and executor child processes, model server). */
const BOOTS_STACK = /\b(useAgentStack|startAgentStack)\(/;
/** Integration files that boot the whole agent stack: they run one at a time (see below). Decided from each file's text, so a new file lands on the right side by itself. */
const stackFiles = readdirSync(integrationDir)
  .filter((f) => f.endsWith(".test.ts") && BOOTS_STACK.test(readFileSync(resolve(integrationDir, f), "utf8")))
  .map((f) => `tests/integration/${f}`);

/**
 * Workers of the `integration-db` project. Measured on the 2-core CI machine (docs/CONTRIBUTING.md
 * has the figures): its files mostly wait on PostgreSQL and on servers in the test process, so more
 * workers than cores still shortens the run, up to the point where they only queue for the CPU.
 */
const DB_WORKERS = 3;

const integration = {
  environment: "node" as const,
  globalSetup: ["tests/support/global-setup.ts"],
  setupFiles: ["tests/support/worker-database.ts"],
  testTimeout: 120_000,
  hookTimeout: 120_000,
};

// Projects layered by cost, so the quick loop never waits for a database: unit (no database), then the integration tests
// (real PostgreSQL, real executor, real Inngest SDK) in two projects. Every integration worker has its own database
// (tests/support/global-setup.ts), so files running at once never see each other's rows. `integration-db` — files that need
// PostgreSQL and at most servers inside the test process or short-lived children — runs DB_WORKERS files at a time.
// `integration-stack` — files that boot the whole agent stack (an app and an executor as child processes, each several
// seconds of CPU to start, restarted mid-test on the same port by the crash tests) — runs one file at a time, after
// `integration-db` has finished (vitest runs a project with one worker after the parallel groups). Playwright end-to-end
// tests live in tests/e2e.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          environment: "node",
        },
      },
      {
        resolve: { alias },
        test: {
          ...integration,
          name: "integration-db",
          include: ["tests/integration/**/*.test.ts"],
          exclude: stackFiles,
          maxWorkers: DB_WORKERS,
          sequence: { groupOrder: 1 },
        },
      },
      {
        resolve: { alias },
        test: {
          ...integration,
          name: "integration-stack",
          include: stackFiles,
          fileParallelism: false,
        },
      },
    ],
  },
});
