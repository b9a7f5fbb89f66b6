import type { TestProject } from "vitest/node";
import { buildRunBundles } from "./build-child-bundles.ts";
import type { ChildEntry } from "./child-bundles.ts";

/**
 * Vitest global setup of the integration-stack project (after tests/support/global-setup.ts): bundles
 * the child processes its files start (tests/support/build-child-bundles.ts) once for the run and hands the
 * folder to the tests as `inject("childBundles")`; the teardown removes it. TEST_STACK_TSX=1 skips the
 * build (`childBundles` null), so the children start through tsx as outside a test run.
 */
export default function setup(project: TestProject): Promise<(() => void) | undefined> {
  return provideChildBundles(project, { label: "integration-stack" });
}

/**
 * Builds this run's bundles of `entries` and provides their folder as `childBundles` (null, and no
 * build, with TEST_STACK_TSX=1). The unit project's setup (tests/support/cli-global-setup.ts) bundles
 * only the CLI.
 * @returns the teardown that removes the folder.
 */
export async function provideChildBundles(
  project: TestProject,
  { label, entries, tag }: { label: string; entries?: readonly ChildEntry[]; tag?: string },
): Promise<(() => void) | undefined> {
  if (process.env.TEST_STACK_TSX === "1") {
    project.provide("childBundles", null);
    return undefined;
  }
  const started = performance.now();
  const bundles = await buildRunBundles({ entries, tag });
  process.stderr.write(`[${label}] child processes bundled in ${Math.round(performance.now() - started)} ms: ${bundles.dir}\n`);
  project.provide("childBundles", bundles.dir);
  return bundles.remove;
}

declare module "vitest" {
  export interface ProvidedContext {
    /** Folder of this run's bundles of the child processes (tests/support/child-bundles.ts), null when they start through tsx. */
    childBundles: string | null;
  }
}
