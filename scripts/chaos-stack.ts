/**
 * `npm run chaos -- --stack [--tasks 4] [--mcp-tasks 2] [--mcp-limit 20] [--kills 10] [--seed 1] [--min-limit 40] [--max-limit 80]
 *                   [--min-gap-ms 2000] [--max-gap-ms 6000] [--deadline-s 900] [--backoff-ms 500,1000,2000,4000]`
 *
 * Chaos against what users run: the stack `npm start` runs (scripts/start.ts and its supervisor —
 * the Next.js web app, the embedded executor, the scripted model server and the embedded PostgreSQL,
 * each restarted by the supervisor when it dies), started as a user starts it, on free loopback ports
 * with its own DATA_DIR in a temp dir. While several license-audit demo tasks run, each with two
 * side effects that can really go twice — `http_post` of its summary to a receiver this script
 * starts (it counts every request per `Idempotency-Key`), and `send_email` (outbox) — it `kill -9`s
 * (SIGKILL) at seeded random moments each of:
 *
 * - `web`: the `next start` process group (the web app: tRPC, the Inngest serve endpoint that runs
 *   the steps, the pages);
 * - `executor`: the embedded executor's process group;
 * - `model`: the scripted model server's process group;
 * - `postgres`: the embedded PostgreSQL's postmaster and its backends (the supervisor restarts it on
 *   the same data: crash recovery from the WAL);
 * - `mcp`: the memory MCP server (`@modelcontextprotocol/server-memory`, the real one from npm) the
 *   web app runs for the mcp-audit demo tasks (`--mcp-tasks`, limit `--mcp-limit`): only that
 *   process, kill -9 by pid (it lives in the web app's process group), found among the supervisor's
 *   descendants; the runtime starts it again on the next call. Its kill lands while an mcp-audit task
 *   runs (one is launched first when none does).
 *
 * The harness registers the `memory` server (as an admin would, `mcpServer.upsert`) behind a
 * transparent stdio proxy (scripts/lib/mcp-count-proxy.mjs) that logs every `tools/call` the server
 * really received and answered, with its idempotency key, so "each entity created exactly once" is
 * counted at the server, not taken from Longhaul's own ledger.
 *
 * The order: every target once in a seeded order, then seeded picks until `--kills`; the gap before
 * each kill uniform in [min-gap-ms, max-gap-ms]; after each kill the script waits until the target
 * answers again (web: any HTTP answer; executor: /health; model: /health; postgres: `SELECT 1`) and
 * records the downtime. A kill only lands while a task runs: when every task has ended, another
 * demo task is launched first (counted in `tasks`). `EXECUTOR_BACKOFF_MS` (a documented setting) is
 * shortened to `--backoff-ms` so a retried step does not sit out Inngest's 15 s … 2 h table.
 *
 * The harness plays the human for `unresolved_effect` escalations (an `http_post` sent before a kill
 * whose outcome was never recorded): it looks at the receiver, Approves ("it happened") when the key
 * arrived, Rejects ("it did not happen") otherwise, and counts the escalation in `unresolvedEffects`.
 *
 * Checks, when every task has ended or `--deadline-s` passed, by the exactly-once oracle both chaos modes
 * share (scripts/lib/exactly-once.ts: one line per violation, naming the task, the effect and the count
 * seen vs expected):
 * - completed: tasks whose status is `completed` (every task must be);
 * - csvCorrect: tasks whose latest `licenses.csv` equals `expectedLicenseCsv(workspace, limit)`;
 * - duplicateSideEffects: receiver requests beyond one per task (the same key twice, or a second key
 *   for the same task), outbox rows beyond one per task, ledger rows (not answered deduplicated) beyond one per (task, tool,
 *   fingerprint); memory entities sent (and answered) more than once for the same task, or held
 *   more than once in the memory server's graph file (DATA_DIR/mcp-audit-memory.jsonl);
 * - missingSideEffects: completed tasks without exactly one delivery or one outbox row; completed
 *   mcp-audit tasks whose findings (every TODO/FIXME line of their notes) are not all in the graph.
 *
 * Pass: every available target killed at least once and no violation (every task completed, every
 * CSV exact, no duplicate and no missing side effect). Progress to stderr; the LAST stdout line is one JSON object:
 * `{mode:"stack", tasks, completed, killsByTarget:{web,executor,model,postgres,mcp}, downtimeMs:{<target>:{mean,max}},
 *   duplicateSideEffects, unresolvedEffects, missingSideEffects, csvCorrect, pass, violations: [line…], …}`. Exit 0 on pass.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { createTRPCClient, httpBatchLink, type TRPCClient } from "@trpc/client";
import pg from "pg";
import superjson from "superjson";
import { TERMINAL_TASK_STATUSES } from "../lib/contracts/status.ts";
import type { AppRouter } from "../server/api/root.ts";
import { expectedLicenseCsv } from "../server/tools/demo/license-audit.ts";
import { MCP_AUDIT_MEMORY_SERVER, MCP_AUDIT_NOTES_DIR } from "../lib/contracts/demo.ts";
import { findingEntity, findingsOf } from "../server/llm/scripted/mcp-audit.ts";
import { freePort, progress, round, seededRandom, sleep } from "./lib/bench-stack.ts";
import { judgeExactlyOnce, readJsonLines, type ChaosEvidence, type LedgerRow, type ObservedTask, type ProxyEntry } from "./lib/exactly-once.ts";
import { defineScript, type FlagsOf } from "./lib/script-args.ts";
import { chaosFlagProblems, chaosFlags } from "./lib/chaos-flags.ts";
import { processAlive as alive } from "./lib/supervisor.ts";

const TAG = "chaos:stack";
const root = resolve(import.meta.dirname, "..");
const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_TASK_STATUSES);

/** What chaos kills. `mcp` is skipped (with a reason) when the stack runs no MCP server. */
export const STACK_TARGETS = ["web", "executor", "model", "postgres", "mcp"] as const;
export type StackTarget = (typeof STACK_TARGETS)[number];

