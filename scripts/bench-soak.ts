/**
 * `npm run bench:soak -- [--minutes 20] [--warmup-minutes 4] [--sample-seconds 30] [--keep]`
 *
 * Long uptime: does anything grow? Runs what `npm start` runs — the web app, the executor, the
 * scripted model and embedded PostgreSQL, under the supervisor (scripts/start.ts, building the web
 * app first when the build is missing or stale) — in a fresh data folder, with trace export on to an
 * OTLP/HTTP receiver this script runs, for `--minutes` under a mixed load (all on loopback, bounded):
 * - a launch every 15 s, in turn: the license-audit demo, the MCP audit demo (the seeded mcp-audit
 *   profile and its npm MCP servers), and a gated license audit (approval before the email); at
 *   most 6 tasks unsettled at once;
 * - every open escalation approved through the API (checked every 5 s);
 * - an eval run of examples/evals/license-audit.yaml with the scripted profile, started at once;
 * - page loads every 3 s (task list, the newest task's page, escalations, costs, evals) signed in,
 *   and GET /api/health — their latency is the request latency reported.
 *
 * Every `--sample-seconds` it samples each process: resident memory (`/proc/<pid>/status` VmRSS, the
 * process and its children) for the web app, the executor and the model; proportional memory
 * (`/proc/<pid>/smaps_rollup` Pss, so shared buffers count once) summed over PostgreSQL's processes;
 * heap used and event-loop delay p99 since the previous sample from the web app's `GET /api/metrics`
 * and the executor's `GET /metrics` (prom-client's default metrics; the model has none). The first
 * `--warmup-minutes` (default a fifth of the run, at least 1) are warm-up and not judged. `--keep` keeps
 * the data folder at the end.
 *
 * For each figure: `warm` (median of the first 3 samples after warm-up), `end` (median of the last
 * 3), `ratio` = end ÷ warm, and `fitRatio` = the same ratio on a Theil–Sen line through every sample
 * after warm-up (the median of the slopes between all pairs of samples: one GC spike or a burst of
 * load cannot tilt it, a steady climb does). Pass (exit 0) when every memory figure (RSS, PSS, heap)
 * has `fitRatio` ≤ 1.15 and no process was restarted; latency and event-loop delay are reported
 * (a busy shared machine moves them) but not judged.
 *
 * Ports: PORT, EXECUTOR_PORT, MODEL_PORT, EMBEDDED_PG_PORT when set, else free ones. Progress goes to
 * stderr; the LAST stdout line is one JSON object: `{"minutes":…,"load":{…},"processes":{"web":
 * {"rssMb":{warm,end,ratio,fitRatio},"heapMb":…,"eventLoopP99Ms":…},"executor":…,"model":…,
 * "postgres":…},"latency":{…},"restarts":{…},"loadavg":[…],"pass":…}`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import superjson from "superjson";
import type { AppRouter } from "../server/api/root.ts";
import { parseEvalSuite } from "../server/features/evals/index.ts";
import { freePort, percentile, progress, round, runScript, sleep } from "./lib/bench-stack.ts";
import { defineScript, type FlagsOf } from "./lib/script-args.ts";
import { waitForUrl } from "./lib/supervisor.ts";

const TAG = "bench:soak";
const root = resolve(import.meta.dirname, "..");
const LAUNCH_EVERY_MS = 15_000;
const DECIDE_EVERY_MS = 5_000;
const PAGES_EVERY_MS = 3_000;
const MAX_UNSETTLED = 6;
/** Pass: no memory figure's fitted end ÷ warm above this. */
const MAX_GROWTH = 1.15;

/** A process of the stack as sampled. */
type Role = "web" | "executor" | "model" | "postgres";

