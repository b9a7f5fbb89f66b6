/**
 * `npm run bench:executor [-- --steps 200 --mode both|checkpoint|classic --verbose]`
 *
 * Measures the embedded executor's overhead per step: an ephemeral embedded PostgreSQL (free port,
 * tmp dir, migrations applied), the executor (in-process, signed mode) and a real inngest@4.24.0
 * function with N no-op `step.run`s served by `serve()` from `inngest/node` on a plain node:http
 * server. Per-step overhead = the gap between the end of one step body and the start of the next
 * (the first sample: event sent → first body; the last: last body → run completed), i.e. wall time
 * per step minus time inside the step body. Everything runs in this one Node process (executor, SDK,
 * HTTP both ways), so the figures include the SDK's own work and the PostgreSQL round trips.
 *
 * Progress goes to stderr; the LAST stdout line is one compact JSON object:
 * `{steps, mode, stepOverheadMsP50, stepOverheadMsP95, stepOverheadMsMean, wallMs, bodyMs, classic?: {…}}`.
 */
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createInngestClient } from "../server/inngest/sdk-transport.ts";
import { serve } from "inngest/node";
import { startEmbeddedPostgres } from "../server/db/embedded-postgres.ts";
import { applyMigrations } from "../server/db/migrations.ts";
import { startExecutor } from "../server/executor/index.ts";
import { freePort, percentile, round } from "./lib/bench-stack.ts";
import { defineScript, parseScriptArgs } from "./lib/script-args.ts";

const SCRIPT = defineScript({
  program: "npm run bench:executor --",
  summary: "The embedded executor's overhead per step: no-op steps of a real inngest function, executor and SDK in this process.",
  flags: {
    steps: { type: "string", value: "<n>", description: "no-op steps of the function", int: { min: 1, max: 100_000 }, default: 200 },
    mode: {
      type: "string",
      value: "<mode>",
      description: "checkpoint (async checkpointing), classic (one request per step) or both",
      choices: ["both", "checkpoint", "classic"],
      default: "both",
    },
    verbose: { type: "boolean", description: "print the executor's log lines (stderr)" },
  },
  examples: ["npm run bench:executor", "npm run bench:executor -- --steps 50 --mode checkpoint"],
});
const flags = parseScriptArgs(SCRIPT);

const SIGNING_KEY = "signkey-bench-0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";
const EVENT_KEY = "bench-event-key";

interface ModeResult {
  steps: number;
  mode: "checkpoint" | "classic";
  stepOverheadMsP50: number;
  stepOverheadMsP95: number;
  stepOverheadMsMean: number;
  wallMs: number;
  bodyMs: number;
  requests: number;
}