interface Delivery {
  key: string;
  taskId: string;
  atMs: number;
}

/** The `http_post` receiver: its server, its URL, and every POST it got so far. */
interface Receiver {
  server: Server;
  url: string;
  deliveries: Delivery[];
}

/** The `http_post` receiver: answers 200 to every POST and records its Idempotency-Key. */
async function startReceiver(): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const t0 = performance.now();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method === "POST") {
        const key = String(req.headers["idempotency-key"] ?? "");
        // Longhaul's key is <task>:<run>:<step> (server/tools/ledger.ts).
        deliveries.push({ key, taskId: key.split(":")[0] ?? "", atMs: Math.round(performance.now() - t0) });
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: true }));
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${port}`, deliveries };
}

/** Processes whose parent is `ppid`, with their command lines (from /proc). */
function childrenOf(ppid: number): { pid: number; cmd: string }[] {
  const out: { pid: number; cmd: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so split after the last ")".
      const ppidOf = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppidOf !== ppid) continue;
      out.push({ pid: Number(entry), cmd: readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ") });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

async function answers(url: string, ok: (status: number) => boolean): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await res.body?.cancel();
    return ok(res.status);
  } catch {
    return false;
  }
}

async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Polls `check` every 100 ms until it holds; returns false after `timeoutMs`. */
async function until(check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await check()) return true;
    await sleep(100);
  }
  return false;
}

interface LaunchedTask {
  taskId: string;
  limit: number;
  kind: "license-audit" | "mcp-audit";
}

/** Every process below `pid` (children, grandchildren, …), with their command lines. */
function descendantsOf(pid: number): { pid: number; cmd: string }[] {
  const out: { pid: number; cmd: string }[] = [];
  const queue = [pid];
  while (queue.length) {
    for (const c of childrenOf(queue.shift()!)) {
      out.push(c);
      queue.push(c.pid);
    }
  }
  return out;
}

/** The entity names an mcp-audit task of `limit` stores: one per TODO/FIXME line of the first `limit` notes files by name (server/llm/scripted/mcp-audit.ts). */
function expectedMcpEntities(limit: number): string[] {
  const dir = join(root, MCP_AUDIT_NOTES_DIR);
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => d.name)
    .sort()
    .slice(0, limit)
    .flatMap((f) => findingsOf(f, readFileSync(join(dir, f), "utf8")).map((x) => findingEntity(x).name));
}

/** The flags of `npm run chaos -- --stack` (scripts/chaos.ts picks this spec when `--stack` is given). */
export const STACK_CHAOS = defineScript({
  program: "npm run chaos -- --stack",
  summary:
    "Chaos against the stack npm start runs: kill -9 web, executor, model, PostgreSQL and the memory MCP server while tasks run; every effect exactly once.",
  flags: {
    stack: { type: "boolean", description: "this mode (without it: the harness mode, npm run chaos -- --help)" },
    ...chaosFlags({ kills: 10, minLimit: 40, maxLimit: 80, minGapMs: 2_000, deadlineS: { min: 30, max: 7_200, default: 900 } }),
    "mcp-tasks": { type: "string", value: "<n>", description: "mcp-audit demo tasks launched first", int: { min: 0, max: 50 }, default: 2 },
    "mcp-limit": { type: "string", value: "<n>", description: "package limit of the mcp-audit tasks", int: { min: 1, max: 24 }, default: 20 },
    "backoff-ms": {
      type: "string",
      value: "<ms,…>",
      description: "the executor's retry backoff table (EXECUTOR_BACKOFF_MS)",
      int: { min: 0, max: 7_200_000 },
      list: true,
      default: [500, 1000, 2000, 4000],
    },
  },
  notes: ["See the docstring of scripts/chaos-stack.ts for the targets and the checks."],
  examples: ["npm run chaos -- --stack", "npm run chaos -- --stack --seed 1 --tasks 1 --mcp-tasks 1 --kills 5 --min-limit 10 --max-limit 15"],
  check: chaosFlagProblems,
});

/**
 * Runs `npm run chaos -- --stack` with its flags (STACK_CHAOS); returns the exit code. Reads as its
 * table of contents: each phase is one function below, in the order it runs.
 */
export async function runStackChaos(flags: FlagsOf<typeof STACK_CHAOS>): Promise<number> {
  const { tasks: taskCount, kills: plannedKills, seed } = flags;
  const [mcpTaskCount, mcpLimit] = [flags["mcp-tasks"], flags["mcp-limit"]];
  const [minLimit, maxLimit, minGap, maxGap] = [flags["min-limit"], flags["max-limit"], flags["min-gap-ms"], flags["max-gap-ms"]];
  const deadlineMs = flags["deadline-s"] * 1_000;
  const backoffMs = flags["backoff-ms"].join(",");
  const rng = seededRandom(seed);
  const t0 = performance.now();
  const since = () => Math.round(performance.now() - t0);
  const clock: Clock = { since, deadlineMs, pastDeadline: () => performance.now() - t0 > deadlineMs };

  const spawned = await spawnStack(backoffMs);
  try {
    const stack = await untilStackUp(spawned, clock);
    const run = await seedAndLaunch(stack, { taskCount, mcpTaskCount, mcpLimit, minLimit, maxLimit }, rng);
    const kills = await runKillSchedule(stack, run, { mcpTaskCount, plannedKills, minGap, maxGap }, rng, clock);
    await untilEveryTaskEnded(stack, run, clock);
    const evidence = await collectEvidence(stack, run);
    const { pass, result } = judge(run, kills, evidence, { seed, backoffMs, durationMs: since() });
    progress(TAG, pass ? "PASS" : "FAIL");
    if (!pass) progress(TAG, `npm start's log (tail):\n${stack.log().slice(-3000)}`);
    console.log(JSON.stringify(result));
    return pass ? 0 : 1;
  } finally {
    await spawned.stop();
  }
}

