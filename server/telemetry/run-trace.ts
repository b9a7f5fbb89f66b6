import { createHash } from "node:crypto";

/**
 * A finished run as an OpenTelemetry trace, as plain data, for export to a tracing backend: pure, no SDK, no
 * database — server/telemetry/export-run-trace.ts loads the rows and hands the tree to the SDK.
 *
 * Shape (names and attributes follow the OpenTelemetry GenAI semantic conventions, semconv 1.45
 * `gen_ai.*`; what they do not cover is under `longhaul.*`):
 *
 * ```
 * invoke_agent <profile>                    the run (root): gen_ai.operation.name=invoke_agent, gen_ai.agent.name,
 * │                                          gen_ai.conversation.id=task id, longhaul.run.*, totals (longhaul.usage.*, longhaul.cost.usd);
 * │                                          events longhaul.checkpoint (one per checkpoint) and longhaul.decision
 * │                                          (the escalation decision this run was started by); a link to the trace of the run it resumed
 * ├─ step model-0                            one span per step (longhaul.step.*)
 * │  └─ chat <model>                         one per model HTTP attempt: gen_ai.request.model, gen_ai.usage.input_tokens /
 * │                                          output_tokens / cache_read.input_tokens, longhaul.cost.usd, longhaul.model_call.*
 * ├─ execute_tool <tool>                     a tool step: gen_ai.tool.name, gen_ai.tool.call.id (the step id), longhaul.tool.outcome
 * └─ escalation <reason>                     from the escalation to its decision; event longhaul.decision
 * ```
 *
 * Usage is on the `chat` spans only (the real HTTP attempts), so a backend that sums `gen_ai.usage.*`
 * over a trace (Langfuse, Datadog LLM Observability) counts each token once; the root and step spans
 * carry totals as `longhaul.usage.*`. Ids are derived from the run id ({@link traceIdOfRun},
 * {@link spanIdOf}), so re-exporting a run yields the same trace and spans. Secrets are cut by the
 * caller (the step views' redaction) on the whole tree before it reaches the SDK.
 */

/** An attribute value as OTLP carries it here. */
export type TraceAttributeValue = string | number | boolean;
export type TraceAttributes = Record<string, TraceAttributeValue>;

/** One span of a run's trace, its children nested. Times are wall-clock instants. */
export interface TraceSpanSpec {
  /** Stable key inside the run (`run`, `step:model-3`, `call:<id>`, `escalation:<id>`); the span id is derived from it. */
  key: string;
  name: string;
  start: Date;
  end: Date;
  attributes: TraceAttributes;
  events: { name: string; time: Date; attributes: TraceAttributes }[];
  /** Set: the span's status is ERROR with this message. */
  error?: string;
  /** Other runs' root spans this span links to (the run a resume started from). */
  links: { runId: string; attributes: TraceAttributes }[];
  children: TraceSpanSpec[];
}

/** The rows of one run that its trace is made of (server/telemetry/export-run-trace.ts loads them). */
export interface RunTraceData {
  run: {
    id: string;
    taskId: string;
    cause: string;
    status: string;
    endReason: string | null;
    error: string | null;
    segments: number;
    fromCheckpointId: string | null;
    startedAt: Date;
    endedAt: Date | null;
  };
  task: { goal: string; profileName: string; model: string; provider: string };
  /** The run that took `run.fromCheckpointId` (resume, fork), if any. */
  originRunId: string | null;
  steps: {
    stepId: string;
    index: number;
    kind: string;
    tool: string | null;
    status: string;
    error: string | null;
    attempts: number;
    promptTokens: number;
    cachedTokens: number;
    completionTokens: number;
    summary: string;
    startedAt: Date;
    endedAt: Date | null;
  }[];
  modelCalls: {
    id: string;
    stepId: string;
    attempt: number;
    model: string;
    promptTokens: number;
    cachedTokens: number;
    completionTokens: number;
    reasoningTokens: number;
    estimated: boolean;
    status: string;
    httpStatus: number | null;
    billed: boolean;
    cause: string;
    latencyMs: number;
    error: string | null;
    /** USD. */
    costUsd: number;
    /** When the attempt ended (its row was written); it started `latencyMs` earlier. */
    createdAt: Date;
  }[];
  checkpoints: { id: string; seq: number; reason: string; afterStepId: string; contextTokens: number; transcriptTokens: number; createdAt: Date }[];
  alerts: { stepId: string; kind: string; severity: string; message: string; createdAt: Date }[];
  escalations: {
    id: string;
    stepId: string;
    reason: string;
    message: string;
    status: string;
    decision: string | null;
    decidedAt: Date | null;
    createdAt: Date;
    checkpointId: string | null;
    resultRunId: string | null;
  }[];
  /** The escalation whose decision started this run (resultRunId = run id), if any. */
  startedBy: { id: string; runId: string; reason: string; decision: string | null; decidedAt: Date | null } | null;
  sideEffects: { stepId: string; tool: string; status: string; repeats: number; idempotencyKey: string }[];
}

