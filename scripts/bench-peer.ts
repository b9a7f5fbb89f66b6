/**
 * `npm run bench:peer [-- --rounds 2 --engine both|longhaul|dbos --steps 100,1000 --runs 100 --run-steps 20]`
 *
 * Longhaul's embedded executor against a peer durable engine, DBOS Transact
 * (`@dbos-inc/dbos-sdk` 5.3.0, a dev dependency used only here; STACK.md pitfall 11), on the same
 * PostgreSQL 17 (one ephemeral embedded cluster: Longhaul's tables in one database, DBOS's system
 * database beside it), in this one Node process, engines alternated round by round so the
 * machine's noise hits both.
 *
 * The same workload on each: a loop of no-op durable steps.
 * - Longhaul: a real inngest@4.24.0 function (`step.run` × N) served by `serve()` over node:http,
 *   driven by the executor in signed mode with async checkpointing (the default).
 * - DBOS: a registered workflow calling `DBOS.runStep` × N.
 * Per-step overhead = the gap between the end of one step body and the start of the next (the
 * first gap: start request → first body; the last: last body → result), i.e. wall time per step
 * minus time in the step bodies. Measured for each `--steps` count (p50, p95 over all rounds), and
 * throughput (steps per second) with `--runs` concurrent runs of `--run-steps` steps each.
 *
 * Progress goes to stderr; the LAST stdout line is one JSON object: `longhaulStepMsP50`,
 * `dbosStepMsP50`, `ratio` (Longhaul ÷ DBOS, p50 at the first --steps count), `longhaulThroughput`,
 * `dbosThroughput` (steps/s), and `perSteps` with p50/p95 per engine and step count.
 */
import { createServer } from "node:http";
import { performance } from "node:perf_hooks";
import { DBOS } from "@dbos-inc/dbos-sdk";
import { Inngest } from "inngest";
import { serve } from "inngest/node";
import { startExecutor } from "../server/executor/index.ts";
import { flag, freePort, intFlag, percentile, progress, round, runScript, startBenchDatabase } from "./lib/bench-stack.ts";

const SIGNING_KEY = "signkey-bench-0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";
const EVENT_KEY = "bench-event-key";
const TAG = "bench:peer";

const USAGE = `npm run bench:peer [-- --rounds 2 --engine both|longhaul|dbos --steps 100,1000 --runs 100 --run-steps 20]
Per-step overhead (p50/p95) and throughput of the embedded executor vs DBOS Transact 5.3.0 on one embedded PostgreSQL.
Last stdout line: JSON {longhaulStepMsP50, dbosStepMsP50, ratio, longhaulThroughput, dbosThroughput, perSteps, …}.`;

/** One engine under test: a sequential run of N steps returns the per-step gaps; a batch runs concurrently and returns the wall time. */
interface Engine {
  name: "longhaul" | "dbos";
  sequential: (steps: number) => Promise<number[]>;
  concurrent: (runs: number, steps: number) => Promise<number>;
}

/** Gaps between one step body's end and the next one's start, framed by the start and end of the run. */
function gaps(t0: number, marks: { start: number; end: number }[], done: number): number[] {
  const out: number[] = [];
  let prev = t0;
  for (const m of marks) {
    out.push(m.start - prev);
    prev = m.end;
  }
  out.push(done - prev);
  return out;
}

