/**
 * `npm run bench:segments -- [--sizes 100,1000,5000] [--every 50] [--warmup 50]`
 *
 * Orchestration time per step of long runs cut into segments, with no-op tools and no model: does
 * a 5,000-step run cost the same per step as a 100-step one?
 *
 * Starts, in this process, an ephemeral embedded PostgreSQL (free loopback port, temp dir, migrations
 * applied), the embedded executor (server/executor/index.ts, signed mode, async checkpointing as in
 * production) and a real inngest@4 client serving, via `serve` from `inngest/node` on a plain
 * node:http server, one function that mirrors `agent-run`'s segment structure
 * (server/inngest/functions/agent-run.ts): each segment runs a `start` step, then no-op
 * `step.run("s<i>")`s; every `--every` steps a `checkpoint-<i>` step, then `step.sendEvent` of a
 * continue event, and the segment returns ("continue-as-new"); the next segment (a new executor run)
 * starts where it left off; the last one runs an `end` step and completes.
 *
 * For each size: wall time from sending the start event until the executor has completed the last
 * segment, divided by the steps (msPerStep); and the p50 / p95 gap between the start of one no-op
 * step body and the next (segment boundaries included). A warm-up run (`--warmup` steps) goes first
 * and is not reported. Sizes run one after the other on the same database, the larger ones finding
 * the smaller ones' rows.
 *
 * Progress goes to stderr; the LAST stdout line is one compact JSON object:
 * `{"msPerStep":{"100":…,"1000":…,"5000":…},"p50MsPerStep":{…},"p95MsPerStep":{…},"wallMs":{…},"segments":{…},"ratio","pass"}`.
 * Pass (exit 0): msPerStep of the largest size ≤ 1.5 × that of the smallest; exit 1 otherwise.
 */
import { createServer } from "node:http";
import { performance } from "node:perf_hooks";
import type { Inngest } from "inngest";
import { createInngestClient } from "../server/inngest/sdk-transport.ts";
import { serve } from "inngest/node";
import { startExecutor, type ExecutorHandle } from "../server/executor/index.ts";
import { freePort, percentile, progress, round, runScript, sleep, startBenchDatabase } from "./lib/bench-stack.ts";
import { defineScript, type FlagsOf } from "./lib/script-args.ts";

const TAG = "bench:segments";
const SIGNING_KEY = "signkey-bench-5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f";
const EVENT_KEY = "bench-segments-event-key";
const APP_ID = "bench-segments";
const STARTED = "bench/segments.started";
const CONTINUED = "bench/segments.continued";

interface SegmentData {
  key: string;
  total: number;
  every: number;
  from: number;
}

/** Start time of each no-op step body, by run key (first execution only). */
const bodyStarts = new Map<string, number[]>();

function createSegmentedFunction(client: Inngest) {
  return client.createFunction({ id: "segmented-noop", retries: 4, triggers: [{ event: STARTED }, { event: CONTINUED }] }, async ({ event, step }) => {
    const data = event.data as SegmentData;
    const start = await step.run("start", () => ({ from: data.from }));
    const end = Math.min(data.total, start.from + data.every);
    for (let i = start.from; i < end; i++) {
      await step.run(`s${i}`, () => {
        const starts = bodyStarts.get(data.key) ?? bodyStarts.set(data.key, []).get(data.key)!;
        if (starts[i] === undefined) starts[i] = performance.now();
        return i;
      });
    }
    if (end >= data.total) {
      await step.run("end", () => ({ steps: data.total }));
      return { status: "completed", steps: data.total };
    }
    const checkpoint = await step.run(`checkpoint-${end}`, () => ({ next: end }));
    await step.sendEvent(`continue-${end}`, { name: CONTINUED, data: { ...data, from: checkpoint.next }, id: `continued-${data.key}-${checkpoint.next}` });
    return { status: "continued", next: checkpoint.next };
  });
}

/** Polls the executor until a run for `key` completed with status "completed"; returns the number of segments. */
async function waitForLastSegment(executor: ExecutorHandle, key: string, deadline: number): Promise<number> {
  for (;;) {
    const rows = await executor.db.$queryRaw<{ status: string; done: boolean }[]>`
      SELECT status, (output->>'status') = 'completed' AS done FROM executor_run
      WHERE "functionId" = ${`${APP_ID}-segmented-noop`} AND event->'data'->>'key' = ${key}`;
    const failed = rows.find((r) => r.status === "failed" || r.status === "cancelled");
    if (failed) throw new Error(`a segment of ${key} ${failed.status}`);
    if (rows.some((r) => r.status === "completed" && r.done)) return rows.length;
    if (performance.now() > deadline) throw new Error(`${key} did not complete in time`);
    await sleep(5);
  }
}

interface SizeResult {
  steps: number;
  wallMs: number;
  msPerStep: number;
  p50: number;
  p95: number;
  segments: number;
}

