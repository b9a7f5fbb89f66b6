import { ROOT_CONTEXT, SpanStatusCode, trace, TraceFlags, type Link } from "@opentelemetry/api";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor, type IdGenerator, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import { spanIdOf, traceIdOfRun, type TraceSpanSpec } from "./run-trace.ts";

/**
 * The way spans leave the process: a bounded queue drained in the background by the OpenTelemetry
 * SDK's `BatchSpanProcessor` into its OTLP/HTTP exporter. Handing spans over never waits on the
 * network; what does not fit in the queue is dropped from it (counted, logged by the caller) and,
 * being made from committed rows, sent by a later pass. Each exported batch's outcome is reported
 * per span, so the caller can record which spans a collector answered for and never send them again.
 */

/** One span of a run's trace as the pipeline knows it. */
export interface SpanRef {
  runId: string;
  /** Key inside the run's trace (`run`, `step:model-3`, …). */
  key: string;
  spanId: string;
}

/**
 * TraceSpanExport.state: what a collector answered for a stored span — `sent` (2xx) or `unconfirmed`
 * (timed out after sending; it may be stored). Neither is sent again. Also a CHECK constraint on the
 * column (migration status_checks).
 */
export const SPAN_EXPORT_STATES = ["sent", "unconfirmed"] as const;
export type SpanExportState = (typeof SPAN_EXPORT_STATES)[number];

/**
 * What a collector did with one export request:
 * - `sent`: a 2xx answer — stored; never sent again;
 * - `unconfirmed`: the request timed out after it was made — the collector may have stored it, so
 *   it is not sent again either (sending it again is how a run reached a collector three times);
 * - `failed`: refused (an error status after the SDK's own retries, 429/502/503/504 within its
 *   timeout), unreachable, or never sent (the exporter's concurrency limit) — not stored, so sent
 *   again by a later pass.
 */
export type BatchOutcome = SpanExportState | "failed";

/** Counters since the pipeline started (spans). */
export interface SpanPipelineStats {
  /** Accepted into the queue. */
  queued: number;
  sent: number;
  unconfirmed: number;
  failed: number;
  /** Not accepted: the queue held `maxQueueSize` spans already. */
  dropped: number;
  /** Spans in the queue or in a request now. */
  pending: number;
}

export interface SpanPipeline {
  /**
   * Hands the spans of one run's tree (parents before children, {@link flattenTrace} order) to the
   * queue, skipping any already pending in this process. Synchronous and bounded: never waits on the
   * network. Spans beyond the queue's room are dropped (counted in {@link SpanPipelineStats.dropped}).
   * @returns how many were queued and dropped.
   */
  enqueue(runId: string, spans: readonly { span: TraceSpanSpec; parentKey: string | null }[]): { queued: number; dropped: number };
  /** Whether span `key` of run `runId` is queued or in a request in this process. */
  pending(runId: string, key: string): boolean;
  /** Runs with spans pending in this process. */
  pendingRuns(): string[];
  /** Runs `fn` when no other `exclusive` call for `runId` runs (passes over one run never overlap in a process). */
  exclusive<T>(runId: string, fn: () => Promise<T>): Promise<T>;
  stats(): SpanPipelineStats;
  /** Sends what is queued now and waits for the answers. */
  flush(): Promise<void>;
  /** Flushes, then shuts the exporter down. */
  shutdown(): Promise<void>;
}

/** Ids chosen by the caller for the next span started: the trace and span ids derive from the run (run-trace.ts). */
class PlannedIds implements IdGenerator {
  traceId = "";
  spanId = "";
  generateTraceId(): string {
    return this.traceId;
  }
  generateSpanId(): string {
    return this.spanId;
  }
}

/** A request that timed out: the SDK's HTTP transport reports "Request timed out" (otlp-exporter-base). */
export function isTimeout(error: unknown): boolean {
  return error instanceof Error && /timed? ?out/i.test(error.message);
}

/**
 * A pipeline over the SDK: a private `BasicTracerProvider` (never registered globally, so it does not
 * meet Inngest's own instrumentation) with planned ids, a `BatchSpanProcessor` (`maxQueueSize`,
 * `scheduledDelayMillis`, `maxExportBatchSize` as the OTel spec's `OTEL_BSP_*` variables say, defaults
 * 2048 / 5000 ms / 512) and by default the `OTLPTraceExporter` (OTLP/HTTP JSON; endpoint, headers and
 * `OTEL_EXPORTER_OTLP_TIMEOUT` from the standard variables). `onBatch` is called once per export
 * request with its spans and outcome (and the error, if any); its rejection is reported to `onError`.
 */
