import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { env } from "../env.ts";
import { changeFeed } from "../db/change-feed.ts";
import { prisma } from "../db/prisma.ts";
import { exportRuns, recordBatch, renewClaims, traceExportConfig } from "./export-run-trace.ts";
import { createSpanPipeline, type SpanPipeline, type SpanPipelineStats } from "./span-pipeline.ts";

interface Started {
  pipeline: SpanPipeline;
  timer: NodeJS.Timeout;
  unsubscribe: () => void;
  idle: () => Promise<unknown>;
  stop: () => void;
  endpoint: string;
}
/** The export of this process, on `globalThis`: Next.js bundles the start-up hook and the route handlers (GET /api/metrics) apart. */
const holder = globalThis as unknown as { longhaulTraceExport?: Started };

/** Wait after a failed export request before spans are handed over again: doubles from 1 s to at most 60 s, back to none after a success. */
const BACKOFF_MS = { first: 1_000, max: 60_000 };

/**
 * Starts exporting runs as OpenTelemetry traces in this process (the web app, at boot), when
 * {@link traceExportConfig} says so; otherwise does nothing and returns false.
 *
 * Passes ({@link exportRuns}) run at start, every `intervalMs` (default 30 s: runs written while no
 * web process ran, spans whose export failed), and shortly after the change feed reports a write to a
 * task's steps, runs or escalations (only that task's runs then) — so a step's span leaves soon after
 * the step ends, and the run's when the run ends. Passes only hand spans to a bounded queue
 * ({@link createSpanPipeline}, `OTEL_BSP_*`); the SDK sends it in the background, so a slow or absent
 * collector never holds a request up. What the queue has no room for is dropped from it, counted and
 * logged, and sent by a later pass (the spans are made from committed rows). After a failed request
 * passes back off (1 s doubling to 60 s). One log line per streak of failures, of drops, of
 * unconfirmed requests. Idempotent; timers do not keep the process alive.
 */
export function startTraceExport({ intervalMs = 30_000 }: { intervalMs?: number } = {}): boolean {
  if (holder.longhaulTraceExport) return true;
  const config = traceExportConfig();
  if (!config.enabled) return false;
  const e = env();
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  const log = (line: string) => process.stderr.write(`[traces] ${line}\n`);
  let failing = false;
  let passFailing = false;
  let dropping = false;
  let holdUntil = 0;
  let backoff = 0;
  let stopped = false;
  const maxQueueSize = e.OTEL_BSP_MAX_QUEUE_SIZE ?? 2048;

  const pipeline = createSpanPipeline({
    maxQueueSize,
    scheduledDelayMillis: e.OTEL_BSP_SCHEDULE_DELAY ?? 5_000,
    maxExportBatchSize: Math.min(e.OTEL_BSP_MAX_EXPORT_BATCH_SIZE ?? 512, maxQueueSize),
    async onBatch(spans, outcome, error) {
      if (outcome === "failed") {
        backoff = Math.min(backoff ? backoff * 2 : BACKOFF_MS.first, BACKOFF_MS.max);
        holdUntil = Date.now() + backoff;
        if (!failing)
          log(
            `export of ${spans.length} span(s) to ${config.endpoint} failed (${error?.message ?? "no reason given"}); they are sent again after ${backoff} ms`,
          );
        failing = true;
      } else {
        if (failing) log(`export to ${config.endpoint} works again`);
        failing = false;
        backoff = 0;
        holdUntil = 0;
        if (outcome === "unconfirmed")
          log(
            `${spans.length} span(s): ${config.endpoint} did not answer within the export timeout (OTEL_EXPORTER_OTLP_TIMEOUT); it may have stored them, so they are not sent again`,
          );
      }
      await recordBatch({ prisma: prisma(), spans, outcome, error });
      // Runs that may now be complete are closed by a pass soon, not at the next sweep.
      if (outcome !== "failed") schedule({ runIds: [...new Set(spans.map((s) => s.runId))] });
    },
    onError: (error) => log(`recording an export's outcome failed: ${error instanceof Error ? error.message : String(error)}`),
  });

  let sweeping: Promise<void> = Promise.resolve();
  let live: Promise<void> = Promise.resolve();
  const pass = (scope: { taskId?: string; runIds?: string[] } = {}) => {
    if (stopped) return;
    const sweep = !scope.taskId && !scope.runIds;
    const run = async () => {
      try {
        if (sweep) await renewClaims({ prisma: prisma(), owner, runIds: pipeline.pendingRuns() });
        const results = await exportRuns({ prisma: prisma(), pipeline, owner, ...scope, canSend: () => Date.now() >= holdUntil, stopped: () => stopped });
        const dropped = results.reduce((n, r) => n + r.dropped, 0);
        if (dropped > 0 && !dropping)
          log(
            `the export queue is full (OTEL_BSP_MAX_QUEUE_SIZE=${maxQueueSize}): ${dropped} span(s) dropped from it (${pipeline.stats().dropped} so far); a later pass sends them`,
          );
        dropping = dropped > 0;
        const completed = results.filter((r) => r.completed).map((r) => r.runId);
        if (completed.length && e.LONGHAUL_TRACE_LOG) log(`exported ${JSON.stringify(completed)}`);
        passFailing = false;
      } catch (error) {
        if (!passFailing) log(`export pass failed (retried every ${intervalMs} ms): ${error instanceof Error ? error.message : String(error)}`);
        passFailing = true;
      }
    };
    if (sweep) sweeping = sweeping.then(run);
    else live = live.then(run);
  };

  // One pending pass per task (or set of runs) at a time: a burst of writes asks for one pass.
  const pending = new Map<string, NodeJS.Timeout>();
  const schedule = (scope: { taskId?: string; runIds?: string[] }) => {
    const key = scope.taskId ?? `runs:${(scope.runIds ?? []).join(",")}`;
    if (stopped || pending.has(key)) return;
    // A short delay gathers the burst of writes that ends a step or a run (step, model call, run, task rows).
    const t = setTimeout(() => {
      pending.delete(key);
      pass(scope);
    }, 250);
    t.unref();
    pending.set(key, t);
  };
  const unsubscribe = changeFeed().subscribe((event) => {
    if (event.t !== "run" && event.t !== "escalation" && event.t !== "step") return;
    if (event.taskId) schedule({ taskId: event.taskId });
  });
  const timer = setInterval(() => pass(), intervalMs);
  timer.unref();
  pass();
  const stop = () => {
    stopped = true;
    for (const t of pending.values()) clearTimeout(t);
  };
  holder.longhaulTraceExport = { pipeline, timer, unsubscribe, idle: () => Promise.all([sweeping, live]), stop, endpoint: config.endpoint! };
  log(`exporting runs to ${config.endpoint} as they run (queue of ${maxQueueSize} spans)`);
  return true;
}

/** The export's counters in this process (spans queued, sent, unconfirmed, failed, dropped, pending), or null when export is off. */
export function traceExportStats(): (SpanPipelineStats & { endpoint: string }) | null {
  const s = holder.longhaulTraceExport;
  return s ? { ...s.pipeline.stats(), endpoint: s.endpoint } : null;
}

/** Stops what {@link startTraceExport} started (tests, shutdown): no new passes; waits for the passes running, sends what is queued (within the exporter's timeout), then shuts the exporter down. */
export async function stopTraceExport(): Promise<void> {
  const s = holder.longhaulTraceExport;
  if (!s) return;
  holder.longhaulTraceExport = undefined;
  s.stop();
  s.unsubscribe();
  clearInterval(s.timer);
  await s.idle();
  await s.pipeline.shutdown();
}
