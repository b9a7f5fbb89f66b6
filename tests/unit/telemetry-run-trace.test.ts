import { describe, expect, it } from "vitest";
import { buildRunTrace, flattenTrace, MAX_ATTRIBUTE_CHARS, spanIdOf, traceIdOfRun, type RunTraceData } from "../../server/telemetry/run-trace.ts";

// The pure part of trace export (server/telemetry/run-trace.ts): a run's rows → the span tree.
// The export itself (SDK, OTLP/HTTP, redaction, bookkeeping) is tested in tests/integration/trace-export.test.ts.

const t = (ms: number) => new Date(Date.UTC(2026, 11, 2, 5, 0, 0) + ms);

function data(extra: Partial<RunTraceData> = {}): RunTraceData {
  return {
    run: {
      id: "run_1",
      taskId: "task_1",
      cause: "initial",
      status: "failed",
      endReason: "error",
      error: "[model_error] boom",
      segments: 1,
      fromCheckpointId: null,
      startedAt: t(0),
      endedAt: t(1_000),
    },
    task: { goal: "g".repeat(MAX_ATTRIBUTE_CHARS + 10), profileName: "scripted", model: "scripted", provider: "openai" },
    originRunId: null,
    steps: [
      {
        stepId: "tool-0-0",
        index: 1,
        kind: "tool",
        tool: "http_post",
        status: "failed",
        error: "[egress_refused] no",
        attempts: 1,
        promptTokens: 0,
        cachedTokens: 0,
        completionTokens: 0,
        summary: "",
        startedAt: t(300),
        endedAt: t(350),
      },
      {
        stepId: "model-0",
        index: 0,
        kind: "model",
        tool: null,
        status: "completed",
        error: null,
        attempts: 2,
        promptTokens: 100,
        cachedTokens: 10,
        completionTokens: 5,
        summary: "http_post",
        startedAt: t(10),
        endedAt: t(290),
      },
      {
        stepId: "model-1",
        index: 2,
        kind: "model",
        tool: null,
        status: "running",
        error: null,
        attempts: 1,
        promptTokens: 0,
        cachedTokens: 0,
        completionTokens: 0,
        summary: "",
        startedAt: t(400),
        endedAt: null,
      },
    ],
    modelCalls: [
      {
        id: "c1",
        stepId: "model-0",
        attempt: 0,
        model: "scripted",
        promptTokens: 0,
        cachedTokens: 0,
        completionTokens: 0,
        reasoningTokens: 0,
        estimated: false,
        status: "error",
        httpStatus: 429,
        billed: false,
        cause: "retry",
        latencyMs: 20,
        error: "rate limited",
        costUsd: 0,
        createdAt: t(40),
      },
      {
        id: "c2",
        stepId: "model-0",
        attempt: 1,
        model: "scripted",
        promptTokens: 100,
        cachedTokens: 10,
        completionTokens: 5,
        reasoningTokens: 0,
        estimated: false,
        status: "ok",
        httpStatus: 200,
        billed: true,
        cause: "productive",
        latencyMs: 50,
        error: null,
        costUsd: 0.000123,
        createdAt: t(280),
      },
      {
        id: "c3",
        stepId: "summary-x",
        attempt: 0,
        model: "scripted",
        promptTokens: 7,
        cachedTokens: 0,
        completionTokens: 3,
        reasoningTokens: 0,
        estimated: true,
        status: "ok",
        httpStatus: 200,
        billed: true,
        cause: "checkpoint",
        latencyMs: 5,
        error: null,
        costUsd: 0.00001,
        createdAt: t(500),
      },
    ],
    checkpoints: [],
    alerts: [{ stepId: "tool-0-0", kind: "error", severity: "warning", message: "refused", createdAt: t(360) }],
    escalations: [],
    startedBy: null,
    sideEffects: [],
    ...extra,
  };
}

describe("buildRunTrace", () => {
  it("nests steps under the run and model calls under their step, in timeline order", () => {
    const root = buildRunTrace(data());
    expect(root.name).toBe("invoke_agent scripted");
    expect(root.children.map((c) => c.name)).toEqual(["step model-0", "execute_tool http_post", "step model-1", "chat scripted"]);
    expect(root.children[0]!.children.map((c) => c.key)).toEqual(["call:c1", "call:c2"]);
    // A failed run, a failed tool, a failed attempt are ERROR spans; the 429 attempt started `latencyMs` before its row.
    expect(root.error).toBe("[model_error] boom");
    expect(root.children[1]).toMatchObject({
      error: "[egress_refused] no",
      attributes: { "longhaul.tool.outcome": "egress_refused", "error.type": "egress_refused" },
    });
    expect(root.children[0]!.children[0]).toMatchObject({ error: "rate limited", start: t(20), end: t(40), attributes: { "error.type": "429" } });
    // A step the run ended under ends with the run; the orphan call (a checkpoint summary) hangs under the root.
    expect(root.children[2]!.end).toEqual(t(1_000));
    expect(root.children[3]!.attributes).toMatchObject({ "longhaul.model_call.cause": "checkpoint", "gen_ai.usage.input_tokens": 7 });
    // The alert is an event on its step; long strings are clipped.
    expect(root.children[1]!.events.map((e) => e.name)).toEqual(["longhaul.alert"]);
    expect(String(root.attributes["longhaul.task.goal"])).toHaveLength(MAX_ATTRIBUTE_CHARS);
  });

  it("puts GenAI usage on the chat spans only, so a backend summing gen_ai.usage counts each token once", () => {
    const spans = flattenTrace(buildRunTrace(data())).map((s) => s.span);
    const sum = (k: string) => spans.reduce((n, s) => n + Number(s.attributes[k] ?? 0), 0);
    expect(sum("gen_ai.usage.input_tokens")).toBe(107);
    expect(sum("gen_ai.usage.output_tokens")).toBe(8);
    expect(spans.filter((s) => s.attributes["gen_ai.usage.input_tokens"] !== undefined).every((s) => s.name.startsWith("chat "))).toBe(true);
    expect(spans[0]!.attributes).toMatchObject({ "longhaul.usage.input_tokens": 107, "longhaul.cost.usd": 0.000133 });
  });

  it("derives ids from the run, and links a resumed run to the root of the run it came from", () => {
    expect(traceIdOfRun("run_1")).toMatch(/^[0-9a-f]{32}$/);
    expect(traceIdOfRun("run_1")).toBe(traceIdOfRun("run_1"));
    expect(traceIdOfRun("run_1")).not.toBe(traceIdOfRun("run_2"));
    expect(spanIdOf("run_1", "run")).toMatch(/^[0-9a-f]{16}$/);
    const root = buildRunTrace(
      data({
        run: { ...data().run, cause: "resume", status: "completed", fromCheckpointId: "cp_1" },
        originRunId: "run_0",
        startedBy: { id: "esc_1", runId: "run_0", reason: "loop", decision: "resume", decidedAt: t(-5) },
      }),
    );
    expect(root.error).toBeUndefined();
    expect(root.links).toEqual([{ runId: "run_0", attributes: { "longhaul.link": "resume" } }]);
    expect(root.events[0]).toMatchObject({
      name: "longhaul.decision",
      time: t(-5),
      attributes: { "longhaul.escalation.id": "esc_1", "longhaul.decision": "resume" },
    });
  });
});