export function createSpanPipeline({
  exporter = new OTLPTraceExporter(),
  maxQueueSize = 2048,
  scheduledDelayMillis = 5_000,
  maxExportBatchSize = 512,
  onBatch,
  onError = () => {},
}: {
  exporter?: SpanExporter;
  maxQueueSize?: number;
  scheduledDelayMillis?: number;
  maxExportBatchSize?: number;
  onBatch: (spans: SpanRef[], outcome: BatchOutcome, error?: Error) => Promise<void>;
  onError?: (error: unknown) => void;
}): SpanPipeline {
  const stats = { queued: 0, sent: 0, unconfirmed: 0, failed: 0, dropped: 0 };
  /** Spans queued or in a request, by `${traceId}/${spanId}`. */
  const inFlight = new Map<string, SpanRef>();
  const refKey = (traceId: string, spanId: string) => `${traceId}/${spanId}`;
  /** Spans in the processor's buffer (accepted, not yet taken into a batch): mirrors its `maxQueueSize` check. */
  let buffered = 0;
  const answered: Promise<void>[] = [];
  const locks = new Map<string, Promise<unknown>>();

  const recording: SpanExporter = {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void) {
      buffered -= spans.length;
      const refs = spans.flatMap((s) => {
        const ref = inFlight.get(refKey(s.spanContext().traceId, s.spanContext().spanId));
        return ref ? [ref] : [];
      });
      exporter.export(spans, (result) => {
        const outcome: BatchOutcome = result.code === ExportResultCode.SUCCESS ? "sent" : isTimeout(result.error) ? "unconfirmed" : "failed";
        stats[outcome] += refs.length;
        // Recorded before the spans stop counting as pending, so a pass never sees one as neither.
        const recorded = onBatch(refs, outcome, result.error)
          .catch(onError)
          .finally(() => {
            for (const s of spans) inFlight.delete(refKey(s.spanContext().traceId, s.spanContext().spanId));
            void answered.splice(answered.indexOf(recorded), 1);
          });
        answered.push(recorded);
        done(result);
      });
    },
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
    shutdown: () => exporter.shutdown(),
  };

  class BoundedProcessor extends BatchSpanProcessor {
    override onEnd(span: ReadableSpan): void {
      buffered += 1;
      super.onEnd(span);
    }
  }
  const processor = new BoundedProcessor(recording, { maxQueueSize, scheduledDelayMillis, maxExportBatchSize });
  const ids = new PlannedIds();
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: "longhaul", [ATTR_SERVICE_VERSION]: "0.1.0" }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new BasicTracerProvider({ resource, idGenerator: ids, spanProcessors: [processor] });
  const tracer = provider.getTracer("longhaul", "0.1.0");

  return {
    enqueue(runId, spans) {
      const traceId = traceIdOfRun(runId);
      let queued = 0;
      let dropped = 0;
      for (const { span: spec, parentKey } of spans) {
        const spanId = spanIdOf(runId, spec.key);
        if (inFlight.has(refKey(traceId, spanId))) continue;
        if (buffered >= maxQueueSize) {
          dropped += 1;
          continue;
        }
        inFlight.set(refKey(traceId, spanId), { runId, key: spec.key, spanId });
        ids.traceId = traceId;
        ids.spanId = spanId;
        const links: Link[] = spec.links.map((l) => ({
          context: { traceId: traceIdOfRun(l.runId), spanId: spanIdOf(l.runId, "run"), traceFlags: TraceFlags.SAMPLED, isRemote: true },
          attributes: l.attributes,
        }));
        // The parent's id is derived, so the link holds whether the parent was sent before, with, or after this span.
        const ctx =
          parentKey === null
            ? ROOT_CONTEXT
            : trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: spanIdOf(runId, parentKey), traceFlags: TraceFlags.SAMPLED, isRemote: true });
        const span = tracer.startSpan(spec.name, { startTime: spec.start, attributes: spec.attributes, links }, ctx);
        for (const e of spec.events) span.addEvent(e.name, e.attributes, e.time);
        if (spec.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: spec.error });
        span.end(spec.end < spec.start ? spec.start : spec.end); // → processor.onEnd: into the queue
        queued += 1;
      }
      stats.queued += queued;
      stats.dropped += dropped;
      return { queued, dropped };
    },
    pending: (runId, key) => inFlight.has(refKey(traceIdOfRun(runId), spanIdOf(runId, key))),
    pendingRuns: () => [...new Set([...inFlight.values()].map((r) => r.runId))],
    stats: () => ({ ...stats, pending: inFlight.size }),
    exclusive<T>(runId: string, fn: () => Promise<T>): Promise<T> {
      const previous = locks.get(runId) ?? Promise.resolve();
      const next = previous.then(fn, fn);
      const tail = next.catch(() => {});
      locks.set(runId, tail);
      void tail.then(() => {
        if (locks.get(runId) === tail) locks.delete(runId);
      });
      return next;
    },
    async flush() {
      // A failed request rejects the processor's flush; its outcome was reported through onBatch.
      await processor.forceFlush().catch(() => {});
      await exporter.forceFlush?.();
      await Promise.all([...answered]);
    },
    async shutdown() {
      await processor.forceFlush().catch(() => {});
      await Promise.all([...answered]);
      await provider.shutdown();
    },
  };
}
