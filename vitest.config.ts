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
 * Workers of the `integration-stack` project: two files at a time (TEST_STACK_WORKERS overrides it;
 * 1 runs them one by one). An outage test's app or executor still comes back on the port it had,
 * since no file beside it can be handed that port meanwhile (tests/support/ports.ts claims every port
 * it hands out). A file mostly waits on its runs, so two at once keep the 2-core machine busy: the
 * stage took 243 s against 400 s one at a time, load 4–6 (docs/BENCHMARKS.md, "The test loop's
 * time"). More is not safe there: on the machine shared with other work at load 22–27, two at once
 * starved the CPU-bound fuzz-input file into 503s and stretched task waits close to their bounds.
 */
const STACK_WORKERS = Number(process.env.TEST_STACK_WORKERS) || 2;
/**
 * Workers of the `unit` project: vitest's default is one fewer than the cores (one, here), but the
 * CLI tests spend most of their time waiting on the CLI child they start, so three keep both cores
 * busy (the stage: 68 s → 35 s). TEST_UNIT_WORKERS overrides it.
 */
const UNIT_WORKERS = Number(process.env.TEST_UNIT_WORKERS) || 3;

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
// `integration-stack` — files that start an executor — runs STACK_WORKERS files at a time, after `integration-db` has
// finished (sequence.groupOrder): an executor drives many runs at once and its tests wait for them within bounds that a
// starved CPU overruns (20 concurrent runs took over 60 s beside two other files at load 20). Playwright end-to-end tests
// live in tests/e2e.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          environment: "node",
          maxWorkers: UNIT_WORKERS,
          // The CLI the CLI tests start, bundled once per run (tests/support/cli-global-setup.ts).
          globalSetup: ["tests/support/cli-global-setup.ts"],
          setupFiles: ["tests/support/worker-children.ts"],
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
          sequence: { groupOrder: 2 },
          // The child processes its files start, bundled once per run (tests/support/child-bundles.ts).
          globalSetup: [...integration.globalSetup, "tests/support/stack-global-setup.ts"],
          setupFiles: [...integration.setupFiles, "tests/support/worker-children.ts"],
        },
      },
    ],
  },
});
