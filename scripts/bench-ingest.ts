/**
 * `npx tsx scripts/bench-ingest.ts [--rounds 5] [--sizes 1,100,1000]`
 *
 * Event ingest of the embedded executor: the wall time of one `POST /e/{key}` carrying N events
 * (p50 and p95 over the rounds, and per event), on an ephemeral embedded PostgreSQL 17, the
 * executor in process in signed mode. Three kinds of batch:
 * - `plain`: events nothing listens to (store only);
 * - `userIds`: each event with its own user `id` (the 24 h dedupe path: lock + lookup);
 * - `triggered`: each event starts a run of a registered function (run row, first queue item).
 * The function's URL points at a server that accepts requests and never answers, so the runs the
 * batches start occupy the workers without adding load while the next POSTs are timed.
 *
 * Progress goes to stderr; the LAST stdout line is one JSON object:
 * `{ "<kind>": { "<N>": { p50Ms, p95Ms, perEventUsP50 } }, rounds, load }`.
 */
import { createServer, type Server } from "node:http";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { startExecutor } from "../server/executor/index.ts";
import { registerApp } from "../server/executor/registry.ts";
import { freePort, percentile, progress, round, runScript, startBenchDatabase } from "./lib/bench-stack.ts";
import { defineScript, type FlagsOf } from "./lib/script-args.ts";

const SIGNING_KEY = "signkey-bench-0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";
const EVENT_KEY = "bench-event-key";
const TAG = "bench:ingest";
const SCRIPT = defineScript({
  program: "npx tsx scripts/bench-ingest.ts",
  summary: "Wall time of one POST /e/{key} with N events (plain, userIds, triggered), p50/p95 per batch and per event.",
  flags: {
    rounds: { type: "string", value: "<n>", description: "timed POSTs of each kind and size", int: { min: 1, max: 100 }, default: 5 },
    sizes: { type: "string", value: "<n,…>", description: "events per POST", int: { min: 1, max: 5000 }, list: true, default: [1, 100, 1000] },
  },
  notes: ["Last stdout line: JSON {plain, userIds, triggered: {N: {p50Ms, p95Ms, perEventUsP50}}, rounds, load}."],
  examples: ["npx tsx scripts/bench-ingest.ts --rounds 5 --sizes 1,100,1000"],
});

async function main({ rounds, sizes }: FlagsOf<typeof SCRIPT>): Promise<number> {
  const db = await startBenchDatabase({ name: "bench_ingest", tag: TAG });
  // A function URL that accepts and never answers: started runs hold their workers quietly.
  const sink: Server = createServer(() => {});
  const sinkPort = await freePort();
  await new Promise<void>((r) => sink.listen(sinkPort, "127.0.0.1", () => r()));
  const executor = await startExecutor({
    databaseUrl: db.url,
    port: 0,
    signingKey: SIGNING_KEY,
    eventKey: EVENT_KEY,
    appUrls: [],
    log: () => {},
    stopGraceMs: 0,
  });
  try {
    await registerApp(executor.db, {
      appId: "bench",
      url: `http://127.0.0.1:${sinkPort}/api/inngest`,
      sdk: "bench",
      functions: [
        {
          id: "bench-run",
          name: "run",
          triggers: [{ event: "bench/run" }],
          steps: { step: { id: "step", name: "step", runtime: { type: "http", url: `http://127.0.0.1:${sinkPort}/api/inngest?fnId=bench-run&stepId=step` } } },
        },
      ],
    });
    let seq = 0;
    const post = async (events: unknown[]): Promise<number> => {
      const t0 = performance.now();
      const res = await fetch(`${executor.url}/e/${EVENT_KEY}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(events),
      });
      const body = (await res.json()) as { ids: string[]; status: number };
      const ms = performance.now() - t0;
      if (body.status !== 200 || body.ids.length !== events.length) throw new Error(`POST /e answered ${JSON.stringify(body).slice(0, 200)}`);
      return ms;
    };
    const kinds = {
      plain: (n: number) => Array.from({ length: n }, (_, i) => ({ name: "bench/none", data: { i } })),
      userIds: (n: number) => Array.from({ length: n }, (_, i) => ({ name: "bench/none", id: `u-${seq}-${i}`, data: { i } })),
      triggered: (n: number) => Array.from({ length: n }, (_, i) => ({ name: "bench/run", data: { i } })),
    };
    const out: Record<string, Record<string, { p50Ms: number; p95Ms: number; perEventUsP50: number }>> = {};
    // Warm-up (connections, prepared plans).
    await post(kinds.plain(10));
    for (const [kind, make] of Object.entries(kinds)) {
      out[kind] = {};
      for (const n of sizes) {
        const times: number[] = [];
        for (let r = 0; r < rounds; r++) {
          seq += 1;
          times.push(await post(make(n)));
        }
        const sorted = [...times].sort((a, b) => a - b);
        const p50 = percentile(sorted, 50);
        out[kind][String(n)] = { p50Ms: round(p50), p95Ms: round(percentile(sorted, 95)), perEventUsP50: round((p50 * 1000) / n, 1) };
        progress(TAG, `${kind} × ${n}: p50 ${round(p50)} ms (${round((p50 * 1000) / n, 1)} µs/event), p95 ${round(percentile(sorted, 95))} ms`);
      }
    }
    console.log(JSON.stringify({ ...out, rounds, load: loadavg().map((x) => round(x)) }));
    return 0;
  } finally {
    await executor.stop();
    sink.closeAllConnections();
    sink.close();
    await db.stop();
  }
}

runScript(SCRIPT, main);
