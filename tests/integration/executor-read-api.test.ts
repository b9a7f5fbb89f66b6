import { NonRetriableError } from "inngest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExecutorHandle } from "../../server/executor/index.ts";
import { apiAuth, runIdForEvent, sendEvent, startTestApp, startTestExecutor, testClient, waitFor, type TestApp } from "../support/executor-harness.ts";
import { testDatabaseUrl } from "../support/database.ts";

// The dev server's read API (docs/INNGEST-PROTOCOL.md Appendix) against real inngest@4.24.0 functions,
// in signed mode (the signing key as bearer; dev mode needs none, executor-dev.test.ts): the query
// texts G1–G3 clients send, with the exact response shapes, executed by the graphql package.
const G1 = `query GetRun($runId: String!) { run(runID: $runId) { status trace(preview: true) { status outputID } } }`;
const G2 = `query ($traceID: String!) { runTraceSpanOutputByID(outputID: $traceID) { data error { message name stack cause } } }`;
const G3 = `query GetEvent($id: ULID!) { eventV2(id: $id) { idempotencyKey name raw } }`;

describe("executor read API: /v0/gql and the REST run views", () => {
  let executor: ExecutorHandle;
  let app: TestApp;

  const gql = async (query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = apiAuth) => {
    const res = await fetch(`${executor.url}/v0/gql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ query, variables }),
    });
    return { status: res.status, body: (await res.json()) as { data?: Record<string, unknown> | null; errors?: { message: string }[] } };
  };
  const runStatus = async (runId: string) =>
    (await gql(G1, { runId })).body.data?.run as { status: string; trace: { status: string; outputID: string | null } } | null;

  beforeAll(async () => {
    executor = await startTestExecutor(testDatabaseUrl());
    const client = testClient("read", executor.url);
    const ok = client.createFunction({ id: "ok", retries: 0, triggers: [{ event: "r/ok" }] }, async ({ step }) => {
      const a = await step.run("a", () => ({ n: 1 }));
      return { result: a.n + 1 };
    });
    const bad = client.createFunction({ id: "bad", retries: 0, triggers: [{ event: "r/bad" }] }, async () => {
      throw new NonRetriableError("it broke", { cause: new Error("root cause") });
    });
    const sleeper = client.createFunction({ id: "sleeper", triggers: [{ event: "r/sleep" }] }, async ({ step }) => {
      await step.sleep("nap", "1h");
      return "woke";
    });
    app = await startTestApp(client, [ok, bad, sleeper]);
    await executor.sync(app.url);
  });

  afterAll(async () => {
    await app?.stop();
    await executor?.stop();
  });

  it("G1/G2: a completed run's status, trace and output; the output's data is JSON text, error null", async () => {
    const eventId = await sendEvent(executor.url, "r/ok");
    const runId = await runIdForEvent(executor.db, "read-ok", eventId);
    const run = await waitFor("COMPLETED", async () => ((await runStatus(runId))?.status === "COMPLETED" ? runStatus(runId) : undefined));
    expect(run).toEqual({ status: "COMPLETED", trace: { status: "COMPLETED", outputID: expect.any(String) } });
    const out = await gql(G2, { traceID: run!.trace.outputID });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ data: { runTraceSpanOutputByID: { data: JSON.stringify({ result: 2 }), error: null } } });
    // REST views of the same run, with Inngest's status names.
    const byEvent = (await (await fetch(`${executor.url}/v1/events/${eventId}/runs`, { headers: apiAuth })).json()) as { data: Record<string, unknown>[] };
    expect(byEvent.data).toHaveLength(1);
    expect(byEvent.data[0]).toMatchObject({ run_id: runId, function_id: "read-ok", status: "Completed", event_id: eventId, output: { result: 2 } });
    const one = (await (await fetch(`${executor.url}/v1/runs/${runId}`, { headers: apiAuth })).json()) as { data: Record<string, unknown> };
    expect(one.data).toMatchObject({ run_id: runId, status: "Completed", ended_at: expect.any(String) });
  });

  it("G2 of a failed run: data null, error {message, name, stack, cause}", async () => {
    const runId = await runIdForEvent(executor.db, "read-bad", await sendEvent(executor.url, "r/bad"));
    const run = await waitFor("FAILED", async () => ((await runStatus(runId))?.status === "FAILED" ? runStatus(runId) : undefined));
    expect(run!.trace.status).toBe("FAILED");
    const out = (await gql(G2, { traceID: run!.trace.outputID })).body.data!.runTraceSpanOutputByID as { data: unknown; error: Record<string, unknown> };
    expect(out.data).toBeNull();
    expect(out.error).toMatchObject({ message: "it broke", name: "NonRetriableError", stack: expect.stringContaining("it broke") });
    expect(Object.keys(out.error).sort()).toEqual(["cause", "message", "name", "stack"]);
  });

  it("G1 of a sleeping run is RUNNING with a WAITING trace and no output yet; DELETE /v1/runs/{id} cancels it (CANCELLED)", async () => {
    const runId = await runIdForEvent(executor.db, "read-sleeper", await sendEvent(executor.url, "r/sleep"));
    const run = await waitFor("WAITING", async () => ((await runStatus(runId))?.trace.status === "WAITING" ? runStatus(runId) : undefined));
    expect(run).toEqual({ status: "RUNNING", trace: { status: "WAITING", outputID: null } });
    const del = await fetch(`${executor.url}/v1/runs/${runId}`, { method: "DELETE", headers: apiAuth });
    expect(del.status).toBe(200);
    expect(((await del.json()) as { data: { status: string } }).data.status).toBe("Cancelled");
    expect((await runStatus(runId))?.status).toBe("CANCELLED");
  });

  it("an unknown run is {data: {run: null}} with HTTP 200; bad queries answer 200 with GraphQL errors", async () => {
    expect(await gql(G1, { runId: "01NOSUCHRUN000000000000000" })).toEqual({ status: 200, body: { data: { run: null } } });
    const wrongField = await gql(`{ run(runID: "x") { nosuch } }`);
    expect(wrongField.status).toBe(200);
    expect(wrongField.body.errors?.[0]?.message).toContain('Cannot query field "nosuch"');
    const missingVar = await gql(G1, {});
    expect(missingVar.body.errors?.[0]?.message).toContain("$runId");
  });

  it("G3: eventV2 has name, raw (the full event JSON, user {} when omitted) and a string idempotencyKey", async () => {
    const plain = await sendEvent(executor.url, "r/none", { k: 1 });
    const g3 = (await gql(G3, { id: plain })).body.data!.eventV2 as { idempotencyKey: unknown; name: string; raw: string };
    expect(g3.name).toBe("r/none");
    expect(typeof g3.idempotencyKey).toBe("string");
    const raw = JSON.parse(g3.raw) as Record<string, unknown>;
    expect(raw).toMatchObject({ name: "r/none", data: { k: 1 }, id: plain, user: {}, ts: expect.any(Number) });
    const own = await sendEvent(executor.url, "r/none", {}, { id: "my-key-1", ts: 1_700_000_000_000, user: { email: "a@b.c" } });
    const g3own = (await gql(G3, { id: own })).body.data!.eventV2 as { idempotencyKey: string; raw: string };
    expect(g3own.idempotencyKey).toBe("my-key-1");
    expect(JSON.parse(g3own.raw)).toMatchObject({ id: "my-key-1", ts: 1_700_000_000_000, user: { email: "a@b.c" } });
  });

  it("named operations, aliases and fragments work as on any GraphQL server; the mutation cancelRun cancels", async () => {
    const runId = await runIdForEvent(executor.db, "read-sleeper", await sendEvent(executor.url, "r/sleep"));
    const doc = `fragment S on FunctionRunV2 { status functionID }
      query A($r: String!) { first: run(runID: $r) { ...S } }
      query B { none: run(runID: "nope") { status } }
      mutation C($r: ULID!) { cancelRun(runID: $r) { status } }`;
    const post = (operationName: string) =>
      fetch(`${executor.url}/v0/gql`, {
        method: "POST",
        headers: { "content-type": "application/json", ...apiAuth },
        body: JSON.stringify({ query: doc, variables: { r: runId }, operationName }),
      }).then((r) => r.json());
    expect(await post("A")).toEqual({ data: { first: { status: expect.stringMatching(/QUEUED|RUNNING/), functionID: "read-sleeper" } } });
    expect(await post("B")).toEqual({ data: { none: null } });
    expect(await post("C")).toEqual({ data: { cancelRun: { status: "CANCELLED" } } });
  });

  it("GET /metrics: Prometheus text with queue depth and lag, steps, retries, lease renewals, failed requests and ended runs", async () => {
    const res = await fetch(`${executor.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}"]/g, (c) => `\\${c}`)} (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
    // Earlier tests here ran read-ok (1 step, completed), read-bad (failed), sleepers (cancelled).
    expect(value("longhaul_executor_steps_total")).toBeGreaterThanOrEqual(1);
    expect(value('longhaul_executor_runs_ended_total{status="completed"}')).toBeGreaterThanOrEqual(1);
    expect(value('longhaul_executor_runs_ended_total{status="failed"}')).toBeGreaterThanOrEqual(1);
    expect(value('longhaul_executor_runs_ended_total{status="cancelled"}')).toBeGreaterThanOrEqual(1);
    expect(value('longhaul_executor_failed_requests_total{reason="http_400"}')).toBeGreaterThanOrEqual(1);
    expect(value('longhaul_executor_queue_depth{state="due"}')).toBeGreaterThanOrEqual(0);
    expect(value("longhaul_executor_queue_lag_seconds")).toBeGreaterThanOrEqual(0);
    expect(text).toContain("# TYPE longhaul_executor_retries_total counter");
    expect(text).toContain("# TYPE longhaul_executor_lease_renewals_total counter");
  });

  it("signed mode: the read API needs the signing key as bearer", async () => {
    expect((await gql(G1, { runId: "x" }, {})).status).toBe(401);
    expect((await fetch(`${executor.url}/v1/events/x/runs`)).status).toBe(401);
  });
});