async function longhaulEngine(databaseUrl: string): Promise<{ engine: Engine; stop: () => Promise<void> }> {
  // Completion is read from the executor's own log lines ("run R started … (event peer/noop E)",
  // "run R completed"), written in the transaction's wake: no polling, no extra run in the way.
  const eventOfRun = new Map<string, string>();
  const completedAt = new Map<string, number>();
  const waiters = new Map<string, (t: number) => void>();
  const log = (line: string): void => {
    let m = /^run (\S+) started for \S+ \(event \S+ (\S+)\)$/.exec(line);
    if (m) {
      eventOfRun.set(m[1]!, m[2]!);
      return;
    }
    m = /^(?:WARN )?run (\S+) (completed|failed)/.exec(line);
    if (m) {
      const eventId = eventOfRun.get(m[1]!);
      if (!eventId) return;
      if (m[2] === "failed") process.stderr.write(`[${TAG}] longhaul run ${m[1]} failed: ${line}\n`);
      const t = performance.now();
      const w = waiters.get(eventId);
      if (w) w(t);
      else completedAt.set(eventId, t);
    }
  };
  const executor = await startExecutor({ databaseUrl, port: 0, signingKey: SIGNING_KEY, eventKey: EVENT_KEY, appUrls: [], log });
  const client = new Inngest({ id: "peer", signingKey: SIGNING_KEY, eventKey: EVENT_KEY, baseUrl: executor.url, checkpointing: true });
  const marks = new Map<string, { start: number; end: number }[]>();
  const fn = client.createFunction({ id: "noop", retries: 0, triggers: [{ event: "peer/noop" }] }, async ({ event, step }) => {
    const key = String(event.data.key);
    const steps = Number(event.data.steps);
    for (let i = 0; i < steps; i++) {
      await step.run(`s${i}`, () => {
        const start = performance.now();
        const m = marks.get(key) ?? marks.set(key, []).get(key)!;
        m.push({ start, end: performance.now() });
        return i;
      });
    }
    return steps;
  });
  const handler = serve({ client, functions: [fn] });
  const port = await freePort();
  const app = createServer((req, res) => void handler(req, res));
  await new Promise<void>((r) => app.listen(port, "127.0.0.1", () => r()));
  await executor.sync(`http://127.0.0.1:${port}/api/inngest`);
  let seq = 0;
  const finished = (eventId: string): Promise<number> => {
    const t = completedAt.get(eventId);
    if (t !== undefined) return Promise.resolve(t);
    return new Promise<number>((resolve) => waiters.set(eventId, resolve));
  };
  const send = async (events: { key: string; steps: number }[]): Promise<string[]> => {
    const res = await fetch(`${executor.url}/e/${EVENT_KEY}`, { method: "POST", body: JSON.stringify(events.map((e) => ({ name: "peer/noop", data: e }))) });
    return ((await res.json()) as { ids: string[] }).ids;
  };
  const engine: Engine = {
    name: "longhaul",
    sequential: async (steps) => {
      const key = `k${++seq}`;
      const t0 = performance.now();
      const [id] = await send([{ key, steps }]);
      const end = await finished(id!);
      const m = marks.get(key) ?? [];
      if (m.length !== steps) throw new Error(`longhaul: ${m.length} step bodies ran for ${steps} steps`);
      return gaps(t0, m, end);
    },
    concurrent: async (runs, steps) => {
      const t0 = performance.now();
      const ids = await send(Array.from({ length: runs }, () => ({ key: `k${++seq}`, steps })));
      const ingested = performance.now() - t0;
      const ends = await Promise.all(ids.map(finished));
      progress(TAG, `longhaul ${runs} events ingested in ${round(ingested, 0)} ms; first run done after ${round(Math.min(...ends) - t0, 0)} ms`);
      return performance.now() - t0;
    },
  };
  return {
    engine,
    stop: async () => {
      await executor.stop();
      await new Promise<void>((r) => app.close(() => r()));
    },
  };
}

async function dbosEngine(databaseUrl: string): Promise<{ engine: Engine; stop: () => Promise<void> }> {
  const sysUrl = new URL(databaseUrl);
  sysUrl.pathname = "/peer_dbos_sys";
  const marks = new Map<string, { start: number; end: number }[]>();
  const workflow = DBOS.registerWorkflow(
    async (key: string, steps: number) => {
      for (let i = 0; i < steps; i++) {
        await DBOS.runStep(
          async () => {
            const start = performance.now();
            const m = marks.get(key) ?? marks.set(key, []).get(key)!;
            m.push({ start, end: performance.now() });
            return i;
          },
          { name: `s${i}` },
        );
      }
      return steps;
    },
    { name: "noop" },
  );
  DBOS.setConfig({ name: "peer", systemDatabaseUrl: sysUrl.toString(), logLevel: "error", systemDatabasePoolSize: 20 });
  await DBOS.launch();
  let seq = 0;
  const engine: Engine = {
    name: "dbos",
    sequential: async (steps) => {
      const key = `d${++seq}`;
      const t0 = performance.now();
      const handle = await DBOS.startWorkflow(workflow)(key, steps);
      await handle.getResult();
      const end = performance.now();
      const m = marks.get(key) ?? [];
      if (m.length !== steps) throw new Error(`dbos: ${m.length} step bodies ran for ${steps} steps`);
      return gaps(t0, m, end);
    },
    concurrent: async (runs, steps) => {
      const t0 = performance.now();
      const handles = await Promise.all(Array.from({ length: runs }, () => DBOS.startWorkflow(workflow)(`d${++seq}`, steps)));
      await Promise.all(handles.map((h) => h.getResult()));
      return performance.now() - t0;
    },
  };
  return { engine, stop: () => DBOS.shutdown() };
}

