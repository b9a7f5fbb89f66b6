import { resolve } from "node:path";
import { defineConfig } from "vitest/config";

/** `@/…` as in tsconfig.json (route handlers under app/ import with it; the auth tests call them). */
const alias = [{ find: /^@\//, replacement: `${resolve(import.meta.dirname)}/` }];

// Two projects layered by cost, so the quick loop never waits for a database: unit (no database) and integration (real PostgreSQL,
// real executor process, real Inngest SDK). Playwright end-to-end tests live in tests/e2e.
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
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          environment: "node",
          globalSetup: ["tests/support/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
