import type { PrismaClient } from "../db/client.ts";
import { env, type Env } from "../env.ts";
import { redactSecrets } from "../tools/egress-redact.ts";
import { buildRunTrace, flattenTrace, traceIdOfRun, type RunTraceData, type TraceSpanSpec } from "./run-trace.ts";
import type { BatchOutcome, SpanPipeline, SpanRef } from "./span-pipeline.ts";

/**
 * Export of runs as OpenTelemetry traces over OTLP/HTTP, while they run: each step's span (with its
 * model calls) once the step has ended, the run's span and the rest (escalations, calls outside the
 * timeline) once the run has ended. Reads committed rows only (run, step, model_call, checkpoint,
 * alert, escalation, side_effect) and writes only its own bookkeeping tables `run_trace_export` (who
 * exports a run, and when it was done) and `trace_span_export` (which spans a collector answered
 * for): the durability code never sees them. Spans are handed to a bounded queue
 * (server/telemetry/span-pipeline.ts); nothing here waits on the collector.
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

const num = (d: { toString(): string }) => Number(d.toString());

/**
 * The committed rows of run `runId` that its trace is made of, or null when there is no such run.
 * Goal and profile from the task; the origin run from the checkpoint the run started from. With
 * `stepIds`, only those steps and their model calls, alerts and side effects (no checkpoints,
 * escalations or origin): enough for the steps' spans, not for the run's.
 */
