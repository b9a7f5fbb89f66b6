import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import type { MigrationList, SchemaEngine as SchemaEngineType } from "@prisma/schema-engine-wasm";

/**
 * Prisma migrations without Prisma's native schema engine (it is downloaded from a host these
 * machines cannot reach; docs/STACK.md pitfall 1). Uses `@prisma/schema-engine-wasm` driven through
 * `@prisma/adapter-pg`: `applyMigrations` is what `prisma migrate deploy` does, with the same
 * `_prisma_migrations` bookkeeping. New migrations are made by diffing the schema saved with the
 * last migration (`schema.snapshot.prisma`) against the current schema, with no shadow database.
 */

const root = resolve(dirname(new URL(import.meta.url).pathname), "../..");
export const schemaDir = join(root, "prisma/schema");
export const migrationsDir = join(root, "prisma/migrations");

type EngineModule = typeof import("@prisma/schema-engine-wasm");

let enginePromise: Promise<EngineModule> | undefined;

/** Loads the wasm engine with its `_bg.js` glue (Node 20 cannot import `.wasm` modules). */
async function loadEngine(): Promise<EngineModule> {
  enginePromise ??= (async () => {
    const require = createRequire(import.meta.url);
    const pkgDir = dirname(require.resolve("@prisma/schema-engine-wasm"));
    const bg = (await import(join(pkgDir, "schema_engine_bg.js"))) as EngineModule & {
      __wbg_set_wasm: (exports: WebAssembly.Exports) => void;
    };
    const bytes = readFileSync(join(pkgDir, "schema_engine_bg.wasm"));
    const { instance } = await WebAssembly.instantiate(bytes, { "./schema_engine_bg.js": bg });
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return bg;
  })();
  return enginePromise;
}

/** The current schema files as the engine wants them. */
export function readSchemaFiles(dir = schemaDir): { path: string; content: string }[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".prisma"))
    .sort()
    .map((f) => ({ path: join(dir, f), content: readFileSync(join(dir, f), "utf8") }));
}

function migrationList(): MigrationList {
  mkdirSync(migrationsDir, { recursive: true });
  const lockPath = join(migrationsDir, "migration_lock.toml");
  const dirs = readdirSync(migrationsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  return {
    baseDir: migrationsDir,
    lockfile: { path: "migration_lock.toml", content: existsSync(lockPath) ? readFileSync(lockPath, "utf8") : null },
    shadowDbInitScript: "",
    migrationDirectories: dirs.map((name) => {
      const file = join(migrationsDir, name, "migration.sql");
      return {
        path: name,
        migrationFile: {
          path: "migration.sql",
          content: existsSync(file) ? { tag: "ok" as const, value: readFileSync(file, "utf8") } : { tag: "error" as const, value: `missing ${file}` },
        },
      };
    }),
  };
}

async function withEngine<T>(url: string, fn: (engine: SchemaEngineType) => Promise<T>): Promise<T> {
  const mod = await loadEngine();
  const files = readSchemaFiles();
  const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaPg({ connectionString: url }));
  const engine = await mod.SchemaEngine.new({ datamodels: files.map((f) => [f.path, f.content] as [string, string]) }, () => {}, adapter);
  try {
    return await fn(engine);
  } finally {
    engine.free();
  }
}

/**
 * Applies every migration in prisma/migrations not yet applied to the database at `url`
 * (`prisma migrate deploy`). Returns the names just applied.
 * @throws Error from the engine when a migration fails or the history diverged.
 */
export async function applyMigrations(url: string): Promise<string[]> {
  const applied = await withEngine(url, async (engine) => {
    const out = await engine.applyMigrations({
      migrationsList: migrationList(),
      filters: { externalTables: [], externalEnums: [] },
    });
    return out.appliedMigrationNames;
  });
  await applyRoutines(url);
  return applied;
}

/**
 * Applies `server/db/sql/*.sql` (functions and triggers, written idempotently with CREATE OR
 * REPLACE) in one simple-protocol query each. They live outside prisma/migrations because the wasm
 * schema engine splits a migration script at every semicolon, which breaks PL/pgSQL bodies.
 */
export async function applyRoutines(url: string): Promise<void> {
  const dir = join(root, "server/db/sql");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith(".sql"))
      .sort()) {
      await client.query(readFileSync(join(dir, file), "utf8"));
    }
  } finally {
    await client.end();
  }
}

/**
 * Writes a new migration `prisma/migrations/<UTC timestamp>_<name>/migration.sql` holding the SQL
 * from the schema saved with the last migration to the current schema; also saves the current schema
 * as the new snapshot. Returns the directory, or null when the schema did not change. The engine
 * needs a live connection (`url`) but the diff reads no database state.
 * Review the generated SQL by hand (renames come out as drop + add).
 */
export async function createMigration(url: string, name: string): Promise<string | null> {
  if (!/^[a-z0-9_]{1,60}$/.test(name)) {
    throw new Error(`migration name must match [a-z0-9_]{1,60}, got "${name}"`);
  }
  const snapshotPath = join(migrationsDir, "schema.snapshot.prisma");
  const current = readSchemaFiles();
  const from = existsSync(snapshotPath)
    ? { tag: "schemaDatamodel" as const, files: [{ path: snapshotPath, content: readFileSync(snapshotPath, "utf8") }] }
    : { tag: "empty" as const };
  const sql = await withEngine(url, async (engine) => {
    let stdout = "";
    const origWrite = process.stdout.write.bind(process.stdout);
    // The engine prints the script through its own stdout hook in some builds; capture both paths.
    process.stdout.write = (chunk: string | Uint8Array) => {
      stdout += String(chunk);
      return true;
    };
    try {
      const result = await engine.diff({
        from,
        to: { tag: "schemaDatamodel", files: current },
        script: true,
        exitCode: null,
        filters: { externalTables: [], externalEnums: [] },
      });
      return result.stdout ?? stdout;
    } finally {
      process.stdout.write = origWrite;
    }
  });
  if (!sql.trim() || /^-- This is an empty migration/m.test(sql.trim())) return null;
  const stamp = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
  const dir = join(migrationsDir, `${stamp}_${name}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "migration.sql"), sql);
  writeFileSync(snapshotPath, current.map((f) => f.content).join("\n"));
  const lockPath = join(migrationsDir, "migration_lock.toml");
  if (!existsSync(lockPath)) {
    writeFileSync(lockPath, '# Please do not edit this file manually\nprovider = "postgresql"\n');
  }
  return dir;
}
