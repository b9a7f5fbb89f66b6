/**
 * `npm run bench:peer [-- --rounds 5 --engine both|longhaul|dbos --steps 100,1000 --runs 100 --run-steps 20]`
 *
 * Longhaul's embedded executor against a peer durable engine, DBOS Transact
 * (`@dbos-inc/dbos-sdk` 5.3.0, a dependency of this folder's own package — bench/peer/package.json, installed by `npm run bench:peer`, never by the app's `npm ci`; docs/STACK.md pitfall 11), on the same
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
 * Rounds: at least 5 (default 5), engines alternated (A B, B A, …). `spread` gives, per engine,
 * the min / median / max over rounds of the round's p50 per step count and of its throughput, and
 * `relSpread` = (max − min) ÷ median: how much one round can be trusted against another.
 *
 * Durability, checked inside the benchmark: in every sequential run, the body of step i (i ≥ 1)
 * first reads, on its own connection, whether step i − 1's result is committed in the engine's own
 * table — Longhaul: `executor_step_result` (run id, step name), DBOS: `dbos.operation_outputs`
 * (workflow id, function name). A step that starts before its predecessor is committed is a
 * violation; `durability.<engine>.violations` must be 0 (`pass`, exit code). The read happens inside
 * the body (between its start and end marks), so it is not counted in the per-step gaps. The
 * concurrent (throughput) runs are not probed, so their load is the engines' alone.
 *
 * Progress goes to stderr; the LAST stdout line is one JSON object: `longhaulStepMsP50`,
 * `dbosStepMsP50`, `ratio` (Longhaul ÷ DBOS, p50 at the first --steps count), `longhaulThroughput`,
 * `dbosThroughput` (steps/s, median over rounds), `perSteps` with p50/p95 per engine and step count,
 * `spread`, `durability` and `pass`.
 */
import { createServer } from "node:http";
import { performance } from "node:perf_hooks";
import { DBOS } from "@dbos-inc/dbos-sdk";
import { createInngestClient } from "../../server/inngest/sdk-transport.ts";
import pg from "pg";
import { serve } from "inngest/node";
import { startExecutor } from "../../server/executor/index.ts";
import { flag, freePort, intFlag, percentile, progress, round, runScript, startBenchDatabase } from "../../scripts/lib/bench-stack.ts";

const SIGNING_KEY = "signkey-bench-0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";
const EVENT_KEY = "bench-event-key";
const TAG = "bench:peer";

const USAGE = `npm run bench:peer [-- --rounds 5 --engine both|longhaul|dbos --steps 100,1000 --runs 100 --run-steps 20]
Per-step overhead (p50/p95) and throughput of the embedded executor vs DBOS Transact 5.3.0 on one embedded PostgreSQL.
Last stdout line: JSON {longhaulStepMsP50, dbosStepMsP50, ratio, longhaulThroughput, dbosThroughput, perSteps, spread, durability, pass, …}.`;

/** Minimum rounds ("at least five alternated rounds"). */
const MIN_ROUNDS = 5;

/**
 * The in-benchmark durability probe of one engine: `check(run, previousStep)` reads (own pool,
 * read committed) whether the previous step's result row is committed, and counts the answer.
 */
function durabilityProbe(url: string, sql: string) {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  // The cluster is stopped at the end with this pool's idle clients still connected: their
  // "terminating connection" must not crash the process after the result is printed.
  pool.on("error", () => {});
  const counts = { checked: 0, violations: 0, firstViolation: null as string | null };
  return {
    counts,
    async check(run: string, previousStep: string): Promise<void> {
      const { rowCount } = await pool.query(sql, [run, previousStep]);
      counts.checked++;
      if (!rowCount) {
        counts.violations++;
        counts.firstViolation ??= `${run} ${previousStep}`;
      }
    },
    stop: () => pool.end(),
  };
}
type DurabilityProbe = ReturnType<typeof durabilityProbe>;

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

