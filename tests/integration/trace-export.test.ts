import { createServer, type IncomingHttpHeaders } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnv } from "../../server/env.ts";
import { createRunTraceEmitter, exportFinishedRuns, traceExportConfig } from "../../server/telemetry/export-run-trace.ts";
import { spanIdOf, traceIdOfRun } from "../../server/telemetry/run-trace.ts";
import { startTraceExport, stopTraceExport } from "../../server/telemetry/trace-export.ts";
import { waitFor, type AgentStack } from "../support/agent-stack.ts";
import { useAgentStack } from "../support/fixtures.ts";
import { freePort } from "../support/ports.ts";

// Traces out (issue 20) on the real pieces: a demo run that asks for approval and a resumed run,
// driven by the app process and the executor process with the scripted model over HTTP, exported
// with the OpenTelemetry JS SDK's OTLP/HTTP exporter (configured only by the standard OTEL_* variables)
// to an OTLP/HTTP receiver this test starts, which decodes the JSON export.

const LIMIT = 3;
// A GitHub token shape the egress scanner (secretlint's preset) detects; planted in rows the trace is made of.
const SECRET = `ghp_${"wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx"}`;

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpKeyValue[];
  events?: { name: string; timeUnixNano: string; attributes: OtlpKeyValue[] }[];
  links?: { traceId: string; spanId: string; attributes: OtlpKeyValue[] }[];
  status?: { code?: number; message?: string };
}
interface OtlpExport {
  resourceSpans: { resource: { attributes: OtlpKeyValue[] }; scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] }[];
}

const plain = (v: OtlpValue) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.doubleValue ?? v.boolValue));
const attrsOf = (kvs: OtlpKeyValue[] = []) => Object.fromEntries(kvs.map((kv) => [kv.key, plain(kv.value)]));

/** An OTLP/HTTP receiver on a free port: records the raw body and headers of every POST /v1/traces, answers 200 `{}`. */
async function startOtlpReceiver() {
  const requests: { path: string; headers: IncomingHttpHeaders; raw: string; body: OtlpExport }[] = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      const body = JSON.parse(raw) as OtlpExport;
      const answer = () => {
        requests.push({ path: req.url ?? "", headers: req.headers, raw, body });
        res.setHeader("content-type", "application/json");
        res.end("{}");
      };
      answer();
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans: () => requests.flatMap((r) => r.body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans))),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

let stack: AgentStack;
useAgentStack((started) => (stack = started));
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
const saved = { ...process.env };
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  process.env = saved;
  resetEnv();
  await receiver?.close();
});

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
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    process.env.OTEL_EXPORTER_OTLP_HEADERS = "x-api-key=trace-test-key";
    process.env.OTEL_SERVICE_NAME = "longhaul-trace-test";
    resetEnv(); // server/env.ts parses process.env once
    expect(traceExportConfig()).toEqual({ enabled: true, endpoint: `${receiver.url}/v1/traces` });

    // Two exporters at once (two web replicas): each run is exported exactly once.
    const [a, b] = [createRunTraceEmitter(), createRunTraceEmitter()];
    const passes = await Promise.all([
      exportFinishedRuns({ prisma: stack.db, emitter: a, taskId }),
      exportFinishedRuns({ prisma: stack.db, emitter: b, taskId }),
    ]);
    expect(passes.flatMap((p) => p.failed)).toEqual([]);
    expect(
      passes
        .flatMap((p) => p.exported)
        .map((e) => e.runId)
        .sort(),
    ).toEqual([runId, resumedId].sort());
    expect(await exportFinishedRuns({ prisma: stack.db, emitter: a, taskId })).toEqual({ exported: [], failed: [] });
    await Promise.all([a.shutdown(), b.shutdown()]);

    expect(receiver.requests).toHaveLength(2); // one request per run
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

    const spans = receiver.spans();
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

    // The bookkeeping says so.
    expect(await stack.db.runTraceExport.findMany({ where: { runId: { in: [runId, resumedId] } }, select: { exportedAt: true, attempts: true } })).toEqual([
      { exportedAt: expect.any(Date), attempts: 1 },
      { exportedAt: expect.any(Date), attempts: 1 },
    ]);
  });

  it("records a failed export and retries it after the claim's lease", async () => {
    const { taskId } = await stack.launchDemo({ limit: 1 });
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${await freePort()}`; // nobody listens
    delete process.env.OTEL_EXPORTER_OTLP_HEADERS;
    resetEnv();
    const emitter = createRunTraceEmitter();
    const pass = await exportFinishedRuns({ prisma: stack.db, emitter, taskId });
    await emitter.shutdown();
    expect(pass.exported).toEqual([]);
    expect(pass.failed).toHaveLength(1);
    const row = await stack.db.runTraceExport.findUniqueOrThrow({ where: { runId: pass.failed[0]!.runId } });
    expect(row).toMatchObject({ exportedAt: null, attempts: 1, error: expect.any(String) });
    // Inside the lease nobody takes it again; once expired, the next pass exports it.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    resetEnv();
    const again = createRunTraceEmitter();
    expect((await exportFinishedRuns({ prisma: stack.db, emitter: again, taskId })).exported).toEqual([]);
    await stack.db.runTraceExport.update({ where: { runId: row.runId }, data: { claimedAt: new Date(Date.now() - 61_000) } });
    const retried = await exportFinishedRuns({ prisma: stack.db, emitter: again, taskId });
    await again.shutdown();
    expect(retried.exported.map((e) => e.runId)).toEqual([row.runId]);
    expect(await stack.db.runTraceExport.findUniqueOrThrow({ where: { runId: row.runId } })).toMatchObject({
      attempts: 2,
      error: null,
      exportedAt: expect.any(Date),
    });
  });

  it("in a web process: a run that ends is exported soon after, woken by the change feed", async () => {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    resetEnv();
    receiver.requests.length = 0;
    // Runs of the test files before this one (sharing the database) count as exported: the boot
    // sweep would otherwise export all of them here (some of tens of thousands of steps) first.
    await stack.db.$executeRaw`INSERT INTO run_trace_export ("runId", "traceId", "claimedAt", "exportedAt")
      SELECT r.id, md5(r.id), now(), now() FROM run r ON CONFLICT ("runId") DO NOTHING`;
    // The sweep interval is far away: only the change feed can wake the exporter in time.
    expect(startTraceExport({ intervalMs: 3_600_000 })).toBe(true);
    try {
      const { taskId, runId } = await stack.launchDemo({ limit: 1 });
      expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
      await waitFor(`the trace of ${runId} to arrive`, () => receiver.spans().some((s) => s.traceId === traceIdOfRun(runId) && !s.parentSpanId), 30_000, 100);
      expect(await stack.db.runTraceExport.findUniqueOrThrow({ where: { runId } })).toMatchObject({ exportedAt: expect.any(Date), attempts: 1 });
    } finally {
      await stopTraceExport();
    }
  });
});
