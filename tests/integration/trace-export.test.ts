import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { resetEnv } from "../../server/env.ts";
import { exportRuns, recordBatch, traceExportConfig } from "../../server/telemetry/export-run-trace.ts";
import { spanIdOf, traceIdOfRun } from "../../server/telemetry/run-trace.ts";
import { createSpanPipeline } from "../../server/telemetry/span-pipeline.ts";
import { startTraceExport, stopTraceExport, traceExportStats } from "../../server/telemetry/trace-export.ts";
import { waitFor, type AgentStack } from "../support/agent-stack.ts";
import { disarmFaults } from "../support/checkpoint-helpers.ts";
import { useAgentStack } from "../support/fixtures.ts";
import { attrsOf, plain, startOtlpReceiver, type OtlpReceiver, type OtlpSpan } from "../support/otlp-receiver.ts";

// Traces out on the real pieces: demo runs driven by the app process and the executor process with
// the scripted model over HTTP, exported with the OpenTelemetry JS SDK (BatchSpanProcessor, OTLP/HTTP
// exporter, configured only by the standard OTEL_* variables) to a real OTLP/HTTP receiver this test
// starts — one that accepts, one that refuses then recovers, one that accepts and never answers, one
// that holds every answer.

const LIMIT = 3;
// A GitHub token shape the egress scanner (secretlint's preset) detects; planted in rows the trace is made of.
const SECRET = `ghp_${"wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx"}`;

let stack: AgentStack;
useAgentStack((started) => (stack = started));
const receivers: OtlpReceiver[] = [];
const saved = { ...process.env };
afterEach(async () => {
  await stopTraceExport();
  vi.restoreAllMocks();
});
afterAll(async () => {
  process.env = saved;
  resetEnv();
  for (const r of receivers) await r.close();
});

/** A receiver this file closes at the end. */
async function receiverWith(...args: Parameters<typeof startOtlpReceiver>): Promise<OtlpReceiver> {
  const r = await startOtlpReceiver(...args);
  receivers.push(r);
  return r;
}

/** Configures export to `receiver` through the standard variables only, as an operator would (`more` adds OTEL_* variables). */
function exportTo(receiver: OtlpReceiver, more: Record<string, string> = {}): void {
  for (const k of Object.keys(process.env)) if (k.startsWith("OTEL_")) delete process.env[k];
  Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "100", ...more });
  resetEnv(); // server/env.ts parses process.env once
}

/** Runs of earlier tests (sharing the database) count as exported, so a pass here only sees this test's runs. */
async function forgetEarlierRuns(): Promise<void> {
  await stack.db.$executeRaw`INSERT INTO run_trace_export ("runId", "traceId", "claimedAt", "exportedAt")
    SELECT r.id, md5(r.id), now(), now() FROM run r ON CONFLICT ("runId") DO UPDATE SET "exportedAt" = coalesce(run_trace_export."exportedAt", now())`;
}

/** Waits until the export of each run is closed (every span answered for); returns the span counts. */
async function waitExported(runIds: string[], timeoutMs = 60_000): Promise<number[]> {
  return waitFor(
    `the export of ${runIds.join(", ")} to close`,
    async () => {
      const rows = await stack.db.runTraceExport.findMany({ where: { runId: { in: runIds }, exportedAt: { not: null } } });
      return rows.length === runIds.length ? runIds.map((id) => rows.find((r) => r.runId === id)!.spans) : undefined;
    },
    timeoutMs,
    100,
  );
}

/**
 * The run's spans as the receiver stored them: each span id exactly once (a duplicate is named), `count`
 * spans in all, one root (the run's derived span id), every other span's parent in the same trace.
 */
function expectWholeTraceOnce(receiver: OtlpReceiver, runId: string, count: number): OtlpSpan[] {
  const trace = receiver.accepted().filter((s) => s.traceId === traceIdOfRun(runId));
  const seen = new Map<string, number>();
  for (const s of trace) seen.set(s.spanId, (seen.get(s.spanId) ?? 0) + 1);
  const twice = trace.filter((s) => seen.get(s.spanId)! > 1).map((s) => s.name);
  expect(twice, "spans the collector got more than once").toEqual([]);
  expect(trace).toHaveLength(count);
  expect(trace.filter((s) => !s.parentSpanId).map((s) => s.spanId)).toEqual([spanIdOf(runId, "run")]);
  expect(trace.filter((s) => s.parentSpanId && !seen.has(s.parentSpanId)).map((s) => s.name)).toEqual([]);
  return trace;
}