/** Time since the run began (ms), and its `--deadline-s`. */
interface Clock {
  since: () => number;
  deadlineMs: number;
  pastDeadline: () => boolean;
}

/** npm start's stack as spawned: where it listens, its output so far, a database pool, and how to stop it all. */
interface SpawnedStack {
  start: ChildProcess;
  receiver: Receiver;
  dataDir: string;
  base: string;
  executorPort: number;
  modelPort: number;
  databaseUrl: string;
  /** The last 200,000 characters npm start wrote (stdout and stderr). */
  log: () => string;
  /** A query on the stack's database, retried (every 200 ms, 100 times) while PostgreSQL is down. */
  query: <R extends pg.QueryResultRow>(sql: string, params?: unknown[]) => Promise<R[]>;
  /** Closes the pool, stops npm start (Ctrl-C, SIGKILL after 60 s), closes the receiver, deletes the data dir. */
  stop: () => Promise<void>;
}

/** The stack once it answers: the supervisor's pid and the web app's tRPC API (as the CLI calls it). */
interface LiveStack extends SpawnedStack {
  supervisorPid: number;
  api: TRPCClient<AppRouter>;
  /** A call to the web app, retried (every 500 ms, 120 times) while it (or its database) is down. */
  callApi: <T>(what: string, fn: () => Promise<T>) => Promise<T>;
}

/**
 * Phase 1, start the stack: starts the `http_post` receiver, then `scripts/start.ts` (npm start) as a user
 * starts it, on free loopback ports with its own DATA_DIR in a temp dir, no provider keys, the receiver
 * allowed as an egress target and `EXECUTOR_BACKOFF_MS` set to `backoffMs`. Does not wait for it.
 */
async function spawnStack(backoffMs: string): Promise<SpawnedStack> {
  const receiver = await startReceiver();
  const dataDir = mkdtempSync(join(tmpdir(), "longhaul-chaos-stack-"));
  const [port, executorPort, modelPort, pgPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const base = `http://127.0.0.1:${port}`;
  const databaseUrl = `postgresql://postgres:postgres@127.0.0.1:${pgPort}/longhaul`;
  progress(
    TAG,
    `starting npm start's stack (scripts/start.ts) on web :${port}, executor :${executorPort}, model :${modelPort}, PostgreSQL :${pgPort}; data in ${dataDir}`,
  );
  const start = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      PORT: String(port),
      EXECUTOR_PORT: String(executorPort),
      MODEL_PORT: String(modelPort),
      EMBEDDED_PG_PORT: String(pgPort),
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      OPENAI_API_KEY: "",
      OPENAI_BASE_URL: "",
      INNGEST_BASE_URL: "",
      INNGEST_SIGNING_KEY: "",
      INNGEST_EVENT_KEY: "",
      LONGHAUL_TOKEN: "",
      LONGHAUL_HTTP_ALLOW: receiver.url,
      EXECUTOR_BACKOFF_MS: backoffMs,
      NEXT_TELEMETRY_DISABLED: "1",
    },
  });
  let startLog = "";
  const onData = (d: Buffer) => {
    startLog = (startLog + d.toString()).slice(-200_000);
    if (process.env.CHAOS_LOG) process.stderr.write(d);
  };
  start.stdout?.on("data", onData);
  start.stderr?.on("data", onData);
  const db = new pg.Pool({ connectionString: databaseUrl, max: 2, connectionTimeoutMillis: 3_000 });
  db.on("error", () => undefined); // a killed PostgreSQL drops idle clients: the next query reconnects
  const query = async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return (await db.query<R>(sql, params)).rows;
      } catch (error) {
        if (attempt >= 100) throw error;
        await sleep(200);
      }
    }
  };
  const stop = async () => {
    await db.end().catch(() => undefined);
    await stopStart(start);
    await new Promise<void>((r) => receiver.server.close(() => r()));
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { start, receiver, dataDir, base, executorPort, modelPort, databaseUrl, log: () => startLog, query, stop };
}