async function benchMode(databaseUrl: string, mode: "checkpoint" | "classic", steps: number): Promise<ModeResult> {
  const executor = await startExecutor({
    databaseUrl,
    port: 0,
    signingKey: SIGNING_KEY,
    eventKey: EVENT_KEY,
    appUrls: [],
    backoffMs: [50, 100, 200],
    checkpointing: mode === "checkpoint",
    log: flags.verbose ? (l) => process.stderr.write(`[executor] ${l}\n`) : () => {},
  });
  const client = createInngestClient({ id: `bench-${mode}`, signingKey: SIGNING_KEY, eventKey: EVENT_KEY, baseUrl: executor.url });
  const starts = new Map<string, number[]>();
  const ends = new Map<string, number[]>();
  const fn = client.createFunction({ id: "noop-steps", retries: 0, triggers: [{ event: `bench/${mode}.start` }] }, async ({ step, runId }) => {
    for (let i = 0; i < steps; i++) {
      await step.run(`s${i}`, () => {
        (starts.get(runId) ?? starts.set(runId, []).get(runId)!).push(performance.now());
        const r = i;
        (ends.get(runId) ?? ends.set(runId, []).get(runId)!).push(performance.now());
        return r;
      });
    }
    return steps;
  });
  const handler = serve({ client, functions: [fn] });
  let requests = 0;
  const port = await freePort();
  const app = createServer((req, res) => {
    if (req.method === "POST") requests++;
    void handler(req, res);
  });
  await new Promise<void>((r) => app.listen(port, "127.0.0.1", () => r()));
  const appUrl = `http://127.0.0.1:${port}/api/inngest`;
  try {
    await executor.sync(appUrl);
    process.stderr.write(`[bench] ${mode}: ${steps} no-op steps…\n`);
    const t0 = performance.now();
    const res = await fetch(`${executor.url}/e/${EVENT_KEY}`, { method: "POST", body: JSON.stringify({ name: `bench/${mode}.start`, data: {} }) });
    const { ids } = (await res.json()) as { ids: string[] };
    let runId = "";
    let done = 0;
    let lastProgress = 0;
    for (;;) {
      if (!runId) {
        const runs = await executor.db.executorRun.findMany({ where: { functionId: `bench-${mode}-noop-steps` }, select: { id: true, event: true } });
        runId = runs.find((r) => (r.event as { id: string }).id === ids[0])?.id ?? "";
      }
      if (runId) {
        const run = await executor.db.executorRun.findUnique({ where: { id: runId }, select: { status: true } });
        if (run && ["completed", "failed", "cancelled"].includes(run.status)) {
          if (run.status !== "completed") throw new Error(`bench run ${run.status}`);
          done = performance.now();
          break;
        }
        const n = starts.get(runId)?.length ?? 0;
        if (n - lastProgress >= 50) {
          lastProgress = n;
          process.stderr.write(`[bench] ${mode}: ${n}/${steps} steps\n`);
        }
      }
      if (performance.now() - t0 > 600_000) throw new Error("bench timed out");
      await new Promise((r) => setTimeout(r, 5));
    }
    const s = starts.get(runId) ?? [];
    const e = ends.get(runId) ?? [];
    if (s.length < steps) throw new Error(`only ${s.length} of ${steps} step bodies ran`);
    // Each body ran exactly once (memoized afterwards); take the first start/end per step.
    const gaps: number[] = [s[0]! - t0];
    for (let i = 1; i < steps; i++) gaps.push(s[i]! - e[i - 1]!);
    gaps.push(done - e[steps - 1]!);
    const bodyMs = s.slice(0, steps).reduce((acc, st, i) => acc + (e[i]! - st), 0);
    const wallMs = done - t0;
    const sorted = gaps.slice(0, steps).sort((a, b) => a - b);
    const result: ModeResult = {
      steps,
      mode,
      stepOverheadMsP50: round(percentile(sorted, 50)),
      stepOverheadMsP95: round(percentile(sorted, 95)),
      stepOverheadMsMean: round((wallMs - bodyMs) / steps),
      wallMs: round(wallMs),
      bodyMs: round(bodyMs),
      requests,
    };
    process.stderr.write(`[bench] ${mode}: ${JSON.stringify(result)}\n`);
    return result;
  } finally {
    await new Promise<void>((r) => {
      app.close(() => r());
      app.closeAllConnections();
    });
    await executor.stop();
  }
}

async function main(): Promise<void> {
  const { steps, mode } = flags;
  const dir = mkdtempSync(join(tmpdir(), "longhaul-bench-pg-"));
  process.stderr.write(`[bench] starting embedded PostgreSQL in ${dir}\n`);
  const pg = await startEmbeddedPostgres({ dir, port: await freePort(), database: "longhaul_bench", ephemeral: true });
  try {
    await applyMigrations(pg.url);
    const results: ModeResult[] = [];
    if (mode !== "classic") results.push(await benchMode(pg.url, "checkpoint", steps));
    if (mode !== "checkpoint") results.push(await benchMode(pg.url, "classic", steps));
    const [primary, secondary] = results;
    console.log(JSON.stringify({ ...primary, ...(secondary ? { [secondary.mode]: secondary } : {}) }));
  } finally {
    await pg.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
