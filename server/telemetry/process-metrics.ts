import { collectDefaultMetrics, Gauge, Registry } from "prom-client";
import { traceExportStats } from "./trace-export.ts";

/**
 * The web process's Prometheus metrics (`GET /api/metrics`, admins): prom-client's default process
 * metrics — resident memory, heap used and total, event-loop delay percentiles since the previous
 * scrape (`nodejs_eventloop_lag_p99_seconds`), GC — and the trace export's counters
 * (`longhaul_trace_spans_total{outcome}`: queued, sent, unconfirmed, failed, dropped;
 * `longhaul_trace_spans_pending`). One registry per process, kept on `globalThis`: Next.js bundles
 * route handlers and the start-up hook apart, and each bundle would otherwise count on its own.
 */
export function processMetrics(): Registry {
  const holder = globalThis as unknown as { longhaulProcessMetrics?: Registry };
  if (holder.longhaulProcessMetrics) return holder.longhaulProcessMetrics;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: "longhaul_trace_spans_total",
    help: "Spans of the trace export since the process started, by outcome: queued, sent (2xx), unconfirmed (timed out after sending; not sent again), failed (sent again later), dropped (no room in the queue; sent by a later pass)",
    labelNames: ["outcome"],
    registers: [registry],
    collect() {
      const s = traceExportStats();
      for (const outcome of ["queued", "sent", "unconfirmed", "failed", "dropped"] as const) this.set({ outcome }, s ? s[outcome] : 0);
    },
  });
  new Gauge({
    name: "longhaul_trace_spans_pending",
    help: "Spans of the trace export queued or in a request now",
    registers: [registry],
    collect() {
      this.set(traceExportStats()?.pending ?? 0);
    },
  });
  holder.longhaulProcessMetrics = registry;
  return registry;
}