async function main(): Promise<number> {
  const rounds = intFlag("rounds", 2, 1, 20);
  const which = flag("engine", "both");
  if (!["both", "longhaul", "dbos"].includes(which)) throw new Error(`--engine must be both, longhaul or dbos, got "${which}"`);
  const stepCounts = flag("steps", "100,1000")
    .split(",")
    .map((s) => {
      const n = Number(s);
      if (!Number.isInteger(n) || n < 1 || n > 1000)
        throw new Error(`--steps: each count must be an integer from 1 to 1000 (the executor's 1,000-step limit per run), got "${s}"`);
      return n;
    });
  const runs = intFlag("runs", 100, 1, 1000);
  const runSteps = intFlag("run-steps", 20, 1, 500);
  const db = await startBenchDatabase({ name: "bench_peer", tag: TAG });
  const engines: { engine: Engine; stop: () => Promise<void> }[] = [];
  try {
    if (which !== "dbos") engines.push(await longhaulEngine(db.url));
    if (which !== "longhaul") engines.push(await dbosEngine(db.url));
    const samples = new Map<string, number[]>();
    const throughput = new Map<string, number[]>();
    // Warm-up (JIT, connection pools, prepared statements) outside the figures.
    for (const { engine } of engines) {
      await engine.sequential(20);
      await engine.concurrent(10, 5);
    }
    for (let r = 0; r < rounds; r++) {
      // Alternate the order every round so neither engine always goes first.
      const order = r % 2 === 0 ? engines : [...engines].reverse();
      for (const { engine } of order) {
        for (const n of stepCounts) {
          const g = await engine.sequential(n);
          const key = `${engine.name}:${n}`;
          samples.set(key, [...(samples.get(key) ?? []), ...g]);
          const sorted = [...g].sort((a, b) => a - b);
          progress(TAG, `round ${r + 1}/${rounds} ${engine.name} ${n} steps: p50 ${round(percentile(sorted, 50))} ms, p95 ${round(percentile(sorted, 95))} ms`);
        }
        const wall = await engine.concurrent(runs, runSteps);
        const sps = (runs * runSteps) / (wall / 1000);
        throughput.set(engine.name, [...(throughput.get(engine.name) ?? []), sps]);
        progress(TAG, `round ${r + 1}/${rounds} ${engine.name} ${runs}×${runSteps} concurrent: ${round(sps, 0)} steps/s (${round(wall, 0)} ms)`);
      }
    }
    const perSteps: Record<string, Record<string, { p50: number; p95: number }>> = {};
    for (const { engine } of engines) {
      perSteps[engine.name] = {};
      for (const n of stepCounts) {
        const sorted = [...(samples.get(`${engine.name}:${n}`) ?? [])].sort((a, b) => a - b);
        perSteps[engine.name]![String(n)] = { p50: round(percentile(sorted, 50), 3), p95: round(percentile(sorted, 95), 3) };
      }
    }
    const median = (xs: number[] | undefined) => (xs?.length ? round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!, 0) : null);
    const first = String(stepCounts[0]);
    const l = perSteps.longhaul?.[first]?.p50 ?? null;
    const d = perSteps.dbos?.[first]?.p50 ?? null;
    const result = {
      longhaulStepMsP50: l,
      dbosStepMsP50: d,
      ratio: l !== null && d ? round(l / d, 2) : null,
      longhaulThroughput: median(throughput.get("longhaul")),
      dbosThroughput: median(throughput.get("dbos")),
      perSteps,
      rounds,
      concurrent: { runs, steps: runSteps },
    };
    console.log(JSON.stringify(result));
    return 0;
  } finally {
    for (const e of engines.reverse()) await e.stop().catch((error: unknown) => progress(TAG, `stop failed: ${String(error)}`));
    await db.stop();
  }
}

runScript(main, USAGE);