/**
 * Phase 1, continued: waits (up to 900 s: a first start builds the app) until the web app's /api/health
 * answers 200, then reads the supervisor's pid and the CLI token from the data dir.
 * @throws when npm start exits or does not come up in time (with the tail of its output).
 */
async function untilStackUp(stack: SpawnedStack, clock: Clock): Promise<LiveStack> {
  const { start, base, dataDir } = stack;
  const up = await until(async () => {
    if (start.exitCode !== null) throw new Error(`npm start exited (${start.exitCode}):\n${stack.log().slice(-4000)}`);
    return answers(`${base}/api/health`, (s) => s === 200);
  }, 900_000);
  if (!up) throw new Error(`the stack did not come up within 900 s:\n${stack.log().slice(-4000)}`);
  const supervisorPid = Number(readFileSync(join(dataDir, "supervisor.pid"), "utf8").trim());
  progress(TAG, `stack up after ${clock.since()} ms (supervisor pid ${supervisorPid})`);

  const token = readFileSync(join(dataDir, "cli-token"), "utf8").trim();
  const api = createTRPCClient<AppRouter>({
    links: [httpBatchLink({ url: `${base}/api/trpc`, transformer: superjson, headers: () => ({ authorization: `Bearer ${token}` }) })],
  });
  const callApi = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (error) {
        if (attempt >= 120) throw new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        await sleep(500);
      }
    }
  };
  return { ...stack, supervisorPid, api, callApi };
}

/** The tasks of a chaos run, how to launch another, and the files the memory server's effects are counted in. */
interface ChaosRun {
  tasks: LaunchedTask[];
  /** Launches a license-audit task (limit drawn from the seeded RNG) that POSTs its summary to the receiver. */
  launchOne: () => Promise<void>;
  /** Launches an mcp-audit task of `--mcp-limit`. */
  launchMcp: () => Promise<void>;
  /** The counting proxy's log (scripts/lib/mcp-count-proxy.mjs). */
  proxyLog: string;
  /** The memory server's graph file. */
  memoryFile: string;
  /** The unresolved_effect escalations seen so far (each counted once, decided by {@link decideUnresolvedEffects}). */
  unresolved: Set<string>;
}

/**
 * Phase 2, seed and launch: registers the memory MCP server behind the counting proxy (the same server and
 * graph file, as an admin would: `mcpServer.detach` from the seed, then `mcpServer.upsert`) when mcp-audit tasks run, then launches `taskCount`
 * license-audit and `mcpTaskCount` mcp-audit demo tasks through the API.
 * @throws when the seed registered no stdio memory server.
 */
async function seedAndLaunch(
  stack: LiveStack,
  opts: { taskCount: number; mcpTaskCount: number; mcpLimit: number; minLimit: number; maxLimit: number },
  rng: () => number,
): Promise<ChaosRun> {
  const { api, callApi, receiver, dataDir } = stack;
  const tasks: LaunchedTask[] = [];
  const launchOne = async () => {
    const limit = opts.minLimit + Math.floor(rng() * (opts.maxLimit - opts.minLimit + 1));
    const { taskId } = await callApi("task.launch", () => api.task.launch.mutate({ demo: { kind: "license-audit", limit, postUrl: `${receiver.url}/hook` } }));
    tasks.push({ taskId, limit, kind: "license-audit" });
    progress(TAG, `launched ${taskId} (limit ${limit})`);
  };
  const launchMcp = async () => {
    const { taskId } = await callApi("task.launch", () => api.task.launch.mutate({ demo: { kind: "mcp-audit", limit: opts.mcpLimit } }));
    tasks.push({ taskId, limit: opts.mcpLimit, kind: "mcp-audit" });
    progress(TAG, `launched mcp-audit ${taskId} (limit ${opts.mcpLimit})`);
  };

  const proxyLog = join(dataDir, "mcp-memory-calls.jsonl");
  const memoryFile = resolve(dataDir, "mcp-audit-memory.jsonl");
  if (opts.mcpTaskCount > 0) {
    const servers = await callApi("mcpServer.list", () => api.mcpServer.list.query({ includeArchived: false }));
    const memory = servers.find((s) => s.name === MCP_AUDIT_MEMORY_SERVER);
    if (!memory || memory.spec.transport.type !== "stdio") throw new Error(`the seed registered no stdio MCP server "${MCP_AUDIT_MEMORY_SERVER}"`);
    const t = memory.spec.transport;
    const spec = {
      ...memory.spec,
      transport: { ...t, command: process.execPath, args: [join(root, "scripts/lib/mcp-count-proxy.mjs"), proxyLog, t.command, ...t.args] },
    };
    // The seed manages it as code; an admin detaches it before changing it from the API.
    await callApi("mcpServer.detach", () => api.mcpServer.detach.mutate({ name: MCP_AUDIT_MEMORY_SERVER }));
    await callApi("mcpServer.upsert", () => api.mcpServer.upsert.mutate({ spec }));
    progress(TAG, `memory MCP server registered behind the counting proxy (log ${proxyLog})`);
  }
  for (let i = 0; i < opts.taskCount; i++) await launchOne();
  for (let i = 0; i < opts.mcpTaskCount; i++) await launchMcp();
  return { tasks, launchOne, launchMcp, proxyLog, memoryFile, unresolved: new Set() };
}