/** Parent pid and command line of every process, from /proc. */
function processTable(): Map<number, { ppid: number; cmd: string; comm: string }> {
  const table = new Map<number, { ppid: number; cmd: string; comm: string }>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const comm = stat.slice(stat.indexOf("(") + 1, close);
      const ppid = Number(stat.slice(close + 2).split(" ")[1]);
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ");
      table.set(Number(entry), { ppid, cmd, comm });
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

/** The descendants of `pid` (not itself). */
function descendants(table: ReturnType<typeof processTable>, pid: number): number[] {
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, info] of table) {
      if (info.ppid === p) {
        out.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return out;
}

/** kB of `field` (VmRSS, Pss…) in a /proc file of `pid`; 0 when gone. */
function kb(pid: number, file: "status" | "smaps_rollup", field: string): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/${file}`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** The stack's processes under the start script `startPid`: the top process of each role (its children count with it). */
function stackProcesses(startPid: number): Partial<Record<Role, number[]>> {
  const table = processTable();
  const all = descendants(table, startPid);
  const roleOf = (pid: number): Role | null => {
    const { cmd, comm } = table.get(pid)!;
    if (comm === "postgres") return "postgres";
    if (cmd.includes("next/dist/bin/next") || comm.startsWith("next-server")) return "web";
    if (cmd.includes("server/executor/main.ts")) return "executor";
    if (cmd.includes("server/llm/scripted/main.ts")) return "model";
    return null;
  };
  const out: Partial<Record<Role, number[]>> = {};
  for (const pid of all) {
    const role = roleOf(pid);
    if (!role) continue;
    const parent = table.get(pid)!.ppid;
    // Only the top process of a role; its children (Next's workers, postgres backends) are summed under it.
    if (role !== "postgres" && roleOf(parent) === role) continue;
    if (role === "postgres" && table.get(parent)?.comm === "postgres") continue;
    (out[role] ??= []).push(pid);
  }
  return out;
}

/** One Prometheus sample value (`name` without labels) from a text exposition, or undefined. */
function metric(text: string, name: string): number | undefined {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, "m").exec(text);
  return m ? Number(m[1]) : undefined;
}

/** Theil–Sen slope of (t, y): the median of the slopes between every pair of points. */
function theilSenSlope(points: readonly { t: number; y: number }[]): number {
  const slopes: number[] = [];
  for (let i = 0; i < points.length; i++)
    for (let j = i + 1; j < points.length; j++) if (points[j]!.t !== points[i]!.t) slopes.push((points[j]!.y - points[i]!.y) / (points[j]!.t - points[i]!.t));
  slopes.sort((a, b) => a - b);
  return slopes.length ? percentile(slopes, 50) : 0;
}

/** warm, end, ratio and fitted ratio of a series of samples (t in minutes) after warm-up; see the header. */
function growth(points: { t: number; y: number }[]): { warm: number; end: number; ratio: number; fitRatio: number; samples: number } | null {
  if (points.length < 4) return null;
  const median = (ys: number[]) =>
    percentile(
      [...ys].sort((a, b) => a - b),
      50,
    );
  const warm = median(points.slice(0, 3).map((p) => p.y));
  const end = median(points.slice(-3).map((p) => p.y));
  const slope = theilSenSlope(points);
  const ts = points.map((p) => p.t);
  const ys = points.map((p) => p.y);
  // The line through the median point with the Theil–Sen slope, read at the first and last sample.
  const t0 = Math.min(...ts);
  const t1 = Math.max(...ts);
  const intercept = median(ys.map((y, i) => y - slope * ts[i]!));
  const fitStart = intercept + slope * t0;
  const fitEnd = intercept + slope * t1;
  return { warm: round(warm, 1), end: round(end, 1), ratio: round(end / warm, 3), fitRatio: round(fitEnd / fitStart, 3), samples: points.length };
}

const SCRIPT = defineScript({
  program: "npm run bench:soak --",
  summary: "Long uptime: npm start's stack under a mixed load; per-process memory, heap, event-loop delay and latency; pass = nothing grows steadily.",
  flags: {
    minutes: { type: "string", value: "<n>", description: "minutes under load", int: { min: 1, max: 24 * 60 }, default: 20 },
    "warmup-minutes": {
      type: "string",
      value: "<n>",
      description: "first minutes not judged, below --minutes (default: a fifth of --minutes, at least 1 when --minutes is 2 or more)",
      int: { min: 0, max: 24 * 60 - 1 },
    },
    "sample-seconds": { type: "string", value: "<n>", description: "seconds between samples", int: { min: 5, max: 600 }, default: 30 },
    keep: { type: "boolean", description: "keep the data folder at the end (its path is in the progress lines)" },
  },
  notes: ["Ports: PORT, EXECUTOR_PORT, MODEL_PORT, EMBEDDED_PG_PORT when set, else free ones. See the header of scripts/bench-soak.ts."],
  examples: ["npm run bench:soak -- --minutes 20"],
  check: (v) => [
    v["warmup-minutes"] !== undefined && v["warmup-minutes"] >= v.minutes
      ? `--warmup-minutes: must be below --minutes (${v.minutes}), got ${v["warmup-minutes"]}`
      : null,
  ],
});

async function main(flags: FlagsOf<typeof SCRIPT>): Promise<number> {
  const { minutes } = flags;
  const warmupMinutes = flags["warmup-minutes"] ?? Math.min(minutes - 1, Math.max(1, Math.round(minutes / 5)));
  const sampleSeconds = flags["sample-seconds"];
  const envPort = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);
  const [port, executorPort, modelPort, pgPort] = [
    envPort("PORT") ?? (await freePort()),
    envPort("EXECUTOR_PORT") ?? (await freePort()),
    envPort("MODEL_PORT") ?? (await freePort()),
    envPort("EMBEDDED_PG_PORT") ?? (await freePort()),
  ];
  const dataDir = mkdtempSync(join(tmpdir(), "longhaul-bench-soak-"));
  const base = `http://127.0.0.1:${port}`;

  // The OTLP/HTTP receiver: counts requests and spans (and span ids seen twice).
  const seenSpans = new Set<string>();
  const traces = { requests: 0, spans: 0, duplicateSpans: 0 };
  const receiver = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      traces.requests += 1;
      try {
        const body = JSON.parse(raw) as { resourceSpans: { scopeSpans: { spans: { traceId: string; spanId: string }[] }[] }[] };
        for (const s of body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((ss) => ss.spans))) {
          traces.spans += 1;
          const id = `${s.traceId}/${s.spanId}`;
          if (seenSpans.has(id)) traces.duplicateSpans += 1;
          seenSpans.add(id);
        }
      } catch {
        // counted as a request only
      }
      res.setHeader("content-type", "application/json");
      res.end("{}");
    });
  });
  const receiverPort = await freePort();
  await new Promise<void>((r) => receiver.listen(receiverPort, "127.0.0.1", r));

  let app: ChildProcess | null = null;
  const stopApp = async () => {
    if (!app || app.exitCode !== null || app.signalCode !== null) return;
    const exited = new Promise((r) => app!.once("exit", r));
    app.kill("SIGTERM");
    await Promise.race([exited, sleep(30_000)]);
    if (app.exitCode === null && app.signalCode === null) app.kill("SIGKILL");
  };
  try {
    progress(TAG, `starting the stack on port ${port} (builds first when needed), data in ${dataDir}`);
    app = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        DATABASE_URL: "",
        DATA_DIR: dataDir,
        PORT: String(port),
        EXECUTOR_PORT: String(executorPort),
        MODEL_PORT: String(modelPort),
        EMBEDDED_PG_PORT: String(pgPort),
        OPENAI_API_KEY: "",
        OPENAI_BASE_URL: "",
        INNGEST_BASE_URL: "",
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiverPort}`,
        OTEL_BSP_SCHEDULE_DELAY: "1000",
        NEXT_TELEMETRY_DISABLED: "1",
        CHECKPOINT_DISABLE: "1",
      },
    });
    const supervisorLines: string[] = [];
    const onOutput = (d: Buffer) => {
      const text = d.toString();
      for (const line of text.split("\n")) if (line.startsWith("[supervisor]")) supervisorLines.push(line);
      if (process.env.SOAK_LOG) process.stderr.write(`[app] ${text}`);
    };
    app.stdout?.on("data", onOutput);
    app.stderr?.on("data", onOutput);
    await waitForUrl(`${base}/api/health`, 900_000, () => app?.exitCode === null);
    const tokenFile = join(dataDir, "cli-token");
    if (!existsSync(tokenFile)) throw new Error(`no CLI token in ${tokenFile}`);
    const token = readFileSync(tokenFile, "utf8").trim();
    const auth = { authorization: `Bearer ${token}` };
    const api = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: `${base}/api/trpc`, transformer: superjson, headers: () => auth })] });
    // Pages need a signed-in user: the first account of the fresh data folder.
    const signUp = await fetch(`${base}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base },
      body: JSON.stringify({ email: "soak@bench.test", password: "bench-soak-password-1", name: "soak" }),
    });
    if (!signUp.ok) throw new Error(`could not sign up the bench user: ${signUp.status} ${await signUp.text()}`);
    const cookie = signUp.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");

    const startPid = app.pid!;
    const started = Date.now();
    const deadline = started + minutes * 60_000;
    const minutesIn = () => (Date.now() - started) / 60_000;
    const running = () => Date.now() < deadline && app?.exitCode === null;
    const load = { launched: { demo: 0, mcp: 0, gated: 0 }, launchErrors: 0, escalationsDecided: 0, evalRuns: 0, pageLoads: 0, pageErrors: 0, healthChecks: 0 };
    const launchedIds: string[] = [];
    const latencies: { t: number; ms: number; kind: "page" | "health" }[] = [];

    const launcher = async () => {
      const kinds = ["demo", "mcp", "gated"] as const;
      for (let i = 0; running(); i++) {
        try {
          const unsettled = await api.task.list.query({ limit: 50, status: "running" });
          if (unsettled.rows.length < MAX_UNSETTLED) {
            const kind = kinds[i % kinds.length]!;
            const input =
              kind === "mcp"
                ? { demo: { kind: "mcp-audit" as const, limit: 2 }, profile: "scripted" }
                : { demo: { kind: "license-audit" as const, limit: 3 }, profile: "scripted", ...(kind === "gated" ? { requireApproval: true } : {}) };
            const { taskId } = await api.task.launch.mutate(input);
            launchedIds.push(taskId);
            load.launched[kind] += 1;
          }
        } catch (error) {
          load.launchErrors += 1;
          progress(TAG, `launch failed: ${error instanceof Error ? error.message : String(error)}`);
        }
        await sleep(LAUNCH_EVERY_MS);
      }
    };
    const decider = async () => {
      while (running()) {
        try {
          for (const e of await api.escalation.list.query({ status: "open" })) {
            await api.escalation.decide.mutate({ escalationId: e.id, decision: "approve" }).catch(() => {});
            load.escalationsDecided += 1;
          }
        } catch (error) {
          progress(TAG, `deciding failed: ${error instanceof Error ? error.message : String(error)}`);
        }
        await sleep(DECIDE_EVERY_MS);
      }
    };
    const pages = async () => {
      for (let i = 0; running(); i++) {
        const newest = launchedIds.at(-1);
        const paths = ["/tasks", ...(newest ? [`/tasks/${newest}`] : []), "/escalations", "/costs", "/evals"];
        const path = paths[i % paths.length]!;
        for (const [url, kind, headers] of [
          [`${base}${path}`, "page", { cookie }],
          [`${base}/api/health`, "health", {}],
        ] as const) {
          const t0 = performance.now();
          try {
            const res = await fetch(url, { headers, signal: AbortSignal.timeout(60_000) });
            await res.arrayBuffer();
            if (kind === "page") {
              load.pageLoads += 1;
              if (!res.ok) load.pageErrors += 1;
            } else load.healthChecks += 1;
            latencies.push({ t: minutesIn(), ms: performance.now() - t0, kind });
          } catch {
            if (kind === "page") load.pageErrors += 1;
          }
        }
        await sleep(PAGES_EVERY_MS);
      }
    };
    const evals = async () => {
      try {
        const suite = parseEvalSuite({
          text: readFileSync(join(root, "examples/evals/license-audit.yaml"), "utf8"),
          source: "examples/evals/license-audit.yaml",
        });
        const applied = await api.eval.applySuite.mutate(suite);
        await api.eval.start.mutate({ suite: applied.name, profiles: ["scripted"] });
        load.evalRuns += 1;
      } catch (error) {
        progress(TAG, `eval run failed to start: ${error instanceof Error ? error.message : String(error)}`);
      }
    };

    type Sample = { t: number } & Partial<Record<`${Role}.${"rssMb" | "pssMb" | "heapMb" | "eventLoopP99Ms"}`, number>> & {
        pids: Partial<Record<Role, number[]>>;
      };
    const samples: Sample[] = [];
    const sample = async () => {
      const pids = stackProcesses(startPid);
      const table = processTable();
      const s: Sample = { t: minutesIn(), pids };
      for (const role of ["web", "executor", "model"] as const) {
        const tops = pids[role] ?? [];
        if (tops.length)
          s[`${role}.rssMb`] = round(tops.flatMap((p) => [p, ...descendants(table, p)]).reduce((n, p) => n + kb(p, "status", "VmRSS"), 0) / 1024, 1);
      }
      const pg = (pids.postgres ?? []).flatMap((p) => [p, ...descendants(table, p)]);
      if (pg.length) s["postgres.pssMb"] = round(pg.reduce((n, p) => n + kb(p, "smaps_rollup", "Pss"), 0) / 1024, 1);
      for (const [role, url, headers] of [
        ["web", `${base}/api/metrics`, auth],
        ["executor", `http://127.0.0.1:${executorPort}/metrics`, {}],
      ] as const) {
        try {
          const text = await (await fetch(url, { headers, signal: AbortSignal.timeout(30_000) })).text();
          const heap = metric(text, "nodejs_heap_size_used_bytes");
          const eld = metric(text, "nodejs_eventloop_lag_p99_seconds");
          if (heap !== undefined) s[`${role}.heapMb`] = round(heap / 1_048_576, 1);
          if (eld !== undefined) s[`${role}.eventLoopP99Ms`] = round(eld * 1000, 1);
        } catch {
          // not answering: no figure this time
        }
      }
      samples.push(s);
      progress(
        TAG,
        `${round(s.t, 1)} min: ${Object.entries(s)
          .flatMap(([k, v]) => (k.includes(".") && typeof v === "number" ? [`${k} ${v}`] : []))
          .join(", ")} · tasks ${launchedIds.length}, spans ${traces.spans}`,
      );
    };
    const sampler = async () => {
      await sample(); // scrapes once so the next event-loop figure covers one interval
      while (running()) {
        await sleep(sampleSeconds * 1000);
        await sample();
      }
    };

    progress(TAG, `load for ${minutes} min (warm-up ${warmupMinutes} min, a sample every ${sampleSeconds} s)`);
    await Promise.all([launcher(), decider(), pages(), evals(), sampler()]);
    const endedEarly = app.exitCode !== null;

    const unsettled = (await api.task.list.query({ limit: 200, status: "running" }).catch(() => ({ rows: [] }))).rows.length;
    const statuses: Record<string, number> = {};
    for (const status of ["completed", "failed", "dead_end", "waiting_for_human"] as const) {
      statuses[status] = (await api.task.list.query({ limit: 200, status }).catch(() => ({ rows: [] }))).rows.length;
    }

    const after = samples.filter((s) => s.t >= warmupMinutes);
    const series = (key: keyof Sample) => after.flatMap((s) => (typeof s[key] === "number" ? [{ t: s.t, y: s[key] }] : []));
    const processes: Record<string, Record<string, ReturnType<typeof growth>>> = {};
    const judged: { figure: string; fitRatio: number }[] = [];
    for (const role of ["web", "executor", "model", "postgres"] as const) {
      const figures: Record<string, ReturnType<typeof growth>> = {};
      for (const figure of ["rssMb", "pssMb", "heapMb", "eventLoopP99Ms"] as const) {
        const g = growth(series(`${role}.${figure}`));
        if (!g) continue;
        figures[figure] = g;
        if (figure !== "eventLoopP99Ms") judged.push({ figure: `${role}.${figure}`, fitRatio: g.fitRatio });
      }
      processes[role] = figures;
    }
    const latencyWindow = (kind: "page" | "health", from: number, to: number) =>
      latencies
        .filter((l) => l.kind === kind && l.t >= from && l.t <= to)
        .map((l) => l.ms)
        .sort((a, b) => a - b);
    const span = minutes - warmupMinutes;
    const latency = Object.fromEntries(
      (["page", "health"] as const).map((kind) => {
        const warm = latencyWindow(kind, warmupMinutes, warmupMinutes + span / 4);
        const end = latencyWindow(kind, minutes - span / 4, minutes);
        return [
          `${kind}Ms`,
          {
            warmP50: round(percentile(warm, 50), 0),
            warmP95: round(percentile(warm, 95), 0),
            endP50: round(percentile(end, 50), 0),
            endP95: round(percentile(end, 95), 0),
            ratioP50: round(percentile(end, 50) / percentile(warm, 50), 3),
          },
        ];
      }),
    );
    const restarts = supervisorLines.filter((l) => /restart/.test(l));
    const growing = judged.filter((j) => j.fitRatio > MAX_GROWTH);
    const pass = !endedEarly && restarts.length === 0 && growing.length === 0 && judged.length > 0;
    const result = {
      minutes,
      warmupMinutes,
      sampleSeconds,
      samples: samples.length,
      load: { ...load, tasksUnsettledAtEnd: unsettled, tasksByStatus: statuses, traces },
      processes,
      latency,
      restarts,
      growing,
      maxGrowth: MAX_GROWTH,
      loadavg: loadavg().map((l) => round(l, 2)),
      pass,
    };
    console.log(JSON.stringify(result));
    return pass ? 0 : 1;
  } finally {
    await stopApp();
    await new Promise<void>((r) => receiver.close(() => r()));
    if (!flags.keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

runScript(SCRIPT, main);
