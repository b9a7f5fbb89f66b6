import { env } from "../env.ts";
import { changeFeed } from "../db/change-feed.ts";
import { prisma } from "../db/prisma.ts";
import { createRunTraceEmitter, exportFinishedRuns, traceExportConfig, type RunTraceEmitter } from "./export-run-trace.ts";

let started: { emitters: RunTraceEmitter[]; timer: NodeJS.Timeout; unsubscribe: () => void; idle: () => Promise<unknown>; stop: () => void } | undefined;

/**
 * Starts exporting finished runs as OpenTelemetry traces in this process (the web app, at boot), when
 * {@link traceExportConfig} says so; otherwise does nothing and returns false. A pass
 * ({@link exportFinishedRuns}) runs at start, every `intervalMs` (default 30 s, catching runs that
 * ended while no web process ran), and shortly after the change feed reports a write to a task's runs
 * (only that task's runs are looked at then). The sweeps and the task passes run side by side, each
 * lane in order with its own exporter — the claims in `run_trace_export` keep a run exported once —
 * so a backlog swept at boot (up to 50 runs a pass) never delays the trace of a run that ends now.
 * Idempotent; timers do not keep the process alive; a failed pass (database away) logs one line per
 * streak of failures.
 */
export function startTraceExport({ intervalMs = 30_000 }: { intervalMs?: number } = {}): boolean {
  if (started) return true;
  const config = traceExportConfig();
  if (!config.enabled) return false;
  const sweepEmitter = createRunTraceEmitter();
  const liveEmitter = createRunTraceEmitter();
  let failing = false;
  let stopped = false;
  let sweeping: Promise<void> = Promise.resolve();
  let live: Promise<void> = Promise.resolve();
  const pass = (taskId?: string) => {
    if (stopped) return;
    const emitter = taskId ? liveEmitter : sweepEmitter;
    const run = async () => {
      try {
        const { exported, failed } = await exportFinishedRuns({ prisma: prisma(), emitter, taskId, stopped: () => stopped });
        if (failed.length) process.stderr.write(`[traces] export to ${config.endpoint} failed for ${failed.length} run(s): ${failed[0]!.error}\n`);
        if (exported.length && env().LONGHAUL_TRACE_LOG) process.stderr.write(`[traces] exported ${JSON.stringify(exported)}\n`);
        failing = false;
      } catch (error) {
        if (!failing)
          process.stderr.write(`[traces] export pass failed (retried every ${intervalMs} ms): ${error instanceof Error ? error.message : String(error)}\n`);
        failing = true;
      }
    };
    if (taskId) live = live.then(run);
    else sweeping = sweeping.then(run);
  };
  const pending = new Map<string, NodeJS.Timeout>();
  const unsubscribe = changeFeed().subscribe((e) => {
    if (e.t !== "run" && e.t !== "escalation") return;
    if (!e.taskId) return;
    const taskId = e.taskId;
    if (pending.has(taskId)) return;
    // A short delay gathers the burst of writes that ends a run (run, task, escalation rows).
    const t = setTimeout(() => {
      pending.delete(taskId);
      pass(taskId);
    }, 250);
    t.unref();
    pending.set(taskId, t);
  });
  const timer = setInterval(() => pass(), intervalMs);
  timer.unref();
  pass();
  const stop = () => {
    stopped = true;
    for (const t of pending.values()) clearTimeout(t);
  };
  started = { emitters: [sweepEmitter, liveEmitter], timer, unsubscribe, idle: () => Promise.all([sweeping, live]), stop };
  process.stderr.write(`[traces] exporting finished runs to ${config.endpoint}\n`);
  return true;
}

/** Stops what {@link startTraceExport} started (tests, shutdown): no new passes; waits for the run being exported in each lane (a pass ends there), then shuts the exporters down. */
export async function stopTraceExport(): Promise<void> {
  const s = started;
  if (!s) return;
  started = undefined;
  s.stop();
  s.unsubscribe();
  clearInterval(s.timer);
  await s.idle();
  await Promise.all(s.emitters.map((e) => e.shutdown()));
}