export async function loadRunTraceData({ prisma, runId, stepIds }: { prisma: PrismaClient; runId: string; stepIds?: string[] }): Promise<RunTraceData | null> {
  const only = stepIds ? { stepId: { in: stepIds } } : {};
  const run = await prisma.run.findUnique({
    where: { id: runId },
    include: {
      task: { select: { goal: true, profile: { select: { name: true, model: true, provider: true } } } },
      steps: { where: only, orderBy: { index: "asc" } },
      modelCalls: { where: only, orderBy: { createdAt: "asc" } },
    },
  });
  if (!run) return null;
  const whole = !stepIds;
  const [checkpoints, alerts, escalations, startedBy, sideEffects, origin] = await Promise.all([
    whole ? prisma.checkpoint.findMany({ where: { runId }, orderBy: { seq: "asc" } }) : [],
    prisma.alert.findMany({ where: { runId, ...only }, orderBy: { createdAt: "asc" } }),
    whole ? prisma.escalation.findMany({ where: { runId }, orderBy: { createdAt: "asc" } }) : [],
    whole
      ? prisma.escalation.findFirst({ where: { resultRunId: runId }, select: { id: true, runId: true, reason: true, decision: true, decidedAt: true } })
      : null,
    prisma.sideEffect.findMany({ where: { runId, ...only }, select: { stepId: true, tool: true, status: true, repeats: true, idempotencyKey: true } }),
    whole && run.fromCheckpointId ? prisma.checkpoint.findUnique({ where: { id: run.fromCheckpointId }, select: { runId: true } }) : null,
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

/** A claim not renewed for this long (its owner stopped or died) is taken over by another process, ms. */
export const CLAIM_LEASE_MS = 60_000;
/** Ended steps whose spans one pass hands over for a running run at most (the rest: the next pass). */
const STEPS_PER_PASS = 1_000;

/** What one pass did for one run. */
export interface RunPassResult {
  runId: string;
  /** Another process owns the run's export. */
  skipped?: "owned_elsewhere";
  /** Spans handed to the queue, and spans the queue had no room for. */
  queued: number;
  dropped: number;
  /** True when this pass found every span of the ended run answered for and closed its export. */
  completed: boolean;
  /** The run ended escalated and its decision is not applied yet: its own span waits (the steps do not). */
  waitingForDecision?: boolean;
}

/** The spans among `candidates` that no collector answered for yet and that are not pending in this process. */
async function outstanding(
  prisma: PrismaClient,
  runId: string,
  pipeline: SpanPipeline,
  candidates: { span: TraceSpanSpec; parentKey: string | null }[],
): Promise<{ span: TraceSpanSpec; parentKey: string | null }[]> {
  // Pending first: a span answered while the query runs is recorded before it stops being pending,
  // so it is seen as one or the other (passes over one run do not overlap, SpanPipeline.exclusive).
  const open = candidates.filter((c) => !pipeline.pending(runId, c.span.key));
  if (open.length === 0) return [];
  const keys = open.map((c) => c.span.key);
  const answered = await prisma.$queryRaw<{ key: string }[]>`
    SELECT key FROM trace_span_export WHERE "runId" = ${runId} AND key = ANY(${keys}::text[])`;
  const done = new Set(answered.map((r) => r.key));
  return open.filter((c) => !done.has(c.span.key));
}

/**
 * Each span's own strings with every secret the egress scanner detects cut (names, attributes,
 * event attributes, status messages — the step views' redaction, server/tools/egress-redact.ts);
 * the key, which the span id derives from, is kept. Yields to the event loop every 50 spans, so a
 * long run's export never holds requests up.
 */
async function redacted(spans: { span: TraceSpanSpec; parentKey: string | null }[]): Promise<{ span: TraceSpanSpec; parentKey: string | null }[]> {
  const out: { span: TraceSpanSpec; parentKey: string | null }[] = [];
  for (const [i, { span, parentKey }] of spans.entries()) {
    if (i > 0 && i % 50 === 0) await new Promise((r) => setImmediate(r));
    const { value } = await redactSecrets({ name: span.name, attributes: span.attributes, events: span.events, links: span.links, error: span.error });
    out.push({ span: { ...span, ...value, children: [] }, parentKey });
  }
  return out;
}

/**
 * One pass over run `runId` by `owner` (a process's id, `host:pid:nonce`): claims the run's export
 * (or renews this owner's claim, or takes over one older than {@link CLAIM_LEASE_MS}; otherwise does
 * nothing), then hands to `pipeline` the spans no collector has answered for yet:
 * - while the run runs: the span of each ended step, with its model calls as children (at most
 *   1,000 steps a pass; their parent is the run's span, whose id is derived, so the tree holds);
 * - once it ended: every remaining span, the run's own included — for a run that ended
 *   `escalated`, once its escalation is applied (so the decision is in its trace) or after
 *   `escalationWaitMs` (default 1 h); its steps go out meanwhile;
 * - once every span of the ended run was answered for (`sent` or `unconfirmed`): closes it
 *   (`exportedAt`, the span count) and deletes its span rows.
 * Nothing is handed over when `canSend()` is false (the collector failing: the caller backs off).
 * @throws on a database error.
 */
export async function exportRunSpans({
  prisma,
  pipeline,
  runId,
  owner,
  escalationWaitMs = 3_600_000,
  canSend = () => true,
}: {
  prisma: PrismaClient;
  pipeline: SpanPipeline;
  runId: string;
  owner: string;
  escalationWaitMs?: number;
  canSend?: () => boolean;
}): Promise<RunPassResult> {
  return pipeline.exclusive(runId, () => runPass({ prisma, pipeline, runId, owner, escalationWaitMs, canSend }));
}

async function runPass({
  prisma,
  pipeline,
  runId,
  owner,
  escalationWaitMs,
  canSend,
}: {
  prisma: PrismaClient;
  pipeline: SpanPipeline;
  runId: string;
  owner: string;
  escalationWaitMs: number;
  canSend: () => boolean;
}): Promise<RunPassResult> {
  const leaseSecs = CLAIM_LEASE_MS / 1000;
  const claimed = await prisma.$queryRaw<{ runId: string }[]>`
    INSERT INTO run_trace_export ("runId", "traceId", "claimedAt", owner, attempts) VALUES (${runId}, ${traceIdOfRun(runId)}, now(), ${owner}, 0)
    ON CONFLICT ("runId") DO UPDATE SET "claimedAt" = now(), owner = ${owner}
      WHERE run_trace_export."exportedAt" IS NULL
        AND (run_trace_export.owner = ${owner} OR run_trace_export."claimedAt" < now() - make_interval(secs => ${leaseSecs}::float8))
    RETURNING "runId"`;
  const result: RunPassResult = { runId, queued: 0, dropped: 0, completed: false };
  if (claimed.length === 0) return { ...result, skipped: "owned_elsewhere" };
  const waitSecs = escalationWaitMs / 1000;
  const [state] = await prisma.$queryRaw<{ ended: boolean; waiting: boolean }[]>`
    SELECT r."endedAt" IS NOT NULL AS ended,
           (r.status = 'escalated' AND r."endedAt" > now() - make_interval(secs => ${waitSecs}::float8)
             AND EXISTS (SELECT 1 FROM escalation e WHERE e."runId" = r.id AND e.status <> 'applied')) AS waiting
    FROM run r WHERE r.id = ${runId}`;
  if (!state) return result;
  const hand = async (candidates: { span: TraceSpanSpec; parentKey: string | null }[]) => {
    const todo = await outstanding(prisma, runId, pipeline, candidates);
    if (todo.length === 0 || !canSend()) return todo.length;
    const { queued, dropped } = pipeline.enqueue(runId, await redacted(todo));
    result.queued += queued;
    result.dropped += dropped;
    return todo.length;
  };

  if (!state.ended || state.waiting) {
    // The ended steps no collector answered for (their model calls are checked by `outstanding`).
    const steps = await prisma.$queryRaw<{ stepId: string }[]>`
      SELECT s."stepId" FROM step s
      WHERE s."runId" = ${runId} AND s."endedAt" IS NOT NULL AND s.status <> 'running'
        AND NOT EXISTS (SELECT 1 FROM trace_span_export t WHERE t."runId" = s."runId" AND t.key = 'step:' || s."stepId")
      ORDER BY s.index LIMIT ${STEPS_PER_PASS}`;
    const stepIds = steps.map((s) => s.stepId).filter((id) => !pipeline.pending(runId, `step:${id}`));
    if (stepIds.length > 0) {
      const data = await loadRunTraceData({ prisma, runId, stepIds });
      if (data) await hand(flattenTrace(buildRunTrace(data)).filter((s) => s.parentKey !== null));
    }
    return { ...result, waitingForDecision: state.ended && state.waiting };
  }

  const data = await loadRunTraceData({ prisma, runId });
  if (!data) return result;
  const all = flattenTrace(buildRunTrace(data));
  const left = await hand(all);
  if (left === 0 && !pipeline.pendingRuns().includes(runId)) {
    await prisma.$transaction([
      prisma.runTraceExport.update({ where: { runId }, data: { exportedAt: new Date(), spans: all.length, error: null } }),
      prisma.traceSpanExport.deleteMany({ where: { runId } }),
    ]);
    result.completed = true;
  }
  return result;
}

/**
 * Records what a collector did with one export request ({@link SpanPipeline}'s `onBatch`): spans
 * `sent` or `unconfirmed` get a `trace_span_export` row (never sent again); a `failed` request counts
 * on each of its runs (`attempts`, `error`), and its spans, having no row, go out with a later pass.
 */
export async function recordBatch({
  prisma,
  spans,
  outcome,
  error,
}: {
  prisma: PrismaClient;
  spans: SpanRef[];
  outcome: BatchOutcome;
  error?: Error;
}): Promise<void> {
  if (spans.length === 0) return;
  const runIds = [...new Set(spans.map((s) => s.runId))];
  if (outcome === "failed") {
    const message = (error?.message ?? "the OTLP exporter reported a failure").slice(0, 2_000);
    await prisma.runTraceExport.updateMany({ where: { runId: { in: runIds } }, data: { attempts: { increment: 1 }, error: message } });
    return;
  }
  await prisma.$executeRaw`
    INSERT INTO trace_span_export ("runId", key, "spanId", state)
    SELECT * FROM unnest(${spans.map((s) => s.runId)}::text[], ${spans.map((s) => s.key)}::text[], ${spans.map((s) => s.spanId)}::text[], ${spans.map(() => outcome)}::text[])
    ON CONFLICT ("runId", key) DO NOTHING`;
  if (outcome === "unconfirmed") {
    await prisma.runTraceExport.updateMany({
      where: { runId: { in: runIds } },
      data: { error: "the collector did not answer within the export timeout; those spans may be stored and are not sent again" },
    });
  }
}

/**
 * One pass over the runs that need one (optionally of one task, or only `runIds`): runs that run or
 * ended within `backfillMs` (default 24 h), whose export is not closed, and that no other process
 * owns; at most `limit` (default 50), the least recently looked at first. Each as
 * {@link exportRunSpans}. `stopped()` true ends the pass before the next run. @throws on a database error.
 */
export async function exportRuns({
  prisma,
  pipeline,
  owner,
  taskId,
  runIds,
  limit = 50,
  backfillMs = 86_400_000,
  escalationWaitMs,
  canSend,
  stopped = () => false,
}: {
  prisma: PrismaClient;
  pipeline: SpanPipeline;
  owner: string;
  taskId?: string;
  runIds?: string[];
  limit?: number;
  backfillMs?: number;
  escalationWaitMs?: number;
  canSend?: () => boolean;
  stopped?: () => boolean;
}): Promise<RunPassResult[]> {
  const backfillSecs = backfillMs / 1000;
  const leaseSecs = CLAIM_LEASE_MS / 1000;
  const candidates = await prisma.$queryRaw<{ id: string }[]>`
    SELECT r.id FROM run r LEFT JOIN run_trace_export x ON x."runId" = r.id
    WHERE ((r."endedAt" IS NULL AND r."startedAt" > now() - make_interval(secs => ${backfillSecs}::float8))
           OR r."endedAt" > now() - make_interval(secs => ${backfillSecs}::float8))
      AND (${taskId ?? null}::text IS NULL OR r."taskId" = ${taskId ?? null}::text)
      AND (${runIds ?? null}::text[] IS NULL OR r.id = ANY(${runIds ?? null}::text[]))
      AND (x."runId" IS NULL OR (x."exportedAt" IS NULL AND (x.owner = ${owner} OR x."claimedAt" < now() - make_interval(secs => ${leaseSecs}::float8))))
    ORDER BY COALESCE(x."claimedAt", r."startedAt") LIMIT ${limit}`;
  const results: RunPassResult[] = [];
  for (const { id } of candidates) {
    if (stopped()) break;
    results.push(await exportRunSpans({ prisma, pipeline, runId: id, owner, escalationWaitMs, canSend }));
  }
  return results;
}

/** Renews this owner's claims on `runIds` (runs with spans still queued here), so no other process takes them over meanwhile. */
export async function renewClaims({ prisma, owner, runIds }: { prisma: PrismaClient; owner: string; runIds: string[] }): Promise<void> {
  if (runIds.length === 0) return;
  await prisma.runTraceExport.updateMany({ where: { owner, runId: { in: runIds }, exportedAt: null }, data: { claimedAt: new Date() } });
}
