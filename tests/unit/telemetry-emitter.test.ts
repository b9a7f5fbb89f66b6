import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { createRunTraceEmitter } from "../../server/telemetry/export-run-trace.ts";
import { flattenTrace, spanIdOf, traceIdOfRun, type TraceSpanSpec } from "../../server/telemetry/run-trace.ts";

// The emitter's batching (server/telemetry/export-run-trace.ts): a huge run goes out as bounded OTLP
// requests with every parent link intact. The OTLP/HTTP path itself is in tests/integration/trace-export.test.ts.

/** Records each export request's spans; fails the request numbered `failAt` (0-based) when given. */
class RecordingExporter implements SpanExporter {
  batches: ReadableSpan[][] = [];
  constructor(private readonly failAt?: number) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const n = this.batches.length;
    this.batches.push(spans);
    // Answers later, as a network exporter does.
    setImmediate(() =>
      done(n === this.failAt ? { code: ExportResultCode.FAILED, error: new Error("collector said 413") } : { code: ExportResultCode.SUCCESS }),
    );
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

describe("createRunTraceEmitter", () => {
  it("sends a run of 1,201 spans as requests of at most maxBatchSpans, each span once, parents intact", async () => {
    const exporter = new RecordingExporter();
    const emitter = createRunTraceEmitter({ exporter, maxBatchSpans: 500 });
    const root = bigTrace(400, 2); // 1 + 400 + 800 spans
    const sent = await emitter.emit("run_big", root);

    expect(sent).toBe(1_201);
    expect(exporter.batches.map((b) => b.length)).toEqual([500, 500, 201]);
    const spans = exporter.batches.flat();
    const traceId = traceIdOfRun("run_big");
    expect(new Set(spans.map((s) => s.spanContext().spanId)).size).toBe(1_201);
    expect(spans.every((s) => s.spanContext().traceId === traceId)).toBe(true);
    const expectedParent = new Map(
      flattenTrace(root).map(({ span: spec, parentKey }) => [spanIdOf("run_big", spec.key), parentKey && spanIdOf("run_big", parentKey)]),
    );
    const wrong = spans.filter((s) => (s.parentSpanContext?.spanId ?? null) !== expectedParent.get(s.spanContext().spanId));
    expect(wrong.map((s) => s.name)).toEqual([]);
  });

  it("a run that fits is one request; a failed request rejects with the exporter's error and the next run still goes", async () => {
    const exporter = new RecordingExporter(1);
    const emitter = createRunTraceEmitter({ exporter, maxBatchSpans: 500 });
    expect(await emitter.emit("run_small", bigTrace(3, 1))).toBe(7);
    expect(exporter.batches).toHaveLength(1);
    await expect(emitter.emit("run_fails", bigTrace(3, 1))).rejects.toThrow("collector said 413");
    expect(await emitter.emit("run_after", bigTrace(1, 0))).toBe(2);
    expect(exporter.batches.at(-1)!.every((s) => s.spanContext().traceId === traceIdOfRun("run_after"))).toBe(true);
  });
});
