import tseslint from "typescript-eslint";

// Type-checked rules on our own code (STYLE.md "Habits"); no floating promises.
// Boundaries (layer imports, cycles) are checked by dependency-cruiser (.dependency-cruiser.cjs, `npm run boundaries`),
// the rest (Prisma calls in routers, process.env outside server/env.ts) by tests/unit/boundaries.test.ts.
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
);
