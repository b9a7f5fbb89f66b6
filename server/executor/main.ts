/**
 * Entry point of the embedded executor process: `tsx server/executor/main.ts`.
 *
 * Env (validated with zod; a bad value exits 1 naming the variable):
 * - DATABASE_URL          PostgreSQL with the executor tables migrated (required)
 * - EXECUTOR_PORT         port (default 8288, the Inngest dev server's)
 * - INNGEST_SIGNING_KEY   shared with the app; hex, optionally `signkey-<env>-` prefixed (required)
 * - INNGEST_EVENT_KEY     key accepted on POST /e/{key} (required)
 * - EXECUTOR_SDK_URL      comma-separated serve() URLs to sync in band (retried until reachable)
 * - EXECUTOR_BACKOFF_MS   retry backoff table, e.g. "50,100,200" (default Inngest's 15s…2h + jitter)
 * - EXECUTOR_CHECKPOINTING  "0" to disable async checkpointing (default on)
 * - EXECUTOR_HOST         bind address (default 127.0.0.1)
 * SIGINT/SIGTERM: stop leasing, let in-flight requests finish for up to 5 s (then abort and release
 * their items, same attempt), close the HTTP server and the pool, exit 0.
 */
import { z } from "zod";
import { startExecutor } from "./index.ts";

const envSchema = z.object({
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, "a postgresql:// URL"),
  EXECUTOR_PORT: z.coerce.number().int().min(0).max(65535).default(8288),
  EXECUTOR_HOST: z.string().min(1).default("127.0.0.1"),
  INNGEST_SIGNING_KEY: z.string().regex(/^(signkey-[a-z]+-)?([0-9a-f]{2})+$/i, "hex (even length), optionally prefixed signkey-<env>-"),
  INNGEST_EVENT_KEY: z.string().min(1),
  EXECUTOR_SDK_URL: z
    .string()
    .default("")
    .transform((s) => s.split(",").map((x) => x.trim()).filter(Boolean))
    .pipe(z.array(z.string().url())),
  EXECUTOR_BACKOFF_MS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'comma-separated milliseconds, e.g. "50,100,200"')
    .transform((s) => s.split(",").map(Number))
    .optional(),
  EXECUTOR_CHECKPOINTING: z.enum(["0", "1", "true", "false"]).default("1"),
});

const parsed = envSchema.safeParse(process.env);
if (!parsed.success) {
  for (const issue of parsed.error.issues) process.stderr.write(`[executor] invalid env ${issue.path.join(".")}: ${issue.message}\n`);
  process.exit(1);
}
const env = parsed.data;

const handle = await startExecutor({
  databaseUrl: env.DATABASE_URL,
  port: env.EXECUTOR_PORT,
  host: env.EXECUTOR_HOST,
  signingKey: env.INNGEST_SIGNING_KEY,
  eventKey: env.INNGEST_EVENT_KEY,
  appUrls: env.EXECUTOR_SDK_URL,
  backoffMs: env.EXECUTOR_BACKOFF_MS,
  checkpointing: env.EXECUTOR_CHECKPOINTING === "1" || env.EXECUTOR_CHECKPOINTING === "true",
}).catch((error: unknown) => {
  process.stderr.write(`[executor] failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`[executor] ${signal}: stopping\n`);
    handle.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`[executor] stop failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  });
}