/** Each task's status now, by id. */
async function statuses(stack: SpawnedStack, run: ChaosRun): Promise<Map<string, string>> {
  const rows = await stack.query<{ id: string; status: string }>(`SELECT id, status FROM task WHERE id = ANY($1)`, [run.tasks.map((t) => t.taskId)]);
  return new Map(rows.map((r) => [r.id, r.status]));
}

/** One kill -9 and what followed: the target's pids, when (ms since the start) and how long until it answered again. */
interface KillRecord {
  target: StackTarget;
  atMs: number;
  downMs: number;
  pids: number[];
}

/** What the kill schedule did: every kill, the targets it could kill, and why it skipped the others. */
interface KillSchedule {
  killLog: KillRecord[];
  available: StackTarget[];
  skippedTargets: Partial<Record<StackTarget, string>>;
}

/**
 * Phase 3, the kill schedule: every available target once in a seeded order, then seeded picks until
 * `plannedKills`; before each kill a gap uniform in [minGap, maxGap] ms, and a new license-audit task when
 * every task has ended (a kill only lands while a task runs). Stops early at the deadline.
 * @throws when a target has no live process or does not come back within 180 s.
 */
async function runKillSchedule(
  stack: LiveStack,
  run: ChaosRun,
  opts: { mcpTaskCount: number; plannedKills: number; minGap: number; maxGap: number },
  rng: () => number,
  clock: Clock,
): Promise<KillSchedule> {
  const killLog: KillRecord[] = [];
  const skippedTargets: Partial<Record<StackTarget, string>> = {};
  const available = STACK_TARGETS.filter((t) => {
    if (t === "mcp" && opts.mcpTaskCount === 0) {
      skippedTargets.mcp = "--mcp-tasks 0: no mcp-audit task runs, so no MCP server to kill";
      return false;
    }
    return true;
  });

  const order = [...available];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  while (order.length < Math.max(opts.plannedKills, available.length)) order.push(available[Math.floor(rng() * available.length)]!);

  for (const target of order) {
    if (clock.pastDeadline()) {
      progress(TAG, `deadline reached after ${killLog.length} kills`);
      break;
    }
    await sleep(opts.minGap + rng() * (opts.maxGap - opts.minGap));
    if (await allEnded(stack, run)) await run.launchOne(); // a kill lands while a task runs
    if (target === "mcp") {
      // The memory server runs while an mcp-audit task does: launch one when none is left, wait for its server.
      if (await mcpTasksEnded(stack, run)) await run.launchMcp();
      if (!(await until(() => pidsOf(stack, "mcp").length > 0, 120_000))) throw new Error("the memory MCP server did not start within 120 s");
    }
    killLog.push(await killOnce(stack, run, target, clock));
  }
  return { killLog, available, skippedTargets };
}

/**
 * One kill -9 of `target` (its process group; PostgreSQL's postmaster and backends and the memory server
 * by pid), then waits until its processes are gone and a new one answers (web: any HTTP answer; executor
 * and model: /health; postgres: `SELECT 1`; mcp: a new server, or no mcp-audit task left to start one).
 * @throws when it has no live process, or does not come back within 180 s.
 */
