import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { defineConfig } from "vitest/config";

/** `@/…` as in tsconfig.json (route handlers under app/ import with it; the auth tests call them). */
const alias = [{ find: /^@\//, replacement: `${resolve(import.meta.dirname)}/` }];

const integrationDir = resolve(import.meta.dirname, "tests/integration");
/**
 * A file that starts an executor: the whole agent stack (tests/support/agent-stack.ts: app and executor child
 * processes, model server) or an executor with a test app (tests/support/executor-harness.ts, in process or as a child).
 */
const STARTS_EXECUTOR = /\b(useAgentStack|startAgentStack|startTestExecutor|startExecutor|spawnExecutor)\(/;
/**
 * Files that keep a CPU busy for minutes: fuzz-input sends every procedure thousands of hostile bodies
 * (58 s and 40 s for its two biggest tests alone at load 13; beside two other files at load 20 both
 * ran into the 120 s test timeout).
 */
const CPU_BOUND = new Set(["fuzz-input.test.ts"]);
/**
 * Integration files that run one at a time (see below): those that start an executor, decided from each file's text so a
 * new file lands on the right side by itself, and CPU_BOUND.
 */
const stackFiles = readdirSync(integrationDir)
  .filter((f) => f.endsWith(".test.ts") && (CPU_BOUND.has(f) || STARTS_EXECUTOR.test(readFileSync(resolve(integrationDir, f), "utf8"))))
  .map((f) => `tests/integration/${f}`);

/**
 * Workers of the `integration-db` project on the 2-core CI machine: its files mostly wait on PostgreSQL,
 * on servers in the test process and on child processes starting, so one more worker than cores keeps
 * both cores busy; more only queue for the CPU and stretch the waits a test bounds. TEST_DB_WORKERS
 * overrides it (a machine with more cores).
 */
const DB_WORKERS = Number(process.env.TEST_DB_WORKERS) || 3;
/**
 * Workers of the `integration-stack` project: one file at a time by default (see below). TEST_STACK_WORKERS=2
 * runs two at once: an outage test's app or executor then still comes back on the port it had, since
 * no file beside it can be handed that port meanwhile (tests/support/ports.ts claims every port it hands
 * out). Not the default: on the shared 2-core machine at load 22–27, two at once starved the
 * CPU-bound fuzz-input file into 503s (its database probe timed out) and stretched the app child's
 * boot to 89 s and task waits to 82 s, close to the bounds the tests keep.
 */
const STACK_WORKERS = Number(process.env.TEST_STACK_WORKERS) || 1;

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
// `integration-stack` — files that start an executor — runs one file at a time, after `integration-db` has finished (vitest
// runs a project with one worker after the parallel groups): an executor drives many runs at once and its tests wait for
// them within bounds that a starved CPU overruns (20 concurrent runs took over 60 s beside two other files at load 20),
// and its outage tests take the app or the executor down and bring it back on the port it had, which a file running
// beside them could be handed by freePort() meanwhile. Playwright end-to-end tests live in tests/e2e.
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
          maxWorkers: STACK_WORKERS,
          // The child processes its files start, bundled once per run (tests/support/child-bundles.ts).
          globalSetup: [...integration.globalSetup, "tests/support/stack-global-setup.ts"],
          setupFiles: [...integration.setupFiles, "tests/support/worker-children.ts"],
        },
      },
    ],
  },
});
