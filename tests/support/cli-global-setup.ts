import type { TestProject } from "vitest/node";
import { provideChildBundles } from "./stack-global-setup.ts";

/**
 * Vitest global setup of the unit project: bundles the CLI once for the run, so the CLI tests start it
 * from the bundle (tests/support/child-bundles.ts childNodeArgs) rather than through tsx — a start costs
 * about 0.4 s of CPU instead of 1.8 s, and the CLI tests start it dozens of times. TEST_STACK_TSX=1 goes
 * back to tsx.
 */
export default function setup(project: TestProject): Promise<(() => void) | undefined> {
  return provideChildBundles(project, { label: "unit", entries: ["scripts/cli.ts"], tag: "cli" });
}