/** Longest string attribute value (characters); longer values are cut and end in "…". */
export const MAX_ATTRIBUTE_CHARS = 2_000;

const hex = (input: string) => createHash("sha256").update(input).digest("hex");

/** The W3C trace id (32 lowercase hex digits) of a run's trace: the first 128 bits of sha256("longhaul-run:" + runId). */
export function traceIdOfRun(runId: string): string {
  return hex(`longhaul-run:${runId}`).slice(0, 32);
}

/** The span id (16 hex digits) of the span with `key` in the run's trace: the first 64 bits of sha256(runId + "/" + key). */
export function spanIdOf(runId: string, key: string): string {
  return hex(`${runId}/${key}`).slice(0, 16);
}

const clip = (s: string) => (s.length > MAX_ATTRIBUTE_CHARS ? `${s.slice(0, MAX_ATTRIBUTE_CHARS - 1)}…` : s);

/** `attrs` without null/undefined values, strings clipped to {@link MAX_ATTRIBUTE_CHARS}. */
function attrs(input: Record<string, TraceAttributeValue | null | undefined>): TraceAttributes {
  const out: TraceAttributes = {};
  for (const [k, v] of Object.entries(input)) {
    if (v === null || v === undefined) continue;
    out[k] = typeof v === "string" ? clip(v) : v;
  }
  return out;
}

/** The code of a stored step error `[code] message`, else null. */
function errorCode(error: string | null): string | null {
  return error?.match(/^\[([a-z_]+)\]/)?.[1] ?? null;
}

const round8 = (n: number) => Math.round(n * 1e8) / 1e8;

/**
 * The trace of one finished run (see the module comment for the shape). Steps in timeline order;
 * a step still `running` (the run ended under it) ends at the run's end; a model call whose step is
 * not on the timeline (e.g. a checkpoint summary) hangs under the root. Pure.
 */