/** Lines the exporter logged (it writes `[traces] …` to stderr). */
function traceLog(): () => string[] {
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString();
    if (text.startsWith("[traces]")) lines.push(text.trim());
    return (write as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
  });
  return () => lines;
}

describe("trace export", () => {
  it("is off unless an OTLP endpoint is configured", () => {
    expect(traceExportConfig({})).toMatchObject({ enabled: false });
    expect(traceExportConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" })).toEqual({
      enabled: true,
      endpoint: "http://collector:4318/v1/traces",
    });
    expect(traceExportConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://x/t", OTEL_EXPORTER_OTLP_ENDPOINT: "http://y" })).toEqual({
      enabled: true,
      endpoint: "http://x/t",
    });
    expect(traceExportConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://y", OTEL_SDK_DISABLED: "true" })).toMatchObject({ enabled: false });
    expect(traceExportConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://y", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toMatchObject({ enabled: false });
  });

  it("exports an escalated run and its resumed run: span tree, GenAI attributes, decision, link, no secret", async () => {
    const { taskId, runId } = await stack.launch({ input: { demo: { kind: "license-audit", limit: LIMIT }, requireApproval: true }, actor: "trace-test" });
    expect(await stack.waitForTaskStatus(taskId, ["waiting_for_human", "completed", "failed", "dead_end"])).toBe("waiting_for_human");
    const escalation = await stack.db.escalation.findFirstOrThrow({ where: { taskId } });
    await stack.decide({ input: { escalationId: escalation.id, decision: "approve" }, actor: "handler-t" });
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    const runs = await stack.db.run.findMany({ where: { taskId }, orderBy: { startedAt: "asc" } });
    expect(runs.map((r) => `${r.cause} ${r.status}`)).toEqual(["initial escalated", "resume completed"]);
    const resumedId = runs[1]!.id;

    // Plant a secret where the trace reads: the task's goal and a tool step's summary.
    await stack.db.task.update({ where: { id: taskId }, data: { goal: `${runs[0]!.id} audit; deploy token ${SECRET}` } });
    const toolStep = await stack.db.step.findFirstOrThrow({ where: { runId, kind: "tool" }, orderBy: { index: "asc" } });
    await stack.db.step.update({ where: { id: toolStep.id }, data: { summary: `read with token=${SECRET}` } });

    // Configured only through the standard variables, as an operator would.
    const receiver = await receiverWith();
    exportTo(receiver, { OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=trace-test-key", OTEL_SERVICE_NAME: "longhaul-trace-test" });
    expect(traceExportConfig()).toEqual({ enabled: true, endpoint: `${receiver.url}/v1/traces` });

    // Two exporting processes at once (two web replicas): passes of both over the same runs, until
    // both runs are closed; each span reaches the collector once.
    const replicas = ["replica-a", "replica-b"].map((owner) => ({
      owner,
      pipeline: createSpanPipeline({ scheduledDelayMillis: 50, onBatch: (spans, outcome, error) => recordBatch({ prisma: stack.db, spans, outcome, error }) }),
    }));
    await waitFor(
      "both runs exported",
      async () => {
        await Promise.all(replicas.map((r) => exportRuns({ prisma: stack.db, pipeline: r.pipeline, owner: r.owner, taskId })));
        await Promise.all(replicas.map((r) => r.pipeline.flush()));
        return (await stack.db.runTraceExport.count({ where: { runId: { in: [runId, resumedId] }, exportedAt: { not: null } } })) === 2;
      },
      60_000,
      100,
    );
    await Promise.all(replicas.map((r) => r.pipeline.shutdown()));
    const owners = await stack.db.runTraceExport.findMany({ where: { runId: { in: [runId, resumedId] } } });
    for (const row of owners) expectWholeTraceOnce(receiver, row.runId, row.spans);
    expect(await stack.db.traceSpanExport.count({ where: { runId: { in: [runId, resumedId] } } })).toBe(0); // closed runs keep no span rows

    for (const r of receiver.requests) {
      expect(r.path).toBe("/v1/traces");
      expect(r.headers["content-type"]).toMatch(/application\/json/);
      expect(r.headers["x-api-key"]).toBe("trace-test-key");
      expect(attrsOf(r.body.resourceSpans[0]!.resource.attributes)).toMatchObject({ "service.name": "longhaul-trace-test" });
      // The planted secret is nowhere in what left; its redaction marker is.
      expect(r.raw).not.toContain(SECRET);
      expect(r.raw).not.toContain("trace-test-key");
    }
    expect(receiver.requests.some((r) => r.raw.includes("[redacted: "))).toBe(true);

    const spans = receiver.accepted();
    const byTrace = (id: string) => spans.filter((s) => s.traceId === traceIdOfRun(id));
    const rows = await stack.db.run.findMany({ where: { taskId }, include: { steps: true, modelCalls: true } });

    for (const row of rows) {
      const trace = byTrace(row.id);
      const ids = new Set(trace.map((s) => s.spanId));
      const roots = trace.filter((s) => !s.parentSpanId);
      // One root per run, every other span's parent in the same trace.
      expect(roots.map((s) => s.name)).toEqual(["invoke_agent scripted"]);
      const root = roots[0]!;
      expect(root.spanId).toBe(spanIdOf(row.id, "run"));
      expect(trace.filter((s) => s.parentSpanId && !ids.has(s.parentSpanId)).map((s) => s.name)).toEqual([]);
      expect(attrsOf(root.attributes)).toMatchObject({
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "scripted",
        "gen_ai.conversation.id": taskId,
        "longhaul.run.id": row.id,
        "longhaul.run.status": row.status,
        "longhaul.run.steps": row.steps.length,
      });
      expect(attrsOf(root.attributes)["longhaul.task.goal"]).toMatch(/deploy token \[redacted: [^\]]+\]$/);

      // A span per step, under the root.
      const stepSpans = trace.filter((s) => s.parentSpanId === root.spanId && (s.name.startsWith("step ") || s.name.startsWith("execute_tool ")));
      expect(stepSpans.map((s) => attrsOf(s.attributes)["longhaul.step.id"]).sort()).toEqual(row.steps.map((s) => s.stepId).sort());
      for (const s of stepSpans) expect(BigInt(s.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(s.startTimeUnixNano));

      // Tool steps: name and outcome.
      for (const step of row.steps.filter((s) => s.kind === "tool")) {
        const span = stepSpans.find((s) => attrsOf(s.attributes)["longhaul.step.id"] === step.stepId)!;
        expect(span.name).toBe(`execute_tool ${step.tool}`);
        expect(attrsOf(span.attributes)).toMatchObject({
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": step.tool,
          "gen_ai.tool.call.id": step.stepId,
          "longhaul.tool.outcome": step.status === "completed" ? "ok" : expect.any(String),
        });
      }

      // Model calls: one chat span per HTTP attempt, GenAI usage summing to the ledger's.
      const chats = trace.filter((s) => s.name.startsWith("chat "));
      expect(chats).toHaveLength(row.modelCalls.length);
      const sum = (k: string) => chats.reduce((n, s) => n + Number(attrsOf(s.attributes)[k] ?? 0), 0);
      expect(sum("gen_ai.usage.input_tokens")).toBe(row.modelCalls.reduce((n, c) => n + c.promptTokens, 0));
      expect(sum("gen_ai.usage.output_tokens")).toBe(row.modelCalls.reduce((n, c) => n + c.completionTokens, 0));
      expect(sum("longhaul.cost.usd")).toBeCloseTo(
        row.modelCalls.reduce((n, c) => n + Number(c.costUsd.toString()), 0),
        6,
      );
      for (const c of chats) {
        expect(attrsOf(c.attributes)).toMatchObject({
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": "scripted",
          "gen_ai.request.model": "scripted",
        });
      }
      const modelStep = row.steps.find((s) => s.kind === "model")!;
      const modelStepSpan = stepSpans.find((s) => attrsOf(s.attributes)["longhaul.step.id"] === modelStep.stepId)!;
      expect(chats.some((c) => c.parentSpanId === modelStepSpan.spanId)).toBe(true);
    }

    // The escalated run: its checkpoint before the email, the escalation and the handler's decision.
    const first = byTrace(runId);
    const firstRoot = first.find((s) => !s.parentSpanId)!;
    const checkpoints = await stack.db.checkpoint.findMany({ where: { runId } });
    expect((firstRoot.events ?? []).filter((e) => e.name === "longhaul.checkpoint").map((e) => attrsOf(e.attributes)["longhaul.checkpoint.id"])).toEqual(
      expect.arrayContaining(checkpoints.map((c) => c.id)),
    );
    const escalationSpan = first.find((s) => s.name === "escalation risky_action")!;
    expect(escalationSpan.parentSpanId).toBe(firstRoot.spanId);
    expect(attrsOf(escalationSpan.attributes)).toMatchObject({ "longhaul.escalation.id": escalation.id, "longhaul.escalation.decision": "approve" });
    expect(escalationSpan.events?.map((e) => [e.name, attrsOf(e.attributes)["longhaul.decision"]])).toEqual([["longhaul.decision", "approve"]]);
    // The planted summary went out redacted.
    const plantedSpan = first.find((s) => attrsOf(s.attributes)["longhaul.step.id"] === toolStep.stepId && s.name.startsWith("execute_tool"))!;
    expect(attrsOf(plantedSpan.attributes)["longhaul.step.summary"]).toMatch(/^read with token=\[redacted: [^\]]+\]$/);

    // The resumed run: started by the decision, linked to the escalated run's trace, the email sent once.
    const second = byTrace(resumedId);
    const secondRoot = second.find((s) => !s.parentSpanId)!;
    expect(secondRoot.links?.map((l) => [l.traceId, l.spanId])).toEqual([[traceIdOfRun(runId), spanIdOf(runId, "run")]]);
    expect(secondRoot.events?.find((e) => e.name === "longhaul.decision")?.attributes.map((kv) => [kv.key, plain(kv.value)])).toEqual(
      expect.arrayContaining([
        ["longhaul.escalation.id", escalation.id],
        ["longhaul.decision", "approve"],
      ]),
    );
    const email = second.find((s) => s.name === "execute_tool send_email")!;
    expect(attrsOf(email.attributes)).toMatchObject({
      "longhaul.tool.outcome": "ok",
      "longhaul.side_effect.status": "committed",
      "longhaul.side_effect.repeats": 0,
    });
  });

  it("shows a long run while it runs: each step's span once the step ends, the run's once the run ends", async () => {
    const receiver = await receiverWith();
    exportTo(receiver);
    await forgetEarlierRuns();
    // The model holds its third answer for 30 s: the run is running meanwhile, with steps already ended.
    await stack.armFaults({ kind: "stall", skip: 2, stallMs: 30_000, phase: "before_headers" });
    let runId = "";
    // What the database said about the run when each request of its trace arrived.
    const arrivals: { runStatus: string; names: string[] }[] = [];
    receiver.onRequest = async (spans) => {
      const mine = spans.filter((s) => runId && s.traceId === traceIdOfRun(runId));
      if (mine.length) arrivals.push({ runStatus: (await stack.db.run.findUniqueOrThrow({ where: { id: runId } })).status, names: mine.map((s) => s.name) });
    };
    // Only the change feed wakes the exporter in time: the sweep is an hour away.
    expect(startTraceExport({ intervalMs: 3_600_000 })).toBe(true);
    const launched = await stack.launchDemo({ limit: LIMIT });
    runId = launched.runId;
    const early = await waitFor("a span of the run while it runs", () => arrivals.find((a) => a.runStatus === "running"), 45_000, 100);
    expect(early.names.some((n) => n.startsWith("step ") || n.startsWith("execute_tool "))).toBe(true);
    expect(early.names.some((n) => n.startsWith("invoke_agent"))).toBe(false);
    // Seen while running: the held answer goes now rather than when its 30 s run out.
    await disarmFaults(stack);

    expect(await stack.waitForTaskStatus(launched.taskId)).toBe("completed");
    const [count] = await waitExported([runId]);
    expectWholeTraceOnce(receiver, runId, count!);
    const root = arrivals.find((a) => a.names.some((n) => n.startsWith("invoke_agent")));
    expect(root?.runStatus).toBe("completed");
    receiver.onRequest = undefined;
  });

  it("a collector that refuses (HTTP 500) and then recovers gets every span once, after a logged back-off", async () => {
    const receiver = await receiverWith((n) => (n < 3 ? { kind: "fail", status: 500 } : { kind: "accept" }));
    // Small requests: a run's spans take several, so some fail and others do not.
    exportTo(receiver, { OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "4" });
    await forgetEarlierRuns();
    const log = traceLog();
    expect(startTraceExport({ intervalMs: 1_000 })).toBe(true);
    const { taskId, runId } = await stack.launchDemo({ limit: LIMIT });
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    const [count] = await waitExported([runId]);
    expect(receiver.requests.filter((r) => r.action === "fail")).toHaveLength(3);
    expectWholeTraceOnce(receiver, runId, count!);
    expect(log().filter((l) => /export of \d+ span\(s\) to .* failed/.test(l))).toHaveLength(1); // one line per streak
    expect(log().some((l) => l.includes("works again"))).toBe(true);
    expect((await stack.db.runTraceExport.findUniqueOrThrow({ where: { runId } })).attempts).toBeGreaterThanOrEqual(1);
  });

  it("a collector that accepted a request and timed out on the answer never gets those spans again", async () => {
    // The first request is stored and never answered; the exporter gives up on it after 1 s.
    const receiver = await receiverWith((n) => (n === 0 ? { kind: "accept_then_hang" } : { kind: "accept" }));
    exportTo(receiver, { OTEL_EXPORTER_OTLP_TIMEOUT: "1000" });
    await forgetEarlierRuns();
    const log = traceLog();
    expect(startTraceExport({ intervalMs: 1_000 })).toBe(true);
    const { taskId, runId } = await stack.launchDemo({ limit: LIMIT });
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    // Long enough for a claim's lease to expire: an exporter that sends again would have by then.
    const [count] = await waitExported([runId], 120_000);
    expect(receiver.requests[0]?.action).toBe("accept_then_hang");
    expectWholeTraceOnce(receiver, runId, count!);
    expect(log().some((l) => l.includes("did not answer within the export timeout"))).toBe(true);
    expect(traceExportStats()).toMatchObject({ unconfirmed: expect.any(Number) });
    expect(traceExportStats()!.unconfirmed).toBeGreaterThan(0);
  });

  it("a slow collector holds nothing up: the queue stays bounded, what does not fit is dropped, counted and logged, then sent", async () => {
    // Every answer is held until the test releases the receiver.
    const receiver = await receiverWith(() => ({ kind: "hold" }));
    exportTo(receiver, { OTEL_BSP_MAX_QUEUE_SIZE: "6", OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "3", OTEL_EXPORTER_OTLP_TIMEOUT: "600000" });
    await forgetEarlierRuns();
    const log = traceLog();
    expect(startTraceExport({ intervalMs: 1_000 })).toBe(true);
    const { taskId, runId } = await stack.launchDemo({ limit: LIMIT });
    // The run goes on to the end while the collector answers nothing.
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    const stats = await waitFor("spans dropped from the full queue", () => {
      const s = traceExportStats();
      return s && s.dropped > 0 ? s : undefined;
    });
    expect(stats.sent).toBe(0);
    // Queued at most 6, plus the requests the collector holds (one batch of 3 each).
    expect(stats.pending).toBeLessThanOrEqual(6 + 3 * receiver.requests.length);
    expect(log().filter((l) => l.includes("the export queue is full (OTEL_BSP_MAX_QUEUE_SIZE=6)"))).toHaveLength(1);

    receiver.release();
    const [count] = await waitExported([runId]);
    expectWholeTraceOnce(receiver, runId, count!);
  });
});