async function longhaulEngine(databaseUrl: string, probe: DurabilityProbe): Promise<{ engine: Engine; stop: () => Promise<void> }> {
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
  const client = createInngestClient({ id: "peer", signingKey: SIGNING_KEY, eventKey: EVENT_KEY, baseUrl: executor.url, checkpointing: true });
  const marks = new Map<string, { start: number; end: number }[]>();
  const fn = client.createFunction({ id: "noop", retries: 0, triggers: [{ event: "peer/noop" }] }, async ({ event, step, runId }) => {
    const key = String(event.data.key);
    const steps = Number(event.data.steps);
    const verify = Boolean(event.data.verify);
    for (let i = 0; i < steps; i++) {
      await step.run(`s${i}`, async () => {
        const start = performance.now();
        if (verify && i > 0) await probe.check(runId, `s${i - 1}`);
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
  const send = async (events: { key: string; steps: number; verify?: boolean }[]): Promise<string[]> => {
    const res = await fetch(`${executor.url}/e/${EVENT_KEY}`, { method: "POST", body: JSON.stringify(events.map((e) => ({ name: "peer/noop", data: e }))) });
    return ((await res.json()) as { ids: string[] }).ids;
  };
  const engine: Engine = {
    name: "longhaul",
    sequential: async (steps) => {
      const key = `k${++seq}`;
      const t0 = performance.now();
      const [id] = await send([{ key, steps, verify: true }]);
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

/** DBOS's system database beside Longhaul's, on the same cluster. */
function dbosSystemUrl(databaseUrl: string): string {
  const sysUrl = new URL(databaseUrl);
  sysUrl.pathname = "/peer_dbos_sys";
  return sysUrl.toString();
}

async function dbosEngine(databaseUrl: string, probe: DurabilityProbe): Promise<{ engine: Engine; stop: () => Promise<void> }> {
  const sysUrl = dbosSystemUrl(databaseUrl);
  const marks = new Map<string, { start: number; end: number }[]>();
  const workflow = DBOS.registerWorkflow(
    async (key: string, steps: number, verify: boolean) => {
      for (let i = 0; i < steps; i++) {
        await DBOS.runStep(
          async () => {
            const start = performance.now();
            if (verify && i > 0) await probe.check(DBOS.workflowID!, `s${i - 1}`);
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
  DBOS.setConfig({ name: "peer", systemDatabaseUrl: sysUrl, logLevel: "error", systemDatabasePoolSize: 20 });
  await DBOS.launch();
  let seq = 0;
  const engine: Engine = {
    name: "dbos",
    sequential: async (steps) => {
      const key = `d${++seq}`;
      const t0 = performance.now();
      const handle = await DBOS.startWorkflow(workflow)(key, steps, true);
      await handle.getResult();
      const end = performance.now();
      const m = marks.get(key) ?? [];
      if (m.length !== steps) throw new Error(`dbos: ${m.length} step bodies ran for ${steps} steps`);
      return gaps(t0, m, end);
    },
    concurrent: async (runs, steps) => {
      const t0 = performance.now();
      const handles = await Promise.all(Array.from({ length: runs }, () => DBOS.startWorkflow(workflow)(`d${++seq}`, steps, false)));
      await Promise.all(handles.map((h) => h.getResult()));
      return performance.now() - t0;
    },
  };
  return { engine, stop: () => DBOS.shutdown() };
}

async function main(): Promise<number> {
  const rounds = intFlag("rounds", MIN_ROUNDS, MIN_ROUNDS, 50);
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
  const probes: Partial<Record<Engine["name"], DurabilityProbe>> = {};
  try {
    if (which !== "dbos") {
      probes.longhaul = durabilityProbe(db.url, `SELECT 1 FROM executor_step_result WHERE "runId" = $1 AND name = $2`);
      engines.push(await longhaulEngine(db.url, probes.longhaul));
    }
    if (which !== "longhaul") {
      probes.dbos = durabilityProbe(dbosSystemUrl(db.url), `SELECT 1 FROM dbos.operation_outputs WHERE workflow_uuid = $1 AND function_name = $2`);
      engines.push(await dbosEngine(db.url, probes.dbos));
    }
    const samples = new Map<string, number[]>();
    const throughput = new Map<string, number[]>();
    /** Per engine and step count, each round's p50 (ms). */
    const roundP50 = new Map<string, number[]>();
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
          roundP50.set(key, [...(roundP50.get(key) ?? []), percentile(sorted, 50)]);
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
    const spreadOf = (xs: number[], digits: number) => {
      const sorted = [...xs].sort((a, b) => a - b);
      const mid = sorted[Math.floor(sorted.length / 2)]!;
      return {
        min: round(sorted[0]!, digits),
        median: round(mid, digits),
        max: round(sorted.at(-1)!, digits),
        relSpread: round((sorted.at(-1)! - sorted[0]!) / mid, 2),
      };
    };
    const spread: Record<string, { throughput: ReturnType<typeof spreadOf>; stepMsP50: Record<string, ReturnType<typeof spreadOf>> }> = {};
    for (const { engine } of engines) {
      spread[engine.name] = {
        throughput: spreadOf(throughput.get(engine.name) ?? [0], 0),
        stepMsP50: Object.fromEntries(stepCounts.map((n) => [String(n), spreadOf(roundP50.get(`${engine.name}:${n}`) ?? [0], 3)])),
      };
    }
    const durability = Object.fromEntries(Object.entries(probes).map(([name, p]) => [name, p.counts]));
    const pass = Object.values(probes).every((p) => p.counts.checked > 0 && p.counts.violations === 0);
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
      spread,
      durability,
      pass,
      rounds,
      concurrent: { runs, steps: runSteps },
    };
    console.log(JSON.stringify(result));
    return pass ? 0 : 1;
  } finally {
    for (const e of engines.reverse()) await e.stop().catch((error: unknown) => progress(TAG, `stop failed: ${String(error)}`));
    for (const p of Object.values(probes)) await p.stop().catch(() => {});
    await db.stop();
  }
}

runScript(main, USAGE);
