/**
 * `npm run db:migrate` — apply pending migrations to DATABASE_URL (or the embedded database).
 * `npm run db:migration:create -- <name>` — write a new migration from the schema change.
 * Last stdout line: compact JSON, like every script's, so a caller parses one line.
 */
import { applyMigrations, createMigration } from "../server/db/migrations.ts";
import { withDatabaseUrl } from "./lib/database.ts";
import { parseCommandArgs } from "./lib/script-args.ts";

const PROGRAM = "tsx scripts/migrate.ts";
const {
  command,
  positionals: [name],
} = parseCommandArgs(PROGRAM, "Database migrations of DATABASE_URL (or the embedded database).", [
  { name: "deploy", summary: "Apply pending migrations (npm run db:migrate).", examples: ["npm run db:migrate"] },
  {
    name: "create",
    summary: "Write a new migration from the schema change (npm run db:migration:create -- <name>).",
    positionals: [{ name: "name", description: "the migration's name, [a-z0-9_]{1,60}" }],
    examples: ["npm run db:migration:create -- add_task_notes"],
  },
]);

async function main(): Promise<void> {
  if (command === "create") {
    if (!name) throw new Error("usage: npm run db:migration:create -- <name>   (name: [a-z0-9_]{1,60})");
    const dir = await withDatabaseUrl((url) => createMigration(url, name));
    console.error(dir ? `wrote ${dir}/migration.sql — review it before committing` : "schema unchanged; no migration written");
    console.log(JSON.stringify({ created: dir }));
    return;
  }
  const applied = await withDatabaseUrl((url) => applyMigrations(url));
  console.error(applied.length ? `applied: ${applied.join(", ")}` : "database is up to date");
  console.log(JSON.stringify({ applied }));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
