import { ROOT_CONTEXT, SpanStatusCode, trace, TraceFlags, type Link } from "@opentelemetry/api";
import { ExportResultCode } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, type IdGenerator, type ReadableSpan, type SpanExporter, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import type { PrismaClient } from "../db/client.ts";
import { env, type Env } from "../env.ts";
import { redactSecrets } from "../tools/egress-redact.ts";
import { buildRunTrace, flattenTrace, spanIdOf, traceIdOfRun, type RunTraceData, type TraceSpanSpec } from "./run-trace.ts";

/**
 * Export of finished runs as OpenTelemetry traces over OTLP/HTTP (issue 20 "Traces out"). Reads
 * committed rows only (run, step, model_call, checkpoint, alert, escalation, side_effect) and writes
 * only its own bookkeeping table `run_trace_export`: the durability code never sees it.
 */

/** Whether traces are exported, from the standard OpenTelemetry variables (OTel spec "SDK environment variables"). */
export interface TraceExportConfig {
  enabled: boolean;
  /** Why it is off, in words (when `enabled` is false). */
  reason?: string;
  /** The traces URL the exporter posts to (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as is, or `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`). */
  endpoint?: string;
}

/**
 * Traces are exported when `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` is
 * set, unless `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`; off otherwise (nothing is
 * loaded or sent). Only OTLP over HTTP (JSON) is spoken: `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL` other
 * than `http/json` is refused with a reason rather than silently ignored. Headers
 * (`OTEL_EXPORTER_OTLP_(TRACES_)HEADERS`, e.g. an API key) are read by the SDK's exporter itself.
 */
