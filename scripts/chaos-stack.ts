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
 * Checks, when every task has ended or `--deadline-s` passed:
 * - completed: tasks whose status is `completed` (every task must be);
 * - csvCorrect: tasks whose latest `licenses.csv` equals `expectedLicenseCsv(workspace, limit)`;
 * - duplicateSideEffects: receiver requests beyond one per task (the same key twice, or a second key
 *   for the same task), outbox rows beyond one per task, ledger rows (not answered deduplicated) beyond one per (task, tool,
 *   fingerprint); memory entities sent (and answered) more than once for the same task, or held
 *   more than once in the memory server's graph file (DATA_DIR/mcp-audit-memory.jsonl);
 * - missingSideEffects: completed tasks without exactly one delivery or one outbox row; completed
 *   mcp-audit tasks whose findings (every TODO/FIXME line of their notes) are not all in the graph.
 *
 * Pass: every available target killed at least once, every task completed, every CSV exact, no
 * duplicate and no missing side effect. Progress to stderr; the LAST stdout line is one JSON object:
 * `{mode:"stack", tasks, completed, killsByTarget:{web,executor,model,postgres,mcp}, downtimeMs:{<target>:{mean,max}},
 *   duplicateSideEffects, unresolvedEffects, missingSideEffects, csvCorrect, pass, …}`. Exit 0 on pass.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import pg from "pg";
import superjson from "superjson";
import { TERMINAL_TASK_STATUSES } from "../lib/contracts/status.ts";
import type { AppRouter } from "../server/api/root.ts";
import { expectedLicenseCsv } from "../server/tools/demo/license-audit.ts";
import { MCP_AUDIT_MEMORY_SERVER, MCP_AUDIT_NOTES_DIR } from "../lib/contracts/demo.ts";
import { findingEntity, findingsOf } from "../server/llm/scripted/mcp-audit.ts";
import { freePort, progress, round, seededRandom, sleep } from "./lib/bench-stack.ts";
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

/** The `http_post` receiver: answers 200 to every POST and records its Idempotency-Key. */
async function startReceiver(): Promise<{ server: Server; url: string; deliveries: Delivery[] }> {
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

/** One line of scripts/lib/mcp-count-proxy.mjs's log. */
interface ProxyEntry {
  kind: "call" | "result";
  pid: number;
  id: number | string;
  tool?: string;
  key: string | null;
  entities?: string[];
  isError?: boolean;
}

function readJsonLines<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as T];
      } catch {
        return []; // a line cut by a kill -9
      }
    });
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