export function buildRunTrace(data: RunTraceData): TraceSpanSpec {
  const { run, task } = data;
  const runEnd = run.endedAt ?? [...data.steps.map((s) => s.endedAt ?? s.startedAt), run.startedAt].reduce((a, b) => (a > b ? a : b));
  const callsByStep = new Map<string, RunTraceData["modelCalls"]>();
  for (const c of data.modelCalls) {
    const list = callsByStep.get(c.stepId);
    if (list) list.push(c);
    else callsByStep.set(c.stepId, [c]);
  }
  const alertsByStep = new Map<string, RunTraceData["alerts"]>();
  for (const a of data.alerts) {
    const list = alertsByStep.get(a.stepId);
    if (list) list.push(a);
    else alertsByStep.set(a.stepId, [a]);
  }
  const effectByStep = new Map(data.sideEffects.map((e) => [e.stepId, e]));
  const stepIds = new Set(data.steps.map((s) => s.stepId));

  const callSpan = (c: RunTraceData["modelCalls"][number]): TraceSpanSpec => ({
    key: `call:${c.id}`,
    name: `chat ${c.model}`,
    start: new Date(c.createdAt.getTime() - c.latencyMs),
    end: c.createdAt,
    attributes: attrs({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": task.provider,
      "gen_ai.request.model": c.model,
      "gen_ai.usage.input_tokens": c.promptTokens,
      "gen_ai.usage.output_tokens": c.completionTokens,
      "gen_ai.usage.cache_read.input_tokens": c.cachedTokens,
      "gen_ai.usage.reasoning.output_tokens": c.reasoningTokens,
      "error.type": c.status === "ok" ? null : c.httpStatus ? String(c.httpStatus) : c.status,
      "longhaul.cost.usd": round8(c.costUsd),
      "longhaul.model_call.attempt": c.attempt,
      "longhaul.model_call.status": c.status,
      "longhaul.model_call.http_status": c.httpStatus,
      "longhaul.model_call.billed": c.billed,
      "longhaul.model_call.usage_estimated": c.estimated,
      "longhaul.model_call.cause": c.cause,
      "longhaul.step.id": c.stepId,
    }),
    events: [],
    error: c.status === "ok" ? undefined : (c.error ?? c.status),
    links: [],
    children: [],
  });

  const alertEvents = (stepId: string) =>
    (alertsByStep.get(stepId) ?? []).map((a) => ({
      name: "longhaul.alert",
      time: a.createdAt,
      attributes: attrs({ "longhaul.alert.kind": a.kind, "longhaul.alert.severity": a.severity, "longhaul.alert.message": a.message }),
    }));

  const steps = [...data.steps].sort((a, b) => a.index - b.index);
  const stepSpans: TraceSpanSpec[] = steps.map((s) => {
    const calls = callsByStep.get(s.stepId) ?? [];
    const cost = calls.reduce((sum, c) => sum + c.costUsd, 0);
    const base = {
      "longhaul.step.id": s.stepId,
      "longhaul.step.index": s.index,
      "longhaul.step.kind": s.kind,
      "longhaul.step.status": s.status,
      "longhaul.step.attempts": s.attempts,
      "longhaul.step.summary": s.summary || null,
    };
    const end = s.endedAt ?? runEnd;
    const failed = s.status === "failed" ? (s.error ?? "failed") : undefined;
    if (s.kind === "tool") {
      const effect = effectByStep.get(s.stepId);
      return {
        key: `step:${s.stepId}`,
        name: `execute_tool ${s.tool ?? "unknown"}`,
        start: s.startedAt,
        end,
        attributes: attrs({
          ...base,
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": s.tool,
          "gen_ai.tool.call.id": s.stepId,
          "gen_ai.tool.type": "function",
          "longhaul.tool.outcome": s.status === "completed" ? "ok" : s.status === "failed" ? (errorCode(s.error) ?? "error") : s.status,
          "error.type": s.status === "failed" ? (errorCode(s.error) ?? "error") : null,
          "longhaul.side_effect.status": effect?.status,
          "longhaul.side_effect.idempotency_key": effect?.idempotencyKey,
          "longhaul.side_effect.repeats": effect?.repeats,
        }),
        events: alertEvents(s.stepId),
        error: failed,
        links: [],
        children: [],
      };
    }
    return {
      key: `step:${s.stepId}`,
      name: `step ${s.stepId}`,
      start: s.startedAt,
      end,
      attributes: attrs({
        ...base,
        "longhaul.usage.input_tokens": s.kind === "model" ? s.promptTokens : null,
        "longhaul.usage.output_tokens": s.kind === "model" ? s.completionTokens : null,
        "longhaul.usage.cache_read.input_tokens": s.kind === "model" ? s.cachedTokens : null,
        "longhaul.cost.usd": calls.length ? round8(cost) : null,
      }),
      events: alertEvents(s.stepId),
      error: failed,
      links: [],
      children: calls.map(callSpan),
    };
  });

  const escalationSpans: TraceSpanSpec[] = data.escalations.map((e) => ({
    key: `escalation:${e.id}`,
    name: `escalation ${e.reason}`,
    start: e.createdAt,
    end: e.decidedAt ?? e.createdAt,
    attributes: attrs({
      "longhaul.escalation.id": e.id,
      "longhaul.escalation.reason": e.reason,
      "longhaul.escalation.message": e.message,
      "longhaul.escalation.status": e.status,
      "longhaul.escalation.decision": e.decision,
      "longhaul.escalation.checkpoint_id": e.checkpointId,
      "longhaul.step.id": e.stepId,
    }),
    events: e.decidedAt
      ? [
          {
            name: "longhaul.decision",
            time: e.decidedAt,
            attributes: attrs({ "longhaul.escalation.id": e.id, "longhaul.decision": e.decision, "longhaul.decision.result_run_id": e.resultRunId }),
          },
        ]
      : [],
    links: [],
    children: [],
  }));

  const orphanCalls = data.modelCalls.filter((c) => !stepIds.has(c.stepId)).map(callSpan);
  const totals = data.modelCalls.reduce(
    (t, c) => ({ input: t.input + c.promptTokens, output: t.output + c.completionTokens, cached: t.cached + c.cachedTokens, cost: t.cost + c.costUsd }),
    { input: 0, output: 0, cached: 0, cost: 0 },
  );

  const rootEvents: TraceSpanSpec["events"] = data.checkpoints.map((c) => ({
    name: "longhaul.checkpoint",
    time: c.createdAt,
    attributes: attrs({
      "longhaul.checkpoint.id": c.id,
      "longhaul.checkpoint.seq": c.seq,
      "longhaul.checkpoint.reason": c.reason,
      "longhaul.checkpoint.after_step_id": c.afterStepId,
      "longhaul.checkpoint.context_tokens": c.contextTokens,
      "longhaul.checkpoint.transcript_tokens": c.transcriptTokens,
    }),
  }));
  if (data.startedBy) {
    rootEvents.unshift({
      name: "longhaul.decision",
      time: data.startedBy.decidedAt ?? run.startedAt,
      attributes: attrs({
        "longhaul.escalation.id": data.startedBy.id,
        "longhaul.escalation.reason": data.startedBy.reason,
        "longhaul.decision": data.startedBy.decision,
        "longhaul.decision.result_run_id": run.id,
      }),
    });
  }
  // Alerts raised at no step of the timeline (e.g. by a segment boundary) go on the root.
  for (const [stepId] of alertsByStep) if (!stepIds.has(stepId)) rootEvents.push(...alertEvents(stepId));

  const failed = run.status === "failed" ? (run.error ?? run.endReason ?? "failed") : undefined;
  return {
    key: "run",
    name: `invoke_agent ${task.profileName}`,
    start: run.startedAt,
    end: runEnd,
    attributes: attrs({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": task.provider,
      "gen_ai.agent.name": task.profileName,
      "gen_ai.conversation.id": run.taskId,
      "gen_ai.request.model": task.model,
      "longhaul.task.id": run.taskId,
      "longhaul.task.goal": task.goal,
      "longhaul.run.id": run.id,
      "longhaul.run.cause": run.cause,
      "longhaul.run.status": run.status,
      "longhaul.run.end_reason": run.endReason,
      "longhaul.run.segments": run.segments,
      "longhaul.run.from_checkpoint_id": run.fromCheckpointId,
      "longhaul.run.steps": data.steps.length,
      "longhaul.usage.input_tokens": totals.input,
      "longhaul.usage.output_tokens": totals.output,
      "longhaul.usage.cache_read.input_tokens": totals.cached,
      "longhaul.cost.usd": round8(totals.cost),
      "error.type": failed ? (run.endReason ?? "error") : null,
    }),
    events: rootEvents.sort((a, b) => a.time.getTime() - b.time.getTime()),
    error: failed,
    links: data.originRunId ? [{ runId: data.originRunId, attributes: { "longhaul.link": run.cause } }] : [],
    children: [...stepSpans, ...orphanCalls, ...escalationSpans],
  };
}

/** Every span of the tree, parents before children (depth first). */
export function flattenTrace(root: TraceSpanSpec): { span: TraceSpanSpec; parentKey: string | null }[] {
  const out: { span: TraceSpanSpec; parentKey: string | null }[] = [];
  const walk = (span: TraceSpanSpec, parentKey: string | null) => {
    out.push({ span, parentKey });
    for (const child of span.children) walk(child, span.key);
  };
  walk(root, null);
  return out;
}
