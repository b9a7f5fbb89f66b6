import tseslint from "typescript-eslint";

// Type-checked rules on our own code (STYLE.md "Habits"); no floating promises.
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
      "scripts/stubs/",
      ".dependency-cruiser.cjs",
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
    // One configuration path (issue 19): server and app code read the environment only through
    // server/env.ts's env() (parsed once, validated, passed in). Exceptions, each its own process or
    // boundary: server/env-source.ts (the one read env.ts parses), the executor's own main (its own
    // schema, parsed first), next.config.ts, and — until the profile work moves it onto env() — the
    // provider's default.
    files: ["server/**/*.ts", "app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}", "lib/**/*.ts"],
    ignores: ["server/env-source.ts", "server/executor/main.ts", "server/llm/provider.ts"],
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
