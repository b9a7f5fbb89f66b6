/**
 * `npm run db:migrate` — apply pending migrations to DATABASE_URL (or the embedded database).
 * `npm run db:migration:create -- <name>` — write a new migration from the schema change.
 * Last stdout line: compact JSON, like every script's, so a caller parses one line.
 */
import { applyMigrations, createMigration } from "../server/db/migrations.ts";
import { withDatabaseUrl } from "./lib/database.ts";

const [command, name] = process.argv.slice(2);

async function main(): Promise<void> {
  if (command === "create") {
    if (!name) throw new Error("usage: npm run db:migration:create -- <name>   (name: [a-z0-9_]{1,60})");
    const dir = await withDatabaseUrl((url) => createMigration(url, name));
    console.error(dir ? `wrote ${dir}/migration.sql — review it before committing` : "schema unchanged; no migration written");
    console.log(JSON.stringify({ created: dir }));
    return;
  }
  if (command !== "deploy") throw new Error(`unknown command "${command ?? ""}" (use deploy or create)`);
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
