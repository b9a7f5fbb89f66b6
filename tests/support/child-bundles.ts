import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * Child processes of the integration tests started from bundles. The stack files spawn the app
 * (tests/support/serve-functions.ts), the executor (server/executor/main.ts) and a few helper scripts as
 * Node processes of their own, and their crash and outage tests spawn them again and again. Through
 * `node --import tsx` every start transpiles and resolves the app's whole module graph afresh; from a
 * bundle built once per test run (tests/support/build-child-bundles.ts) with V8's compile cache on, a
 * start of the app costs less than half the CPU (docs/BENCHMARKS.md, "The test loop's time", has the
 * figures). This module holds only what a spawning test needs; the build lives apart so that a child
 * importing test helpers does not pull the bundler in.
 */

/** Root of this checkout. */
const REPO_ROOT = path.resolve(import.meta.dirname, "../..");

/** The scripts tests start as child processes, repo-relative: the ones {@link childNodeArgs} can run from a bundle. */
export const CHILD_ENTRIES = [
  "tests/support/serve-functions.ts",
  "server/executor/main.ts",
  "tests/integration/escalation-apply-crash-child.ts",
  "scripts/cli.ts",
] as const;
export type ChildEntry = (typeof CHILD_ENTRIES)[number];

/** Environment variable of a test worker naming the folder of this run's bundles (set from the global setup's `childBundles`). */
export const CHILD_BUNDLES_ENV = "LONGHAUL_TEST_CHILD_BUNDLES";

/** File in a bundle folder mapping each entry of {@link CHILD_ENTRIES} to the absolute path of the script that starts its bundle. */
export const BUNDLE_MANIFEST = "manifest.json";

/**
 * The arguments of `node` (before the child's own) that start `entry`: its bundle when this process runs
 * inside a test run that built them (LONGHAUL_TEST_CHILD_BUNDLES names the folder), with source maps on so
 * a stack trace names the source lines; else `--import tsx <entry>` — scripts and benchmarks that start
 * the stack outside vitest, and test runs with TEST_STACK_TSX=1.
 * @throws Error when the folder has no manifest or the manifest lacks `entry`.
 */
export function childNodeArgs(entry: ChildEntry): string[] {
  const dir = process.env[CHILD_BUNDLES_ENV];
  if (!dir) return ["--import", "tsx", path.join(REPO_ROOT, entry)];
  const starters = JSON.parse(readFileSync(path.join(dir, BUNDLE_MANIFEST), "utf8")) as Record<string, string>;
  const starter = starters[entry];
  if (!starter) throw new Error(`no bundle of ${entry} in ${dir} (it has ${Object.keys(starters).join(", ")})`);
  return ["--enable-source-maps", starter];
}