/** Runs `npm run chaos -- --stack` with its flags (STACK_CHAOS); returns the exit code. */
export async function runStackChaos(flags: FlagsOf<typeof STACK_CHAOS>): Promise<number> {
  const { tasks: taskCount, kills: plannedKills, seed } = flags;
  const [mcpTaskCount, mcpLimit] = [flags["mcp-tasks"], flags["mcp-limit"]];
  const [minLimit, maxLimit, minGap, maxGap] = [flags["min-limit"], flags["max-limit"], flags["min-gap-ms"], flags["max-gap-ms"]];
  const deadlineMs = flags["deadline-s"] * 1_000;
  const backoffMs = flags["backoff-ms"].join(",");
  const rng = seededRandom(seed);
  const t0 = performance.now();
  const since = () => Math.round(performance.now() - t0);

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
  const killLog: { target: StackTarget; atMs: number; downMs: number; pids: number[] }[] = [];
  const skippedTargets: Partial<Record<StackTarget, string>> = {};
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
  try {
    const up = await until(async () => {
      if (start.exitCode !== null) throw new Error(`npm start exited (${start.exitCode}):\n${startLog.slice(-4000)}`);
      return answers(`${base}/api/health`, (s) => s === 200);
    }, 900_000);
    if (!up) throw new Error(`the stack did not come up within 900 s:\n${startLog.slice(-4000)}`);
    const supervisorPid = Number(readFileSync(join(dataDir, "supervisor.pid"), "utf8").trim());
    progress(TAG, `stack up after ${since()} ms (supervisor pid ${supervisorPid})`);

    const token = readFileSync(join(dataDir, "cli-token"), "utf8").trim();
    const api = createTRPCClient<AppRouter>({
      links: [httpBatchLink({ url: `${base}/api/trpc`, transformer: superjson, headers: () => ({ authorization: `Bearer ${token}` }) })],
    });
    /** A call to the web app, retried while it (or its database) is down. */
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

    const tasks: LaunchedTask[] = [];
    const launchOne = async () => {
      const limit = minLimit + Math.floor(rng() * (maxLimit - minLimit + 1));
      const { taskId } = await callApi("task.launch", () =>
        api.task.launch.mutate({ demo: { kind: "license-audit", limit, postUrl: `${receiver.url}/hook` } }),
      );
      tasks.push({ taskId, limit, kind: "license-audit" });
      progress(TAG, `launched ${taskId} (limit ${limit})`);
    };
    const launchMcp = async () => {
      const { taskId } = await callApi("task.launch", () => api.task.launch.mutate({ demo: { kind: "mcp-audit", limit: mcpLimit } }));
      tasks.push({ taskId, limit: mcpLimit, kind: "mcp-audit" });
      progress(TAG, `launched mcp-audit ${taskId} (limit ${mcpLimit})`);
    };

    // The memory server behind the counting proxy: the same server and graph file, registered as an admin would.
    const proxyLog = join(dataDir, "mcp-memory-calls.jsonl");
    const memoryFile = resolve(dataDir, "mcp-audit-memory.jsonl");
    if (mcpTaskCount > 0) {
      const servers = await callApi("mcpServer.list", () => api.mcpServer.list.query({ includeArchived: false }));
      const memory = servers.find((s) => s.name === MCP_AUDIT_MEMORY_SERVER);
      if (!memory || memory.spec.transport.type !== "stdio") throw new Error(`the seed registered no stdio MCP server "${MCP_AUDIT_MEMORY_SERVER}"`);
      const t = memory.spec.transport;
      const spec = {
        ...memory.spec,
        transport: { ...t, command: process.execPath, args: [join(root, "scripts/lib/mcp-count-proxy.mjs"), proxyLog, t.command, ...t.args] },
      };
      await callApi("mcpServer.upsert", () => api.mcpServer.upsert.mutate({ spec }));
      progress(TAG, `memory MCP server registered behind the counting proxy (log ${proxyLog})`);
    }
    for (let i = 0; i < taskCount; i++) await launchOne();
    for (let i = 0; i < mcpTaskCount; i++) await launchMcp();

    const statuses = async () =>
      new Map(
        (await query<{ id: string; status: string }>(`SELECT id, status FROM task WHERE id = ANY($1)`, [tasks.map((t) => t.taskId)])).map((r) => [
          r.id,
          r.status,
        ]),
      );
    const openUnresolved = new Set<string>();
    let unresolvedEffects = 0;
    /** The human's part: decides open unresolved_effect escalations from the receiver's log. */
    const decideUnresolved = async () => {
      const open = await query<{ id: string; evidence: { idempotencyKey?: string } | null }>(
        `SELECT id, evidence FROM escalation WHERE "taskId" = ANY($1) AND reason = 'unresolved_effect' AND status = 'open'`,
        [tasks.map((t) => t.taskId)],
      );
      for (const e of open) {
        if (!openUnresolved.has(e.id)) {
          openUnresolved.add(e.id);
          unresolvedEffects++;
        }
        const key = e.evidence?.idempotencyKey;
        // The memory server: it answered the call, or (killed between applying and answering) its graph holds every entity the call sent.
        const calls = readJsonLines<ProxyEntry>(proxyLog).filter((p) => p.key === key);
        const graph = new Set(readJsonLines<{ type?: string; name?: string }>(memoryFile).map((g) => g.name));
        const mcpHappened =
          calls.some((p) => p.kind === "result" && !p.isError) ||
          calls.some((p) => p.kind === "call" && (p.entities?.length ?? 0) > 0 && p.entities!.every((n) => graph.has(n)));
        const happened = key !== undefined && (receiver.deliveries.some((d) => d.key === key) || mcpHappened);
        progress(
          TAG,
          `unresolved_effect ${e.id} (key ${key ?? "?"}): ${happened ? "it arrived (receiver, or the memory server) → approve" : "it never arrived → reject"}`,
        );
        await callApi("escalation.decide", () => api.escalation.decide.mutate({ escalationId: e.id, decision: happened ? "approve" : "reject" })).catch(
          (error: unknown) => progress(TAG, `deciding ${e.id} failed: ${error instanceof Error ? error.message : String(error)}`),
        );
      }
    };
    /** Every task ended: a terminal status, or waiting for a human on something other than an unresolved effect (the harness decides those). */
    const allEnded = async () => {
      await decideUnresolved();
      const s = await statuses();
      const waitingOnEffect = new Set(
        (
          await query<{ taskId: string }>(
            `SELECT DISTINCT "taskId" FROM escalation WHERE "taskId" = ANY($1) AND reason = 'unresolved_effect' AND status <> 'applied'`,
            [tasks.map((t) => t.taskId)],
          )
        ).map((r) => r.taskId),
      );
      return tasks.every((t) => {
        const status = s.get(t.taskId) ?? "";
        return TERMINAL.has(status) || (status === "waiting_for_human" && !waitingOnEffect.has(t.taskId));
      });
    };

    // Where each target lives now, and how to tell it is back.
    const pidsOf = (target: StackTarget): number[] => {
      if (target === "mcp") {
        // The memory server itself (node …/server-memory/dist/index.js), not the proxy in front of it.
        return descendantsOf(supervisorPid)
          .filter((c) => c.cmd.includes("server-memory/dist/index.js") && !c.cmd.includes("mcp-count-proxy"))
          .map((c) => c.pid);
      }
      if (target === "postgres") {
        const file = join(dataDir, "postgres", "postmaster.pid");
        const pid = existsSync(file) ? Number(readFileSync(file, "utf8").split("\n")[0]) : NaN;
        return Number.isInteger(pid) && alive(pid) ? [pid, ...childrenOf(pid).map((c) => c.pid)] : [];
      }
      // `next start` retitles itself "next-server (vX)", which /proc/<pid>/cmdline then shows.
      const markers = { web: ["next/dist/bin/next", "next-server"], executor: ["server/executor/main.ts"], model: ["server/llm/scripted/main.ts"], mcp: [] }[
        target
      ];
      return childrenOf(supervisorPid)
        .filter((c) => markers.some((m) => c.cmd.includes(m)))
        .map((c) => c.pid);
    };
    const isBack: Record<StackTarget, () => Promise<boolean>> = {
      web: () => answers(`${base}/api/health`, () => true),
      executor: () => answers(`http://127.0.0.1:${executorPort}/health`, (s) => s === 200),
      model: () => answers(`http://127.0.0.1:${modelPort}/health`, (s) => s === 200),
      postgres: () => postgresAnswers(databaseUrl),
      // Started again on demand, by the next call; when no mcp-audit task is left to call it, nothing will.
      mcp: async () => pidsOf("mcp").length > 0 || (await mcpTasksEnded()),
    };
    const mcpTasksEnded = async () => {
      const s = await statuses();
      return tasks.filter((t) => t.kind === "mcp-audit").every((t) => TERMINAL.has(s.get(t.taskId) ?? "") || s.get(t.taskId) === "waiting_for_human");
    };
    const available = STACK_TARGETS.filter((t) => {
      if (t === "mcp" && mcpTaskCount === 0) {
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
    while (order.length < Math.max(plannedKills, available.length)) order.push(available[Math.floor(rng() * available.length)]!);

    for (const target of order) {
      if (performance.now() - t0 > deadlineMs) {
        progress(TAG, `deadline reached after ${killLog.length} kills`);
        break;
      }
      await sleep(minGap + rng() * (maxGap - minGap));
      if (await allEnded()) await launchOne(); // a kill lands while a task runs
      if (target === "mcp") {
        // The memory server runs while an mcp-audit task does: launch one when none is left, wait for its server.
        if (await mcpTasksEnded()) await launchMcp();
        if (!(await until(() => pidsOf("mcp").length > 0, 120_000))) throw new Error("the memory MCP server did not start within 120 s");
      }
      const pids = pidsOf(target);
      if (!pids.length) throw new Error(`no live process for ${target} (supervisor ${supervisorPid})`);
      const atMs = since();
      if (target === "postgres" || target === "mcp") for (const pid of pids) process.kill(pid, "SIGKILL");
      else for (const pid of pids) process.kill(-pid, "SIGKILL"); // the whole process group (the supervisor starts each child detached)
      progress(TAG, `kill -9 ${target} (${pids.join(", ")}) at ${atMs} ms`);
      // Gone first (a kill -9 is immediate, but a port can still answer for a moment), then back.
      await until(() => pids.every((p) => !alive(p)), 10_000);
      const back =
        target === "mcp"
          ? await until(async () => pidsOf(target).some((p) => !pids.includes(p)) || (await mcpTasksEnded()), 180_000)
          : await until(async () => pidsOf(target).some((p) => !pids.includes(p)) && (await isBack[target]()), 180_000);
      const downMs = since() - atMs;
      if (!back) throw new Error(`${target} did not come back within 180 s:\n${startLog.slice(-4000)}`);
      progress(TAG, `${target} back after ${downMs} ms`);
      killLog.push({ target, atMs, downMs, pids });
    }

    progress(TAG, "waiting for every task to end");
    for (;;) {
      if (await allEnded()) {
        // A failed run may auto-resume (the task's status follows its latest run): settle, look again.
        await sleep(3_000);
        if (await allEnded()) break;
      }
      if (performance.now() - t0 > deadlineMs) {
        progress(TAG, `deadline of ${deadlineMs / 1000} s reached`);
        break;
      }
      await sleep(500);
    }

    const taskIds = tasks.map((t) => t.taskId);
    const final = await statuses();
    const outbox = new Map(
      (
        await query<{ taskId: string; n: number }>(`SELECT "taskId", count(*)::int AS n FROM outbox_message WHERE "taskId" = ANY($1) GROUP BY 1`, [taskIds])
      ).map((r) => [r.taskId, r.n]),
    );
    const ledgerDuplicates = (
      await query<{ extra: number }>(
        // A row answered from the recorded result of the same effect (result.deduplicated, server/tools/ledger.ts) performed nothing: not a duplicate.
        `SELECT coalesce(sum(n - 1), 0)::int AS extra FROM (SELECT count(*) AS n FROM side_effect WHERE "taskId" = ANY($1)
           AND coalesce(result->>'deduplicated', 'false') <> 'true' GROUP BY "taskId", tool, fingerprint) g`,
        [taskIds],
      )
    )[0]!.extra;
    // What a ledger duplicate is, in words (tool, statuses, keys), so a failing run can be diagnosed after its data folder is gone.
    const ledgerDuplicateRows = await query<{
      taskId: string;
      tool: string;
      rows: { key: string; status: string; deduplicated: string | null; createdAt: string }[];
    }>(
      `SELECT "taskId", tool, json_agg(json_build_object('key', "idempotencyKey", 'status', status, 'deduplicated', result->>'deduplicated', 'createdAt', "createdAt") ORDER BY "createdAt") AS rows
         FROM side_effect WHERE "taskId" = ANY($1) GROUP BY "taskId", tool, fingerprint HAVING count(*) > 1`,
      [taskIds],
    );
    for (const d of ledgerDuplicateRows) progress(TAG, `ledger duplicate: ${d.taskId} ${d.tool}: ${JSON.stringify(d.rows)}`);
    let completed = 0;
    let csvCorrect = 0;
    let missingSideEffects = 0;
    let duplicateDeliveries = 0;
    let sameKeyRedeliveries = 0;
    let duplicateOutbox = 0;
    const perTask: { taskId: string; limit: number; status: string; csv: boolean; posts: number; keys: number; emails: number }[] = [];
    // The memory server, counted at the server: per (task, entity) the calls it answered; the graph file's entities.
    const proxy = readJsonLines<ProxyEntry>(proxyLog);
    const answered = new Set(proxy.filter((p) => p.kind === "result" && !p.isError).map((p) => `${p.pid}:${p.id}`));
    const answeredPerEntity = new Map<string, number>();
    for (const c of proxy.filter((p) => p.kind === "call" && p.tool === "create_entities" && answered.has(`${p.pid}:${p.id}`))) {
      const taskId = (c.key ?? "").split(":")[0] ?? "";
      for (const name of c.entities ?? []) answeredPerEntity.set(`${taskId}\u0000${name}`, (answeredPerEntity.get(`${taskId}\u0000${name}`) ?? 0) + 1);
    }
    const graphEntities = readJsonLines<{ type?: string; name?: string }>(memoryFile).filter((g) => g.type === "entity");
    const inGraph = new Map<string, number>();
    for (const g of graphEntities) inGraph.set(String(g.name), (inGraph.get(String(g.name)) ?? 0) + 1);
    const graphDuplicates = [...inGraph.values()].reduce((a, n) => a + Math.max(0, n - 1), 0);
    let mcpDuplicateCalls = 0;
    let mcpMissing = 0;
    let mcpCompleted = 0;
    for (const t of tasks) {
      const status = final.get(t.taskId) ?? "missing";
      if (status === "completed") completed++;
      if (t.kind === "mcp-audit") {
        const expected = expectedMcpEntities(t.limit);
        const extra = expected.reduce((a, name) => a + Math.max(0, (answeredPerEntity.get(`${t.taskId}\u0000${name}`) ?? 0) - 1), 0);
        const missing = expected.filter((name) => !inGraph.has(name)).length;
        mcpDuplicateCalls += extra;
        if (status === "completed") {
          mcpCompleted++;
          mcpMissing += missing;
          if (missing > 0) missingSideEffects++;
        }
        perTask.push({ taskId: t.taskId, limit: t.limit, status, csv: true, posts: 0, keys: 0, emails: 0 });
        progress(
          TAG,
          `${t.taskId} mcp-audit limit ${t.limit}: ${status}, ${expected.length} finding(s), ${missing} missing from the graph, ${extra} sent twice`,
        );
        continue;
      }
      const [artifact] = await query<{ content: string | null }>(
        `SELECT content FROM artifact WHERE "taskId" = $1 AND name = 'licenses.csv' ORDER BY "createdAt" DESC LIMIT 1`,
        [t.taskId],
      );
      const csv = artifact !== undefined && artifact.content === (await expectedLicenseCsv(root, t.limit));
      if (csv) csvCorrect++;
      const mine = receiver.deliveries.filter((d) => d.taskId === t.taskId);
      const keys = new Set(mine.map((d) => d.key)).size;
      duplicateDeliveries += Math.max(0, mine.length - 1);
      sameKeyRedeliveries += mine.length - keys;
      const emails = outbox.get(t.taskId) ?? 0;
      duplicateOutbox += Math.max(0, emails - 1);
      if (status === "completed" && (mine.length === 0 || emails === 0)) missingSideEffects++;
      perTask.push({ taskId: t.taskId, limit: t.limit, status, csv, posts: mine.length, keys, emails });
      progress(TAG, `${t.taskId} limit ${t.limit}: ${status}, csv ${csv ? "exact" : "WRONG"}, ${mine.length} POST(s) under ${keys} key(s), ${emails} email(s)`);
    }
    const [{ reexecuted } = { reexecuted: 0 }] = await query<{ reexecuted: number }>(
      `SELECT coalesce(sum(greatest(s.attempts - 1, 0)), 0)::int AS reexecuted FROM step s JOIN run r ON r.id = s."runId" WHERE r."taskId" = ANY($1)`,
      [taskIds],
    );
    const [{ runs } = { runs: 0 }] = await query<{ runs: number }>(`SELECT count(*)::int AS runs FROM run WHERE "taskId" = ANY($1)`, [taskIds]);

    const killsByTarget = Object.fromEntries(STACK_TARGETS.map((t) => [t, killLog.filter((k) => k.target === t).length])) as Record<StackTarget, number>;
    const downtimeMs = Object.fromEntries(
      STACK_TARGETS.filter((t) => killsByTarget[t] > 0).map((t) => {
        const d = killLog.filter((k) => k.target === t).map((k) => k.downMs);
        return [t, { mean: round(d.reduce((a, b) => a + b, 0) / d.length, 0), max: Math.max(...d), each: d }];
      }),
    );
    const duplicateSideEffects = duplicateDeliveries + duplicateOutbox + ledgerDuplicates + mcpDuplicateCalls + graphDuplicates;
    const everyTargetKilled = available.every((t) => killsByTarget[t] > 0);
    const licenseTasks = tasks.filter((t) => t.kind === "license-audit").length;
    const pass = everyTargetKilled && completed === tasks.length && csvCorrect === licenseTasks && duplicateSideEffects === 0 && missingSideEffects === 0;
    const result = {
      mode: "stack",
      stack:
        "scripts/start.ts (npm start): next start web app, embedded executor, scripted model server, embedded PostgreSQL, supervised; the memory MCP server under the web app",
      tasks: tasks.length,
      completed,
      killsByTarget,
      duplicateSideEffects,
      unresolvedEffects,
      pass,
      csvCorrect,
      missingSideEffects,
      duplicates: {
        receiver: duplicateDeliveries,
        receiverSameKey: sameKeyRedeliveries,
        outbox: duplicateOutbox,
        ledger: ledgerDuplicates,
        mcpCalls: mcpDuplicateCalls,
        mcpGraph: graphDuplicates,
      },
      mcp: {
        tasks: tasks.length - licenseTasks,
        completed: mcpCompleted,
        entitiesInGraph: graphEntities.length,
        missingEntities: mcpMissing,
        callsReceived: proxy.filter((p) => p.kind === "call").length,
        callsAnswered: answered.size,
        serverPids: new Set(proxy.map((p) => p.pid)).size,
      },
      ledgerDuplicateRows,
      downtimeMs,
      kills: killLog.length,
      everyTargetKilled,
      skippedTargets,
      runs,
      reexecutedSteps: reexecuted,
      seed,
      backoffMs,
      durationMs: since(),
      statuses: perTask.map((p) => p.status),
      limits: perTask.map((p) => p.limit),
    };
    progress(TAG, pass ? "PASS" : "FAIL");
    if (!pass) progress(TAG, `npm start's log (tail):\n${startLog.slice(-3000)}`);
    console.log(JSON.stringify(result));
    return pass ? 0 : 1;
  } finally {
    await db.end().catch(() => undefined);
    await stopStart(start);
    await new Promise<void>((r) => receiver.server.close(() => r()));
    rmSync(dataDir, { recursive: true, force: true });
  }
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
