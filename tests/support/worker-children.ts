import { inject } from "vitest";
import { CHILD_BUNDLES_ENV } from "./child-bundles.ts";

// Setup file of the integration-stack and unit projects: tells childNodeArgs (tests/support/child-bundles.ts) where
// this run's bundles of the child processes are, so the app, the executor and the helper scripts a test
// spawns start from them instead of through tsx.
const dir = inject("childBundles");
if (dir) process.env[CHILD_BUNDLES_ENV] = dir;
