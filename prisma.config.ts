import { defineConfig } from "prisma/config";

// Prisma 7 config. The CLI is used only for `prisma generate`; migrations go through
// scripts/migrate.ts (the native schema engine cannot be downloaded here, docs/STACK.md pitfall 1).
export default defineConfig({
  schema: "prisma/schema",
  migrations: { path: "prisma/migrations" },
});