export function traceExportConfig(
  source: Partial<
    Pick<
      Env,
      | "OTEL_EXPORTER_OTLP_ENDPOINT"
      | "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
      | "OTEL_EXPORTER_OTLP_PROTOCOL"
      | "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
      | "OTEL_SDK_DISABLED"
      | "OTEL_TRACES_EXPORTER"
    >
  > = env(),
): TraceExportConfig {
  const traces = source.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = source.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!traces && !base) return { enabled: false, reason: "OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT unset" };
  if (source.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return { enabled: false, reason: "OTEL_SDK_DISABLED=true" };
  if (source.OTEL_TRACES_EXPORTER?.split(",").some((e) => e.trim() === "none")) return { enabled: false, reason: "OTEL_TRACES_EXPORTER=none" };
  const protocol = (source.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? source.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
  if (protocol && protocol !== "http/json") {
    return { enabled: false, reason: `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol}: Longhaul exports OTLP over HTTP as JSON (http/json) only` };
  }
  return { enabled: true, endpoint: traces ?? `${base!.replace(/\/+$/, "")}/v1/traces` };
}

/** Ids chosen by the caller for the next span started (see {@link createRunTraceEmitter}). */
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

/** Keeps the ended spans of one run until they are exported together. */
class CollectingProcessor implements SpanProcessor {
  spans: ReadableSpan[] = [];
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    this.spans.push(span);
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * Spans per OTLP export request: the SDK's `BatchSpanProcessor` default `maxExportBatchSize`
 * (OTel spec "Batching processor": 512). A run of 50,000 steps is sent as ~200 bounded requests, not
 * one body of tens of MB that a collector refuses (the Collector's OTLP/HTTP receiver caps bodies).
 */
export const MAX_EXPORT_BATCH_SPANS = 512;

/** Turns span trees into SDK spans and sends them, in requests of at most {@link MAX_EXPORT_BATCH_SPANS}. */
export interface RunTraceEmitter {
  /**
   * Sends the run's spans in batches; resolves with how many, rejects with the exporter's error (the
   * batches before it were sent; a retry sends them again with the same span ids).
   */
  emit(runId: string, root: TraceSpanSpec): Promise<number>;
  shutdown(): Promise<void>;
}

/**
 * An emitter over the OpenTelemetry JS SDK: a private `BasicTracerProvider` (never registered
 * globally, so it does not meet the SDK's or Inngest's own instrumentation) whose ids are planned from
 * the run ({@link traceIdOfRun}, {@link spanIdOf}), and by default the SDK's `OTLPTraceExporter`
 * (OTLP/HTTP JSON; endpoint and headers from the `OTEL_EXPORTER_OTLP_*` variables). Resource:
 * `service.name` `longhaul` unless `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES` say otherwise.
 */
export function createRunTraceEmitter({
  exporter = new OTLPTraceExporter(),
  maxBatchSpans = MAX_EXPORT_BATCH_SPANS,
}: { exporter?: SpanExporter; maxBatchSpans?: number } = {}): RunTraceEmitter {
  const ids = new PlannedIds();
  const collector = new CollectingProcessor();
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: "longhaul", [ATTR_SERVICE_VERSION]: "0.1.0" }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new BasicTracerProvider({ resource, idGenerator: ids, spanProcessors: [collector] });
  const tracer = provider.getTracer("longhaul", "0.1.0");
  let queue: Promise<unknown> = Promise.resolve();

  const exportBatch = (spans: ReadableSpan[]) =>
    new Promise<void>((resolve, reject) =>
      exporter.export(spans, (result) =>
        result.code === ExportResultCode.SUCCESS ? resolve() : reject(result.error ?? new Error("the OTLP exporter reported a failure")),
      ),
    );

  const emitNow = async (runId: string, root: TraceSpanSpec): Promise<number> => {
    collector.spans = [];
    const traceId = traceIdOfRun(runId);
    let sent = 0;
    // Parents before children; each span is started under its parent's (planned) span context and
    // ended at once, so no span object is kept beyond its batch. The order does not matter to OTLP.
    for (const { span: spec, parentKey } of flattenTrace(root)) {
      ids.traceId = traceId;
      ids.spanId = spanIdOf(runId, spec.key);
      const links: Link[] = spec.links.map((l) => ({
        context: { traceId: traceIdOfRun(l.runId), spanId: spanIdOf(l.runId, "run"), traceFlags: TraceFlags.SAMPLED, isRemote: true },
        attributes: l.attributes,
      }));
      const ctx =
        parentKey === null ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: spanIdOf(runId, parentKey), traceFlags: TraceFlags.SAMPLED });
      const span = tracer.startSpan(spec.name, { startTime: spec.start, attributes: spec.attributes, links }, ctx);
      for (const e of spec.events) span.addEvent(e.name, e.attributes, e.time);
      if (spec.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: spec.error });
      span.end(spec.end < spec.start ? spec.start : spec.end);
      if (collector.spans.length >= maxBatchSpans) {
        const batch = collector.spans;
        collector.spans = [];
        await exportBatch(batch); // also yields the event loop between batches of a huge run
        sent += batch.length;
      }
    }
    const rest = collector.spans;
    collector.spans = [];
    if (rest.length > 0) await exportBatch(rest);
    return sent + rest.length;
  };

  return {
    // One run at a time: the planned ids and the collector are shared.
    emit(runId, root) {
      const next = queue.then(() => emitNow(runId, root));
      queue = next.catch(() => {});
      return next;
    },
    async shutdown() {
      await queue;
      await provider.shutdown();
      await exporter.shutdown();
    },
  };
}

const num = (d: { toString(): string }) => Number(d.toString());

/**
 * The committed rows of run `runId` that its trace is made of, or null when there is no such run.
 * Goal and profile from the task; the origin run from the checkpoint the run started from.
 */