async function killOnce(stack: LiveStack, run: ChaosRun, target: StackTarget, clock: Clock): Promise<KillRecord> {
  const pids = pidsOf(stack, target);
  if (!pids.length) throw new Error(`no live process for ${target} (supervisor ${stack.supervisorPid})`);
  const atMs = clock.since();
  if (target === "postgres" || target === "mcp") for (const pid of pids) process.kill(pid, "SIGKILL");
  else for (const pid of pids) process.kill(-pid, "SIGKILL"); // the whole process group (the supervisor starts each child detached)
  progress(TAG, `kill -9 ${target} (${pids.join(", ")}) at ${atMs} ms`);
  // Gone first (a kill -9 is immediate, but a port can still answer for a moment), then back.
  await until(() => pids.every((p) => !alive(p)), 10_000);
  const back =
    target === "mcp"
      ? await until(async () => pidsOf(stack, target).some((p) => !pids.includes(p)) || (await mcpTasksEnded(stack, run)), 180_000)
      : await until(async () => pidsOf(stack, target).some((p) => !pids.includes(p)) && (await isBack(stack, target)), 180_000);
  const downMs = clock.since() - atMs;
  if (!back) throw new Error(`${target} did not come back within 180 s:\n${stack.log().slice(-4000)}`);
  progress(TAG, `${target} back after ${downMs} ms`);
  return { target, atMs, downMs, pids };
}

/** Where `target` lives now: the pids to kill (found under the supervisor, or PostgreSQL's postmaster.pid). */
function pidsOf(stack: LiveStack, target: StackTarget): number[] {
  if (target === "mcp") {
    // The memory server itself (node …/server-memory/dist/index.js), not the proxy in front of it.
    return descendantsOf(stack.supervisorPid)
      .filter((c) => c.cmd.includes("server-memory/dist/index.js") && !c.cmd.includes("mcp-count-proxy"))
      .map((c) => c.pid);
  }
  if (target === "postgres") {
    const file = join(stack.dataDir, "postgres", "postmaster.pid");
    const pid = existsSync(file) ? Number(readFileSync(file, "utf8").split("\n")[0]) : NaN;
    return Number.isInteger(pid) && alive(pid) ? [pid, ...childrenOf(pid).map((c) => c.pid)] : [];
  }
  // `next start` retitles itself "next-server (vX)", which /proc/<pid>/cmdline then shows.
  const markers = { web: ["next/dist/bin/next", "next-server"], executor: ["server/executor/main.ts"], model: ["server/llm/scripted/main.ts"] }[target];
  return childrenOf(stack.supervisorPid)
    .filter((c) => markers.some((m) => c.cmd.includes(m)))
    .map((c) => c.pid);
}

/** Whether a restarted web app, executor, model server or PostgreSQL answers again. */
async function isBack(stack: LiveStack, target: Exclude<StackTarget, "mcp">): Promise<boolean> {
  if (target === "web") return answers(`${stack.base}/api/health`, () => true);
  if (target === "executor") return answers(`http://127.0.0.1:${stack.executorPort}/health`, (s) => s === 200);
  if (target === "model") return answers(`http://127.0.0.1:${stack.modelPort}/health`, (s) => s === 200);
  return postgresAnswers(stack.databaseUrl);
}

/** Every mcp-audit task ended or waits for a human: nothing will start the memory server again. */
async function mcpTasksEnded(stack: SpawnedStack, run: ChaosRun): Promise<boolean> {
  const s = await statuses(stack, run);
  return run.tasks.filter((t) => t.kind === "mcp-audit").every((t) => TERMINAL.has(s.get(t.taskId) ?? "") || s.get(t.taskId) === "waiting_for_human");
}

/**
 * Phase 4, decide escalations — the human's part: decides each open `unresolved_effect` escalation (an
 * effect sent before a kill whose outcome was never recorded) from what arrived: Approve ("it happened")
 * when the receiver got its key, or the memory server answered the call or its graph holds every entity
 * the call sent (killed between applying and answering); Reject otherwise. A failed decision is logged.
 */
async function decideUnresolvedEffects(stack: LiveStack, run: ChaosRun): Promise<void> {
  const open = await stack.query<{ id: string; evidence: { idempotencyKey?: string } | null }>(
    `SELECT id, evidence FROM escalation WHERE "taskId" = ANY($1) AND reason = 'unresolved_effect' AND status = 'open'`,
    [run.tasks.map((t) => t.taskId)],
  );
  for (const e of open) {
    run.unresolved.add(e.id);
    const key = e.evidence?.idempotencyKey;
    const calls = readJsonLines<ProxyEntry>(run.proxyLog).filter((p) => p.key === key);
    const graph = new Set(readJsonLines<{ type?: string; name?: string }>(run.memoryFile).map((g) => g.name));
    const mcpHappened =
      calls.some((p) => p.kind === "result" && !p.isError) ||
      calls.some((p) => p.kind === "call" && (p.entities?.length ?? 0) > 0 && p.entities!.every((n) => graph.has(n)));
    const happened = key !== undefined && (stack.receiver.deliveries.some((d) => d.key === key) || mcpHappened);
    progress(
      TAG,
      `unresolved_effect ${e.id} (key ${key ?? "?"}): ${happened ? "it arrived (receiver, or the memory server) → approve" : "it never arrived → reject"}`,
    );
    await stack
      .callApi("escalation.decide", () => stack.api.escalation.decide.mutate({ escalationId: e.id, decision: happened ? "approve" : "reject" }))
      .catch((error: unknown) => progress(TAG, `deciding ${e.id} failed: ${error instanceof Error ? error.message : String(error)}`));
  }
}

