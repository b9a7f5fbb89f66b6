/**
 * Shared plumbing of the chaos script and the benchmarks (scripts/chaos.ts, scripts/bench-*.ts):
 * an ephemeral embedded PostgreSQL on a free loopback port in a temp dir with migrations applied,
 * running a script with its flags parsed (scripts/lib/script-args.ts), a seeded RNG, and small
 * statistics helpers.
 *
 * Nothing here starts the app or the executor: the scripts use the integration harness
 * (tests/support/agent-stack.ts) for Longhaul's real functions, or the executor in process.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmbeddedPostgres } from "../../server/db/embedded-postgres.ts";
import { applyMigrations } from "../../server/db/migrations.ts";
import { freePort } from "../../tests/support/ports.ts";
import type { FlagSpecs, ScriptSpec, ScriptValues } from "./cli-args.ts";
import { parseScriptArgs } from "./script-args.ts";

/** A migrated throwaway database; `stop()` stops PostgreSQL and deletes its data dir. */
export interface BenchDatabase {
  url: string;
  stop: () => Promise<void>;
}

/** Writes one progress line to stderr, prefixed with `[tag]`. */
export function progress(tag: string, line: string): void {
  process.stderr.write(`[${tag}] ${line}\n`);
}

export { freePort };

/**
 * Starts PostgreSQL 17 (embedded-postgres) in a new temp dir on a free port, creates database
 * `name`, applies Longhaul's and the executor's migrations. @throws when PostgreSQL cannot start.
 */
export async function startBenchDatabase({ name, tag }: { name: string; tag: string }): Promise<BenchDatabase> {
  const dir = mkdtempSync(join(tmpdir(), `longhaul-${name}-pg-`));
  progress(tag, `starting embedded PostgreSQL in ${dir}`);
  const pg = await startEmbeddedPostgres({ dir, port: await freePort(), database: name.replace(/[^a-z0-9_]/gi, "_"), ephemeral: true });
  try {
    await applyMigrations(pg.url);
  } catch (error) {
    await pg.stop();
    throw error;
  }
  return {
    url: pg.url,
    async stop() {
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** mulberry32: a small seeded PRNG, uniform in [0, 1). Same seed → same sequence. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Nearest-rank percentile `p` (0–100) of an ascending array; NaN when empty. */
export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

/** Rounds to `digits` decimals. */
export function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Parses the script's flags by `spec` (`--help` prints them, exit 0; bad usage: one line per
 * problem naming the flag and its limit, exit 2 — before anything starts), runs `main` with them,
 * then exits with the code it returns (0 = pass), so lingering pools or children cannot keep the
 * process alive. On an error: the stack to stderr, `{"error": message}` as the last stdout line
 * (every script's last stdout line is JSON, docs/BENCHMARKS.md), exit 1.
 */
export function runScript<F extends FlagSpecs>(spec: ScriptSpec<F>, main: (flags: ScriptValues<F>) => Promise<number>): void {
  const flags = parseScriptArgs(spec);
  main(flags).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      console.log(JSON.stringify({ error: error instanceof Error ? error.message : String(error) }));
      process.exit(1);
    },
  );
}