async function runSize(executor: ExecutorHandle, steps: number, every: number, label: string): Promise<SizeResult> {
  const key = `${label}-${steps}`;
  progress(TAG, `${label}: ${steps} no-op steps, a segment every ${every}…`);
  const t0 = performance.now();
  const res = await fetch(`${executor.url}/e/${EVENT_KEY}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: STARTED, data: { key, total: steps, every, from: 0 } satisfies SegmentData }),
  });
  if (!res.ok) throw new Error(`event API answered HTTP ${res.status}`);
  const segments = await waitForLastSegment(executor, key, t0 + 600_000);
  const wallMs = performance.now() - t0;
  const starts = bodyStarts.get(key) ?? [];
  if (starts.filter((x) => x !== undefined).length !== steps) throw new Error(`${key}: ${starts.length} of ${steps} step bodies ran`);
  const gaps = [starts[0]! - t0, ...starts.slice(1).map((s, i) => s - starts[i]!)].sort((a, b) => a - b);
  const result = {
    steps,
    wallMs: Math.round(wallMs),
    msPerStep: round(wallMs / steps),
    p50: round(percentile(gaps, 50)),
    p95: round(percentile(gaps, 95)),
    segments,
  };
  progress(TAG, `${label}: ${JSON.stringify(result)}`);
  return result;
}

const SCRIPT = defineScript({
  program: "npm run bench:segments --",
  summary: "Orchestration time per step of long runs cut into segments (no-op tools, no model), at several sizes.",
  flags: {
    sizes: { type: "string", value: "<n,…>", description: "steps of each measured run", int: { min: 1, max: 100_000 }, list: true, default: [100, 1000, 5000] },
    every: { type: "string", value: "<n>", description: "steps per segment (a checkpoint step, then continue-as-new)", int: { min: 1, max: 900 }, default: 50 },
    warmup: { type: "string", value: "<n>", description: "steps of the unreported warm-up run", int: { min: 0, max: 10_000 }, default: 50 },
    verbose: { type: "boolean", description: "print the executor's log lines (stderr)" },
  },
  notes: ["Pass (exit 0): msPerStep of the largest size ≤ 1.5 × that of the smallest."],
  examples: ["npm run bench:segments", "npm run bench:segments -- --sizes 100,1000 --every 50"],
});

async function main({ sizes, every, warmup, verbose }: FlagsOf<typeof SCRIPT>): Promise<number> {
  const t0 = performance.now();

  const database = await startBenchDatabase({ name: "longhaul_bench_segments", tag: TAG });
  let executor: ExecutorHandle | undefined;
  let server: ReturnType<typeof createServer> | undefined;
  try {
    executor = await startExecutor({
      databaseUrl: database.url,
      port: 0,
      signingKey: SIGNING_KEY,
      eventKey: EVENT_KEY,
      appUrls: [],
      backoffMs: [50, 100, 200],
      log: verbose ? (l) => progress("executor", l) : () => {},
    });
    const client = createInngestClient({ id: APP_ID, signingKey: SIGNING_KEY, eventKey: EVENT_KEY, baseUrl: executor.url });
    const handler = serve({ client, functions: [createSegmentedFunction(client)] });
    const port = await freePort();
    server = createServer((req, res) => void handler(req, res));
    await new Promise<void>((r) => server!.listen(port, "127.0.0.1", () => r()));
    await executor.sync(`http://127.0.0.1:${port}/api/inngest`);

    if (warmup > 0) await runSize(executor, warmup, every, "warmup");
    const results: SizeResult[] = [];
    for (const n of sizes) results.push(await runSize(executor, n, every, "run"));

    const by = (f: (r: SizeResult) => number | string) => Object.fromEntries(results.map((r) => [String(r.steps), f(r)]));
    const first = results[0]!;
    const last = results.at(-1)!;
    const ratio = round(last.msPerStep / first.msPerStep, 3);
    const pass = ratio <= 1.5;
    progress(TAG, `${last.steps} vs ${first.steps} steps: ${ratio}× per step — ${pass ? "PASS" : "FAIL"}`);
    console.log(
      JSON.stringify({
        msPerStep: by((r) => r.msPerStep),
        p50MsPerStep: by((r) => r.p50),
        p95MsPerStep: by((r) => r.p95),
        wallMs: by((r) => r.wallMs),
        segments: by((r) => r.segments),
        every,
        ratio,
        pass,
        durationMs: Math.round(performance.now() - t0),
      }),
    );
    return pass ? 0 : 1;
  } finally {
    if (server) {
      const s = server;
      await new Promise<void>((r) => {
        s.close(() => r());
        s.closeAllConnections();
      });
    }
    if (executor) await executor.stop();
    await database.stop();
  }
}

runScript(SCRIPT, main);
