import inngest from "@inngest/eslint-plugin";
import nextPlugin from "@next/eslint-plugin-next";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

// Type-checked rules on our own code; no floating promises (an unawaited promise loses its error).
// Boundaries (layer imports, cycles) are checked by dependency-cruiser (.dependency-cruiser.cjs, `npm run boundaries`),
// configuration read only through server/env.ts by the no-restricted-properties block below, the rest
// (Prisma calls in routers) by tests/unit/boundaries.test.ts.
export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      ".next/",
      ".data/",
      "server/db/generated/",
      "test-results/",
      "playwright-report/",
      "next-env.d.ts",
      "*.config.js",
      "*.config.mjs",
      "scripts/lib/*.cjs",
      "scripts/lib/*.mjs",
      "scripts/stubs/",
      ".dependency-cruiser.cjs",
      // bench:peer's own package (its DBOS dependency is installed only when the benchmark runs): tsconfig excludes it too.
      "bench/peer/",
    ],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { attributes: false } }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/only-throw-error": "off",
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true, allowBoolean: true, allowNullish: true }],
      "@typescript-eslint/require-await": "off",
      // JSON from the wire is validated with zod at boundaries; the unsafe-any family is noise there.
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
  {
    // The rules of hooks (as create-t3-app), on the UI. The React Compiler's checks of plugin v7
    // (set-state-in-effect, purity) are not on yet: they find 8 places to rewrite.
    files: ["app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: { "react-hooks/rules-of-hooks": "error", "react-hooks/exhaustive-deps": "error" },
  },
  {
    // Next.js's own rules (core web vitals), as create-next-app / create-t3-app.
    files: ["app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}"],
    plugins: { "@next/next": nextPlugin },
    rules: { ...nextPlugin.configs.recommended.rules, ...nextPlugin.configs["core-web-vitals"].rules },
  },
  {
    // Inngest's lint rules for function code: no step inside a step, no outer variable mutated in a
    // step (it is not re-run on replay), inngest.send awaited.
    files: ["server/inngest/**/*.ts"],
    plugins: { "@inngest": inngest },
    rules: { ...inngest.configs.recommended.rules, "@inngest/await-inngest-send": "error" },
  },
  {
    // One configuration path: server and app code read the environment only through
    // server/env.ts's env() (parsed once, validated, passed in). Exceptions, each its own process or
    // boundary: server/env-source.ts (the one read env.ts parses), the executor's own main (its own
    // schema, parsed first) and next.config.ts. Variables whose names are data (a profile's apiKeyEnv,
    // an MCP server's fromEnv) are read through namedVariables() in server/env.ts.
    files: ["server/**/*.ts", "app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}", "lib/**/*.ts"],
    ignores: ["server/env-source.ts", "server/executor/main.ts"],
    rules: {
      "no-restricted-properties": [
        "error",
        {
          object: "process",
          property: "env",
          message: "Read configuration through env() from server/env.ts (parsed once, validated); pass values into what needs them.",
        },
      ],
    },
  },
);