export async function loadRunTraceData({ prisma, runId }: { prisma: PrismaClient; runId: string }): Promise<RunTraceData | null> {
  const run = await prisma.run.findUnique({
    where: { id: runId },
    include: {
      task: { select: { goal: true, profile: { select: { name: true, model: true, provider: true } } } },
      steps: { orderBy: { index: "asc" } },
      modelCalls: { orderBy: { createdAt: "asc" } },
    },
  });
  if (!run) return null;
  const [checkpoints, alerts, escalations, startedBy, sideEffects, origin] = await Promise.all([
    prisma.checkpoint.findMany({ where: { runId }, orderBy: { seq: "asc" } }),
    prisma.alert.findMany({ where: { runId }, orderBy: { createdAt: "asc" } }),
    prisma.escalation.findMany({ where: { runId }, orderBy: { createdAt: "asc" } }),
    prisma.escalation.findFirst({ where: { resultRunId: runId }, select: { id: true, runId: true, reason: true, decision: true, decidedAt: true } }),
    prisma.sideEffect.findMany({ where: { runId }, select: { stepId: true, tool: true, status: true, repeats: true, idempotencyKey: true } }),
    run.fromCheckpointId ? prisma.checkpoint.findUnique({ where: { id: run.fromCheckpointId }, select: { runId: true } }) : Promise.resolve(null),
  ]);
  return {
    run: {
      id: run.id,
      taskId: run.taskId,
      cause: run.cause,
      status: run.status,
      endReason: run.endReason,
      error: run.error,
      segments: run.segments,
      fromCheckpointId: run.fromCheckpointId,
      startedAt: run.startedAt,
      endedAt: run.endedAt,
    },
    task: { goal: run.task.goal, profileName: run.task.profile.name, model: run.task.profile.model, provider: run.task.profile.provider },
    originRunId: origin?.runId ?? null,
    steps: run.steps.map((s) => ({
      stepId: s.stepId,
      index: s.index,
      kind: s.kind,
      tool: s.tool,
      status: s.status,
      error: s.error,
      attempts: s.attempts,
      promptTokens: s.promptTokens,
      cachedTokens: s.cachedTokens,
      completionTokens: s.completionTokens,
      summary: s.summary,
      startedAt: s.startedAt,
      endedAt: s.endedAt,
    })),
    modelCalls: run.modelCalls.map((c) => ({
      id: c.id,
      stepId: c.stepId,
      attempt: c.attempt,
      model: c.model,
      promptTokens: c.promptTokens,
      cachedTokens: c.cachedTokens,
      completionTokens: c.completionTokens,
      reasoningTokens: c.reasoningTokens,
      estimated: c.estimated,
      status: c.status,
      httpStatus: c.httpStatus,
      billed: c.billed,
      cause: c.cause,
      latencyMs: c.latencyMs,
      error: c.error,
      costUsd: num(c.costUsd),
      createdAt: c.createdAt,
    })),
    checkpoints: checkpoints.map((c) => ({
      id: c.id,
      seq: c.seq,
      reason: c.reason,
      afterStepId: c.afterStepId,
      contextTokens: c.contextTokens,
      transcriptTokens: c.transcriptTokens,
      createdAt: c.createdAt,
    })),
    alerts: alerts.map((a) => ({ stepId: a.stepId, kind: a.kind, severity: a.severity, message: a.message, createdAt: a.createdAt })),
    escalations: escalations.map((e) => ({
      id: e.id,
      stepId: e.stepId,
      reason: e.reason,
      message: e.message,
      status: e.status,
      decision: e.decision,
      decidedAt: e.decidedAt,
      createdAt: e.createdAt,
      checkpointId: e.checkpointId,
      resultRunId: e.resultRunId,
    })),
    startedBy,
    sideEffects,
  };
}

/**
 * Exports the trace of run `runId` now (no bookkeeping): loads it ({@link loadRunTraceData}), builds
 * the tree ({@link buildRunTrace}), cuts every secret the egress scanner detects in any string of it
 * (names, attributes, event attributes, status messages — the same redaction as the step views,
 * server/tools/egress-redact.ts), and emits it. Returns the number of spans sent (0: no such run).
 * @throws the exporter's error (endpoint unreachable, non-2xx answer).
 */
export async function exportRunTrace({ prisma, runId, emitter }: { prisma: PrismaClient; runId: string; emitter: RunTraceEmitter }): Promise<number> {
  const data = await loadRunTraceData({ prisma, runId });
  if (!data) return 0;
  const { value: root } = await redactSecrets(buildRunTrace(data));
  return emitter.emit(runId, root);
}

