import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { flattenTrace, spanIdOf, traceIdOfRun, type TraceSpanSpec } from "../../server/telemetry/run-trace.ts";
import { createSpanPipeline, type BatchOutcome, type SpanRef } from "../../server/telemetry/span-pipeline.ts";

// The span pipeline (server/telemetry/span-pipeline.ts) over the SDK's BatchSpanProcessor: bounded
// requests with parent links intact, each request's outcome per span, a bounded queue. The OTLP/HTTP
// path against real receivers is in tests/integration/trace-export.test.ts.

/** Records each export request's spans; answers each with `answer(n)` (0-based), or never when it returns null. */
class ScriptedExporter implements SpanExporter {
  batches: ReadableSpan[][] = [];
  constructor(private readonly answer: (n: number) => ExportResult | null = () => ({ code: ExportResultCode.SUCCESS })) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const result = this.answer(this.batches.length);
    this.batches.push(spans);
    // Answers later, as a network exporter does.
    if (result) setImmediate(() => done(result));
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const at = (ms: number) => new Date(Date.UTC(2026, 11, 2) + ms);
function span(key: string, children: TraceSpanSpec[] = []): TraceSpanSpec {
  return { key, name: key, start: at(0), end: at(1), attributes: { "longhaul.key": key }, events: [], links: [], children };
}
/** A run of `steps` step spans, each with `callsPerStep` model-call children. */
function bigTrace(steps: number, callsPerStep: number): TraceSpanSpec {
  return span(
    "run",
    Array.from({ length: steps }, (_, i) =>
      span(
        `step:${i}`,
        Array.from({ length: callsPerStep }, (_, j) => span(`call:${i}.${j}`)),
      ),
    ),
  );
}

function pipelineOver(exporter: SpanExporter, options: { maxQueueSize?: number; maxExportBatchSize?: number } = {}) {
  const outcomes: { spans: SpanRef[]; outcome: BatchOutcome; error?: string }[] = [];
  const pipeline = createSpanPipeline({
    exporter,
    scheduledDelayMillis: 0,
    ...options,
    onBatch: (spans, outcome, error) => {
      outcomes.push({ spans, outcome, error: error?.message });
      return Promise.resolve();
    },
  });
  return { pipeline, outcomes };
}

describe("createSpanPipeline", () => {
  it("sends a run of 1,201 spans as requests of at most maxExportBatchSize, each span once, parents intact", async () => {
    const exporter = new ScriptedExporter();
    const { pipeline, outcomes } = pipelineOver(exporter, { maxQueueSize: 2_048, maxExportBatchSize: 500 });
    const root = bigTrace(400, 2); // 1 + 400 + 800 spans
    expect(pipeline.enqueue("run_big", flattenTrace(root))).toEqual({ queued: 1_201, dropped: 0 });
    await pipeline.flush();

    expect(exporter.batches.map((b) => b.length)).toEqual([500, 500, 201]);
    const spans = exporter.batches.flat();
    expect(new Set(spans.map((s) => s.spanContext().spanId)).size).toBe(1_201);
    expect(spans.every((s) => s.spanContext().traceId === traceIdOfRun("run_big"))).toBe(true);
    const expectedParent = new Map(
      flattenTrace(root).map(({ span: spec, parentKey }) => [spanIdOf("run_big", spec.key), parentKey && spanIdOf("run_big", parentKey)]),
    );
    const wrong = spans.filter((s) => (s.parentSpanContext?.spanId ?? null) !== expectedParent.get(s.spanContext().spanId));
    expect(wrong.map((s) => s.name)).toEqual([]);
    expect(outcomes.map((o) => [o.outcome, o.spans.length])).toEqual([
      ["sent", 500],
      ["sent", 500],
      ["sent", 201],
    ]);
    expect(outcomes[0]!.spans[0]).toEqual({ runId: "run_big", key: "run", spanId: spanIdOf("run_big", "run") });
    expect(pipeline.stats()).toMatchObject({ queued: 1_201, sent: 1_201, pending: 0, dropped: 0 });
  });

  it("a span's parent may be sent before, with or after it: the link is the derived id", async () => {
    const exporter = new ScriptedExporter();
    const { pipeline } = pipelineOver(exporter);
    // A step's span while the run runs, the run's own span later.
    pipeline.enqueue("run_live", [{ span: span("step:model-0"), parentKey: "run" }]);
    await pipeline.flush();
    pipeline.enqueue("run_live", [{ span: span("run"), parentKey: null }]);
    await pipeline.flush();
    const [step, run] = exporter.batches.flat();
    expect(step!.parentSpanContext?.spanId).toBe(spanIdOf("run_live", "run"));
    expect(run!.spanContext().spanId).toBe(spanIdOf("run_live", "run"));
    expect(run!.parentSpanContext).toBeUndefined();
  });

  it("reports a timeout as unconfirmed and any other failure as failed; a span is pending until its request is answered", async () => {
    const exporter = new ScriptedExporter((n) =>
      n === 0
        ? { code: ExportResultCode.FAILED, error: new Error("Request timed out") }
        : n === 1
          ? { code: ExportResultCode.FAILED, error: new Error("Internal Server Error") }
          : null,
    );
    const { pipeline, outcomes } = pipelineOver(exporter, { maxExportBatchSize: 1 });
    pipeline.enqueue("run_a", [{ span: span("step:a"), parentKey: "run" }]);
    await pipeline.flush();
    pipeline.enqueue("run_a", [{ span: span("step:b"), parentKey: "run" }]);
    await pipeline.flush();
    expect(outcomes.map((o) => [o.spans[0]!.key, o.outcome, o.error])).toEqual([
      ["step:a", "unconfirmed", "Request timed out"],
      ["step:b", "failed", "Internal Server Error"],
    ]);
    expect(pipeline.pending("run_a", "step:a")).toBe(false);
    // The third request is never answered: its span stays pending, and is not queued twice.
    pipeline.enqueue("run_a", [{ span: span("step:c"), parentKey: "run" }]);
    await new Promise((r) => setTimeout(r, 0));
    expect(pipeline.pending("run_a", "step:c")).toBe(true);
    expect(pipeline.enqueue("run_a", [{ span: span("step:c"), parentKey: "run" }])).toEqual({ queued: 0, dropped: 0 });
    expect(pipeline.pendingRuns()).toEqual(["run_a"]);
    expect(pipeline.stats()).toMatchObject({ unconfirmed: 1, failed: 1, pending: 1 });
  });

  it("holds at most maxQueueSize spans while the collector does not answer; the rest are dropped and counted", () => {
    const exporter = new ScriptedExporter(() => null);
    const { pipeline } = pipelineOver(exporter, { maxQueueSize: 10, maxExportBatchSize: 5 });
    const first = pipeline.enqueue("run_q", flattenTrace(bigTrace(24, 0))); // 25 spans
    // A batch of 5 went into a request (never answered) as the queue filled; then the queue filled again.
    expect(exporter.batches.map((b) => b.length)).toEqual([5]);
    expect(first).toEqual({ queued: 15, dropped: 10 });
    expect(pipeline.stats()).toMatchObject({ queued: 15, dropped: 10, pending: 15 });
  });
});