/** Every task ended: a terminal status, or waiting for a human on something other than an unresolved effect (decided here first). */
async function allEnded(stack: LiveStack, run: ChaosRun): Promise<boolean> {
  await decideUnresolvedEffects(stack, run);
  const s = await statuses(stack, run);
  const waitingOnEffect = new Set(
    (
      await stack.query<{ taskId: string }>(
        `SELECT DISTINCT "taskId" FROM escalation WHERE "taskId" = ANY($1) AND reason = 'unresolved_effect' AND status <> 'applied'`,
        [run.tasks.map((t) => t.taskId)],
      )
    ).map((r) => r.taskId),
  );
  return run.tasks.every((t) => {
    const status = s.get(t.taskId) ?? "";
    return TERMINAL.has(status) || (status === "waiting_for_human" && !waitingOnEffect.has(t.taskId));
  });
}

/** Phase 4, continued: waits (deciding escalations) until every task has ended and stays so for 3 s, or the deadline. */
async function untilEveryTaskEnded(stack: LiveStack, run: ChaosRun, clock: Clock): Promise<void> {
  progress(TAG, "waiting for every task to end");
  for (;;) {
    if (await allEnded(stack, run)) {
      // A failed run may auto-resume (the task's status follows its latest run): settle, look again.
      await sleep(3_000);
      if (await allEnded(stack, run)) return;
    }
    if (clock.pastDeadline()) {
      progress(TAG, `deadline of ${clock.deadlineMs / 1000} s reached`);
      return;
    }
    await sleep(500);
  }
}

/** What the run left behind: the oracle's evidence, plus what the JSON reports beside its verdict. */
interface CollectedEvidence {
  evidence: ChaosEvidence;
  /** Ledger groups of (task, tool, fingerprint) holding more than one row, in words (tool, statuses, keys). */
  ledgerDuplicateRows: { taskId: string; tool: string; rows: { key: string; status: string; deduplicated: string | null; createdAt: string }[] }[];
  runs: number;
  reexecuted: number;
}

/**
 * Phase 5, collect evidence: each task's final status and latest `licenses.csv` (with the expected one),
 * the outbox and ledger rows, the receiver's POSTs, the proxy's log and the memory graph, the runs and
 * re-executed steps. Logs every ledger duplicate group, so a failing run can be diagnosed after its data
 * folder is gone.
 */
async function collectEvidence(stack: LiveStack, run: ChaosRun): Promise<CollectedEvidence> {
  const { query } = stack;
  const taskIds = run.tasks.map((t) => t.taskId);
  const final = await statuses(stack, run);
  const ledgerDuplicateRows = await query<CollectedEvidence["ledgerDuplicateRows"][number]>(
    `SELECT "taskId", tool, json_agg(json_build_object('key', "idempotencyKey", 'status', status, 'deduplicated', result->>'deduplicated', 'createdAt', "createdAt") ORDER BY "createdAt") AS rows
       FROM side_effect WHERE "taskId" = ANY($1) GROUP BY "taskId", tool, fingerprint HAVING count(*) > 1`,
    [taskIds],
  );
  for (const d of ledgerDuplicateRows) progress(TAG, `ledger duplicate: ${d.taskId} ${d.tool}: ${JSON.stringify(d.rows)}`);
  const observed: ObservedTask[] = [];
  for (const t of run.tasks) {
    const status = final.get(t.taskId) ?? "missing";
    if (t.kind === "mcp-audit") {
      observed.push({ kind: "mcp-audit", taskId: t.taskId, status, expectedEntities: expectedMcpEntities(t.limit) });
      continue;
    }
    const [artifact] = await query<{ content: string | null }>(
      `SELECT content FROM artifact WHERE "taskId" = $1 AND name = 'licenses.csv' ORDER BY "createdAt" DESC LIMIT 1`,
      [t.taskId],
    );
    observed.push({
      kind: "license-audit",
      taskId: t.taskId,
      status,
      csv: { actual: artifact?.content ?? null, expected: await expectedLicenseCsv(root, t.limit) },
    });
  }
  const evidence: ChaosEvidence = {
    tasks: observed,
    outbox: await query<{ taskId: string }>(`SELECT "taskId" FROM outbox_message WHERE "taskId" = ANY($1)`, [taskIds]),
    // A row answered from the recorded result of the same effect (result.deduplicated, server/tools/ledger.ts) performed nothing.
    ledger: await query<LedgerRow>(
      `SELECT "taskId", tool, fingerprint, "idempotencyKey", coalesce(result->>'deduplicated', 'false') = 'true' AS deduplicated FROM side_effect WHERE "taskId" = ANY($1)`,
      [taskIds],
    ),
    receiver: stack.receiver.deliveries,
    // The memory server, counted at the server: the calls it answered (the proxy's log) and the graph file's entities.
    mcp: { proxyLog: readJsonLines<ProxyEntry>(run.proxyLog), graph: readJsonLines<{ type?: string; name?: string }>(run.memoryFile) },
  };
  const [{ reexecuted } = { reexecuted: 0 }] = await query<{ reexecuted: number }>(
    `SELECT coalesce(sum(greatest(s.attempts - 1, 0)), 0)::int AS reexecuted FROM step s JOIN run r ON r.id = s."runId" WHERE r."taskId" = ANY($1)`,
    [taskIds],
  );
  const [{ runs } = { runs: 0 }] = await query<{ runs: number }>(`SELECT count(*)::int AS runs FROM run WHERE "taskId" = ANY($1)`, [taskIds]);
  return { evidence, ledgerDuplicateRows, runs, reexecuted };
}