/** A claim older than this without `exportedAt` is taken again (the exporting process died), ms. */
export const CLAIM_LEASE_MS = 60_000;
/** Attempts after which a run's export is given up (its row keeps the last error). */
export const MAX_EXPORT_ATTEMPTS = 5;

/**
 * One pass of the exporter: finds runs that ended within `backfillMs` (default 24 h) and were not
 * exported yet (optionally of one task only), claims each (an insert into `run_trace_export`, or
 * re-taking a claim older than {@link CLAIM_LEASE_MS}; so replicas never export a run twice), exports
 * it and records the result. A run that ended `escalated` waits until its escalation is applied, so
 * the decision is in its trace, or at most `escalationWaitMs` (default 1 h). At most `limit` runs
 * (default 50) per pass, oldest end first. Export failures are recorded on the row and retried by a
 * later pass, up to {@link MAX_EXPORT_ATTEMPTS}; they do not throw. @throws on a database error.
 */
export async function exportFinishedRuns({
  prisma,
  emitter,
  taskId,
  limit = 50,
  backfillMs = 86_400_000,
  escalationWaitMs = 3_600_000,
  stopped = () => false,
}: {
  prisma: PrismaClient;
  emitter: RunTraceEmitter;
  taskId?: string;
  limit?: number;
  /** Checked before each run: true ends the pass there (a stopping process does not wait for a whole batch). */
  stopped?: () => boolean;
  backfillMs?: number;
  escalationWaitMs?: number;
}): Promise<{ exported: { runId: string; spans: number }[]; failed: { runId: string; error: string }[] }> {
  const backfillSecs = backfillMs / 1000;
  const waitSecs = escalationWaitMs / 1000;
  const leaseSecs = CLAIM_LEASE_MS / 1000;
  const candidates = await prisma.$queryRaw<{ id: string }[]>`
    SELECT r.id FROM run r LEFT JOIN run_trace_export x ON x."runId" = r.id
    WHERE r."endedAt" IS NOT NULL AND r."endedAt" > now() - make_interval(secs => ${backfillSecs}::float8)
      AND (${taskId ?? null}::text IS NULL OR r."taskId" = ${taskId ?? null}::text)
      AND (x."runId" IS NULL OR (x."exportedAt" IS NULL AND x."claimedAt" < now() - make_interval(secs => ${leaseSecs}::float8) AND x.attempts < ${MAX_EXPORT_ATTEMPTS}))
      AND (r.status <> 'escalated' OR r."endedAt" < now() - make_interval(secs => ${waitSecs}::float8)
           OR NOT EXISTS (SELECT 1 FROM escalation e WHERE e."runId" = r.id AND e.status <> 'applied'))
    ORDER BY r."endedAt" LIMIT ${limit}`;
  const exported: { runId: string; spans: number }[] = [];
  const failed: { runId: string; error: string }[] = [];
  for (const { id: runId } of candidates) {
    if (stopped()) break;
    const claimed = await prisma.$queryRaw<{ runId: string }[]>`
      INSERT INTO run_trace_export ("runId", "traceId", "claimedAt") VALUES (${runId}, ${traceIdOfRun(runId)}, now())
      ON CONFLICT ("runId") DO UPDATE SET "claimedAt" = now(), attempts = run_trace_export.attempts + 1
        WHERE run_trace_export."exportedAt" IS NULL AND run_trace_export."claimedAt" < now() - make_interval(secs => ${leaseSecs}::float8)
      RETURNING "runId"`;
    if (claimed.length === 0) continue; // another process has it
    try {
      const spans = await exportRunTrace({ prisma, runId, emitter });
      await prisma.runTraceExport.update({ where: { runId }, data: { exportedAt: new Date(), spans, error: null } });
      exported.push({ runId, spans });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // Retried after the lease: the claim stays as it is, with the reason.
      await prisma.runTraceExport.update({ where: { runId }, data: { error: message.slice(0, 2_000) } });
      failed.push({ runId, error: message });
    }
  }
  return { exported, failed };
}
