import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExecutorHandle } from "../../server/executor/index.ts";
import { RegistrationRefusedError } from "../../server/executor/index.ts";
import { registerApp } from "../../server/executor/registry.ts";
import { freePort } from "../support/ports.ts";
import {
  Counter,
  getRun,
  runIdForEvent,
  sendEvent,
  startTestApp,
  startTestExecutor,
  testClient,
  waitFor,
  waitForRunStatus,
  apiAuth,
  type TestApp,
} from "../support/executor-harness.ts";
import { testDatabaseUrl } from "../support/database.ts";

// Sleeps, waits, cancellation, signatures and registration refusal, against real inngest@4.24.0
// functions in signed cloud mode.
describe("executor: sleep, waitForEvent, cancel, signatures, registration", () => {
  let executor: ExecutorHandle;
  let app: TestApp;
  const counter = new Counter();
  let active = 0;
  let maxActive = 0;
  let sdkClient: ReturnType<typeof testClient>;

  beforeAll(async () => {
    executor = await startTestExecutor(testDatabaseUrl());
    const client = testClient("flow", executor.url);
    const sleeper = client.createFunction({ id: "sleeper", triggers: [{ event: "f/sleep" }] }, async ({ step, runId }) => {
      const before = await step.run("before", () => Date.now());
      await step.sleep("nap", "1s");
      const after = await step.run("after", () => {
        counter.hit(`${runId}:after`);
        return Date.now();
      });
      return { slept: after - before };
    });
    const waiter = client.createFunction({ id: "waiter", triggers: [{ event: "f/wait" }] }, async ({ event, step }) => {
      const approved = await step.waitForEvent("wait-approval", { event: "f/approved", match: "data.runKey", timeout: String(event.data.timeout ?? "30s") });
      return { approved: approved ? approved.data : null };
    });
    const cancellable = client.createFunction(
      { id: "cancellable", triggers: [{ event: "f/cancellable" }], cancelOn: [{ event: "f/cancel", match: "data.runKey" }] },
      async ({ step, runId }) => {
        await step.run("first", () => counter.hit(`${runId}:first`));
        await step.waitForEvent("never", { event: "f/never", timeout: "1h" });
        await step.run("after-wait", () => counter.hit(`${runId}:after-wait`));
        return "not cancelled";
      },
    );
    const longSleeper = client.createFunction({ id: "long-sleeper", triggers: [{ event: "f/long-sleep" }] }, async ({ step, runId }) => {
      await step.sleep("long", "1h");
      await step.run("after", () => counter.hit(`${runId}:after`));
    });
    const limited = client.createFunction({ id: "limited", concurrency: { limit: 1 }, triggers: [{ event: "f/limited" }] }, async ({ step }) =>
      step.run("busy", async () => {
        active += 1;
        maxActive = Math.max(maxActive, active);
        await new Promise((r) => setTimeout(r, 200));
        active -= 1;
        return "ok";
      }),
    );
    const sender = client.createFunction({ id: "sender", triggers: [{ event: "f/send" }] }, async ({ step }) => {
      const sent = await step.sendEvent("emit", { name: "f/sent", data: { hello: "world" } });
      return sent;
    });
    const receiver = client.createFunction({ id: "receiver", triggers: [{ event: "f/sent" }] }, async ({ event }) => ({ got: event.data }));
    const invoker = client.createFunction({ id: "invoker", triggers: [{ event: "f/invoke" }] }, async ({ step }) =>
      step.invoke("call-child", { function: receiver, data: { x: 1 } }),
    );
    app = await startTestApp(client, [sleeper, waiter, cancellable, longSleeper, limited, sender, receiver, invoker]);
    sdkClient = client;
    await executor.sync(app.url);
  });

  afterAll(async () => {
    await app?.stop();
    await executor?.stop();
  });

  it("sleeps (wake item, null memoized) and continues", async () => {
    const runId = await runIdForEvent(executor.db, "flow-sleeper", await sendEvent(executor.url, "f/sleep"));
    const run = await waitForRunStatus(executor.url, runId);
    expect(run.status).toBe("completed");
    expect((run.output as { slept: number }).slept).toBeGreaterThanOrEqual(1000);
    const nap = await executor.db.executorStepResult.findFirst({ where: { runId, name: "sleep" } });
    expect(nap?.value).toBeNull();
    expect(counter.get(`${runId}:after`)).toBe(1);
  });

  it("waitForEvent: ignores non-matching events (including one missing the key), resumes on a match", async () => {
    const runId = await runIdForEvent(executor.db, "flow-waiter", await sendEvent(executor.url, "f/wait", { runKey: "k-1" }));
    await waitFor("the wait pause", () => executor.db.executorPause.findFirst({ where: { runId, kind: "wait" } }).then((p) => p ?? undefined));
    await sendEvent(executor.url, "f/approved", { runKey: "other" });
    await sendEvent(executor.url, "f/approved", { noKeyHere: true }); // CEL "No such key" → non-match, not a crash
    expect((await getRun(executor.url, runId))?.status).toBe("running");
    expect(await executor.db.executorPause.count({ where: { runId, kind: "wait" } })).toBe(1);
    await sendEvent(executor.url, "f/approved", { runKey: "k-1", by: "alice" });
    const run = await waitForRunStatus(executor.url, runId);
    expect(run.output).toEqual({ approved: { runKey: "k-1", by: "alice" } });
  });

  it("waitForEvent: times out with null", async () => {
    const runId = await runIdForEvent(executor.db, "flow-waiter", await sendEvent(executor.url, "f/wait", { runKey: "k-timeout", timeout: "1s" }));
    const run = await waitForRunStatus(executor.url, runId);
    expect(run.output).toEqual({ approved: null });
    expect(await executor.db.executorPause.count({ where: { runId } })).toBe(0);
  });

  it("cancelOn: a matching event cancels the run and emits inngest/function.cancelled", async () => {
    const runId = await runIdForEvent(executor.db, "flow-cancellable", await sendEvent(executor.url, "f/cancellable", { runKey: "c-1" }));
    await waitFor("the wait pause", () => executor.db.executorPause.findFirst({ where: { runId, kind: "wait" } }).then((p) => p ?? undefined));
    await sendEvent(executor.url, "f/cancel", { runKey: "someone-else" });
    expect((await getRun(executor.url, runId))?.status).toBe("running");
    await sendEvent(executor.url, "f/cancel", { runKey: "c-1" });
    const run = await waitForRunStatus(executor.url, runId);
    expect(run.status).toBe("cancelled");
    expect(counter.get(`${runId}:first`)).toBe(1);
    expect(counter.get(`${runId}:after-wait`)).toBe(0);
    expect(await executor.db.executorQueueItem.count({ where: { runId } })).toBe(0);
    expect(await executor.db.executorPause.count({ where: { runId } })).toBe(0);
    const events = await executor.db.executorEvent.findMany({ where: { name: "inngest/function.cancelled" } });
    expect(events.some((e) => (e.data as { run_id?: string }).run_id === runId)).toBe(true);
  });

  it("cancels a sleeping run through POST /v1/runs/{id}/cancel", async () => {
    const runId = await runIdForEvent(executor.db, "flow-long-sleeper", await sendEvent(executor.url, "f/long-sleep"));
    await waitFor("the sleep wake item", () => executor.db.executorQueueItem.findFirst({ where: { runId, kind: "sleepWake" } }).then((p) => p ?? undefined));
    expect((await fetch(`${executor.url}/v1/runs/${runId}/cancel`, { method: "POST" })).status).toBe(401);
    expect((await fetch(`${executor.url}/v1/runs/${runId}`)).status).toBe(401);
    const res = await fetch(`${executor.url}/v1/runs/${runId}/cancel`, { method: "POST", headers: apiAuth });
    expect(res.status).toBe(200);
    expect((await getRun(executor.url, runId))?.status).toBe("cancelled");
    expect(await executor.db.executorQueueItem.count({ where: { runId } })).toBe(0);
    const again = await fetch(`${executor.url}/v1/runs/${runId}/cancel`, { method: "POST", headers: apiAuth });
    expect(again.status).toBe(409);
    expect((await fetch(`${executor.url}/v1/runs/nope/cancel`, { method: "POST", headers: apiAuth })).status).toBe(404);
  });

  it("inngest.send and step.sendEvent go through the event API ({ids, status: 200}) and trigger functions", async () => {
    const { ids } = await sdkClient.send({ name: "f/send", data: {} });
    expect(ids).toHaveLength(1);
    const runId = await runIdForEvent(executor.db, "flow-sender", ids[0]!);
    const run = await waitForRunStatus(executor.url, runId);
    const sentIds = (run.output as { ids: string[] }).ids;
    expect(sentIds).toHaveLength(1);
    const received = await runIdForEvent(executor.db, "flow-receiver", sentIds[0]!);
    expect((await waitForRunStatus(executor.url, received)).output).toEqual({ got: { hello: "world" } });
  });

  it("step.invoke (InvokeFunction) starts the target with the data and resolves with its output (more in executor-invoke.test.ts)", async () => {
    const runId = await runIdForEvent(executor.db, "flow-invoker", await sendEvent(executor.url, "f/invoke"));
    const run = await waitForRunStatus(executor.url, runId);
    expect(run.status).toBe("completed");
    expect(run.output).toMatchObject({ got: { x: 1 } });
  });

  it("concurrency { limit: 1 } runs one step of the function at a time", async () => {
    const ids = [await sendEvent(executor.url, "f/limited"), await sendEvent(executor.url, "f/limited"), await sendEvent(executor.url, "f/limited")];
    for (const id of ids) {
      const runId = await runIdForEvent(executor.db, "flow-limited", id);
      expect((await waitForRunStatus(executor.url, runId)).output).toBe("ok");
    }
    expect(maxActive).toBe(1);
  });

  it("housekeeping deletes ended runs, steps, events and ops older than the retention, nothing newer", async () => {
    const old = new Date(Date.now() - 8 * 86_400_000);
    const ev = { name: "f/old", data: {}, id: "old-event", ts: 0 };
    await executor.db.executorRun.create({
      data: { id: "hk-old-run", functionId: "flow-sleeper", status: "completed", event: ev, events: [ev], maxAttempts: 1, endedAt: old },
    });
    await executor.db.executorRun.create({
      data: { id: "hk-live-run", functionId: "flow-sleeper", status: "running", event: ev, events: [ev], maxAttempts: 1 },
    });
    await executor.db.executorStepResult.create({ data: { runId: "hk-old-run", hashedId: "h", seq: 0, value: { data: 1 } } });
    await executor.db.executorOp.create({ data: { runId: "hk-old-run", kind: "discover", durationMs: 1, createdAt: old } });
    await executor.db.executorEvent.create({ data: { id: "hk-old-event", name: "f/old", data: {}, raw: ev, ts: 0n, receivedAt: old } });
    const res = await executor.housekeep();
    expect(res).toMatchObject({ runs: 1, steps: 1 });
    expect(res.ops).toBeGreaterThanOrEqual(1);
    expect(res.events).toBeGreaterThanOrEqual(1);
    expect(await executor.db.executorRun.findUnique({ where: { id: "hk-old-run" } })).toBeNull();
    expect(await executor.db.executorRun.findUnique({ where: { id: "hk-live-run" } })).not.toBeNull();
    await executor.db.executorRun.delete({ where: { id: "hk-live-run" } });
  });

  it("rejects bad credentials: wrong event key, unsigned register and checkpoint", async () => {
    const e = await fetch(`${executor.url}/e/wrong-key`, { method: "POST", body: JSON.stringify({ name: "f/sleep" }) });
    expect(e.status).toBe(401);
    expect(await e.json()).toMatchObject({ ids: [], status: 401 });
    const reg = await fetch(`${executor.url}/fn/register`, {
      method: "POST",
      headers: { authorization: "Bearer signkey-test-0000" },
      body: JSON.stringify({ appName: "x", url: "http://x", functions: [] }),
    });
    expect(reg.status).toBe(401);
    const undef = await fetch(`${executor.url}/fn/register`, { method: "POST", headers: { authorization: "Bearer undefined" }, body: "{}" });
    expect(undef.status).toBe(401);
    const cp = await fetch(`${executor.url}/v1/checkpoint/some-run/async`, { method: "POST", body: JSON.stringify({ qi_id: "1", steps: [] }) });
    expect(cp.status).toBe(401);
  });

  it("refuses a function with an unimplemented option at registration, in band and out of band", async () => {
    const client = testClient("flow-refused", executor.url);
    const limited = client.createFunction({ id: "limited", rateLimit: { limit: 1, period: "1m" }, triggers: [{ event: "f/limited" }] }, async () => "x");
    const refusedApp = await startTestApp(client, [limited]);
    try {
      const err = await executor.sync(refusedApp.url).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RegistrationRefusedError);
      expect(String((err as Error).message)).toMatch(/rateLimit.*refused/);
      // Out of band: the SDK POSTs /fn/register itself and mirrors our 400.
      const put = await fetch(refusedApp.url, { method: "PUT" });
      const body = (await put.json()) as { message?: string };
      expect(put.status).not.toBe(200);
      expect(body.message).toMatch(/rateLimit/);
      expect(await executor.db.executorFunction.count({ where: { appId: "flow-refused" } })).toBe(0);
    } finally {
      await refusedApp.stop();
    }
  });

  it("accepts out-of-band registration and serves /health and /dev", async () => {
    const client = testClient("flow-oob", executor.url);
    const fn = client.createFunction({ id: "oob", triggers: [{ event: "f/oob" }] }, async ({ step }) => step.run("s", () => "oob ok"));
    const oobApp = await startTestApp(client, [fn]);
    try {
      const put = await fetch(oobApp.url, { method: "PUT" });
      expect(put.status).toBe(200);
      const runId = await runIdForEvent(executor.db, "flow-oob-oob", await sendEvent(executor.url, "f/oob"));
      expect((await waitForRunStatus(executor.url, runId)).output).toBe("oob ok");
      const health = await fetch(`${executor.url}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: "ok" });
      const dev = (await (await fetch(`${executor.url}/dev`)).json()) as { functions: { id: string; triggers: unknown[]; steps: { uri: string }[] }[] };
      const entry = dev.functions.find((f) => f.id === "flow-oob-oob");
      expect(entry?.triggers).toEqual([{ event: "f/oob" }]);
      expect(entry?.steps[0]?.uri).toContain("fnId=flow-oob-oob");
    } finally {
      await oobApp.stop();
    }
  });
});

// Its own suite: no other executor is running, so only the wrong-key executor leases the run.
describe("executor: signature rejected by the app", () => {
  it("fails the run without executing a step when the app rejects the executor's signature", async () => {
    const wrong = await startTestExecutor(testDatabaseUrl(), { signingKey: "signkey-test-0123456789abcdef0123456789abcdef", eventKey: "other-key" });
    try {
      const client = testClient("flow-wrongkey", wrong.url); // the app keeps the real key
      let executed = 0;
      const fn = client.createFunction({ id: "guarded", triggers: [{ event: "f/guarded" }] }, async ({ step }) => step.run("s", () => ++executed));
      const guardedApp = await startTestApp(client, [fn]);
      try {
        await expect(wrong.sync(guardedApp.url)).rejects.toThrow(/401/); // the signed in-band PUT is refused
        // Register the function directly so the executor calls the app with its (wrong) signature.
        await registerApp(wrong.db, {
          appId: "flow-wrongkey",
          url: guardedApp.url,
          sdk: "test",
          functions: [
            {
              id: "flow-wrongkey-guarded",
              name: "guarded",
              triggers: [{ event: "f/guarded" }],
              steps: {
                step: {
                  id: "step",
                  name: "step",
                  runtime: { type: "http", url: `${guardedApp.url}?fnId=flow-wrongkey-guarded&stepId=step` },
                  retries: { attempts: 0 },
                },
              },
            },
          ],
        });
        const res = await fetch(`${wrong.url}/e/other-key`, { method: "POST", body: JSON.stringify({ name: "f/guarded" }) });
        const { ids } = (await res.json()) as { ids: string[] };
        const runId = await runIdForEvent(wrong.db, "flow-wrongkey-guarded", ids[0]!);
        // (this executor's REST API wants its own key, so read the run from the database)
        const run = await waitFor("the run to fail", () =>
          wrong.db.executorRun.findFirst({ where: { id: runId, status: { in: ["completed", "failed"] } } }).then((r) => r ?? undefined),
        );
        expect(run.status).toBe("failed");
        expect(run.error).toMatchObject({ name: "Unauthorized" });
        expect(executed).toBe(0);
        const unsigned = await fetch(`${guardedApp.url}?fnId=flow-wrongkey-guarded&stepId=step`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{}",
        });
        expect(unsigned.status).toBe(401);
      } finally {
        await guardedApp.stop();
      }
    } finally {
      await wrong.stop();
    }
  });
});

describe("executor: syncing configured apps", () => {
  it("retries the in-band sync of appUrls until the app is reachable", async () => {
    const port = await freePort();
    const appUrl = `http://127.0.0.1:${port}/api/inngest`;
    const executor = await startTestExecutor(testDatabaseUrl(), { appUrls: [appUrl] });
    try {
      const client = testClient("late-app", executor.url);
      const fn = client.createFunction({ id: "late", triggers: [{ event: "f/late" }] }, async () => "late ok");
      // The executor is already trying (and failing) to reach the app; start it now.
      const app = await startTestApp(client, [fn], port);
      try {
        await waitFor(
          "the late app to be synced",
          () => executor.db.executorFunction.findUnique({ where: { id: "late-app-late" } }).then((f) => f ?? undefined),
          15_000,
        );
        const runId = await runIdForEvent(executor.db, "late-app-late", await sendEvent(executor.url, "f/late"));
        expect((await waitForRunStatus(executor.url, runId)).output).toBe("late ok");
      } finally {
        await app.stop();
      }
    } finally {
      await executor.stop();
    }
  });
});