/**
 * Phase 6, judge: hands the evidence to the exactly-once oracle (scripts/lib/exactly-once.ts), logs each
 * task's counts and each violation, and builds the JSON result. Pass: every available target killed at
 * least once and no violation.
 */
function judge(
  run: ChaosRun,
  { killLog, available, skippedTargets }: KillSchedule,
  { evidence, ledgerDuplicateRows, runs, reexecuted }: CollectedEvidence,
  meta: { seed: number; backoffMs: string; durationMs: number },
): { pass: boolean; result: Record<string, unknown> } {
  const { tasks } = run;
  const verdict = judgeExactlyOnce(evidence);
  for (const t of verdict.tasks) {
    const limit = tasks.find((l) => l.taskId === t.taskId)?.limit;
    if (t.kind === "mcp-audit") {
      progress(
        TAG,
        `${t.taskId} mcp-audit limit ${limit}: ${t.status}, ${t.entitiesExpected} finding(s), ${t.entitiesMissing} missing from the graph, ${t.entitiesSentTwice} sent twice`,
      );
    } else {
      progress(
        TAG,
        `${t.taskId} limit ${limit}: ${t.status}, csv ${t.csvExact ? "exact" : "WRONG"}, ${t.posts} POST(s) under ${t.postKeys} key(s), ${t.emails} email(s)`,
      );
    }
  }
  for (const v of verdict.violations) progress(TAG, v.line);

  const killsByTarget = Object.fromEntries(STACK_TARGETS.map((t) => [t, killLog.filter((k) => k.target === t).length])) as Record<StackTarget, number>;
  const downtimeMs = Object.fromEntries(
    STACK_TARGETS.filter((t) => killsByTarget[t] > 0).map((t) => {
      const d = killLog.filter((k) => k.target === t).map((k) => k.downMs);
      return [t, { mean: round(d.reduce((a, b) => a + b, 0) / d.length, 0), max: Math.max(...d), each: d }];
    }),
  );
  const { completed, csvCorrect, duplicateSideEffects, missingSideEffects, duplicates } = verdict.counts;
  const everyTargetKilled = available.every((t) => killsByTarget[t] > 0);
  const licenseTasks = tasks.filter((t) => t.kind === "license-audit").length;
  const pass = everyTargetKilled && verdict.violations.length === 0;
  const proxy = evidence.mcp?.proxyLog ?? [];
  const result = {
    mode: "stack",
    stack:
      "scripts/start.ts (npm start): next start web app, embedded executor, scripted model server, embedded PostgreSQL, supervised; the memory MCP server under the web app",
    tasks: tasks.length,
    completed,
    killsByTarget,
    duplicateSideEffects,
    unresolvedEffects: run.unresolved.size,
    pass,
    csvCorrect,
    missingSideEffects,
    duplicates,
    mcp: {
      tasks: tasks.length - licenseTasks,
      completed: verdict.tasks.filter((t) => t.kind === "mcp-audit" && t.status === "completed").length,
      entitiesInGraph: (evidence.mcp?.graph ?? []).filter((g) => g.type === "entity").length,
      missingEntities: verdict.counts.missingEntities,
      callsReceived: proxy.filter((p) => p.kind === "call").length,
      callsAnswered: new Set(proxy.filter((p) => p.kind === "result" && !p.isError).map((p) => `${p.pid}:${p.id}`)).size,
      serverPids: new Set(proxy.map((p) => p.pid)).size,
    },
    ledgerDuplicateRows,
    downtimeMs,
    kills: killLog.length,
    everyTargetKilled,
    skippedTargets,
    runs,
    reexecutedSteps: reexecuted,
    seed: meta.seed,
    backoffMs: meta.backoffMs,
    durationMs: meta.durationMs,
    statuses: verdict.tasks.map((t) => t.status),
    limits: tasks.map((t) => t.limit),
    violations: verdict.violations.map((v) => v.line),
  };
  return { pass, result };
}

/** Ctrl-C for npm start (it stops its children and PostgreSQL in order), SIGKILL after 60 s. */
async function stopStart(start: ChildProcess): Promise<void> {
  if (start.exitCode !== null || start.signalCode !== null) return;
  const exited = once(start, "exit");
  start.kill("SIGINT");
  const timer = setTimeout(() => start.kill("SIGKILL"), 60_000);
  await exited;
  clearTimeout(timer);
}
