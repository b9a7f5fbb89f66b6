import type { InngestFunction } from "inngest";
import { createDefer } from "inngest/experimental";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RegistrationRefusedError, type ExecutorHandle } from "../../server/executor/index.ts";
import { runIdForEvent, sendEvent, startTestApp, startTestExecutor, testClient, waitForRunStatus } from "../support/executor-harness.ts";
import { testDatabaseUrl } from "../support/database.ts";

// Every function option of inngest@4.24.0 the embedded executor does not implement is refused when
// the app syncs — in band and out of band, all or nothing, with an error naming the option — never
// accepted and then ignored or failed at run time (docs/INNGEST-PROTOCOL.md §7.1 item 1). Real SDK
// functions, so the config is exactly what the SDK registers.
describe("sync refuses options the executor does not implement", () => {
  let executor: ExecutorHandle;

  beforeAll(async () => {
    executor = await startTestExecutor(testDatabaseUrl());
  });
  afterAll(async () => {
    await executor?.stop();
  });

  type Case = { name: string; expect: RegExp; make: (client: ReturnType<typeof testClient>) => InngestFunction.Any };
  const cases: Case[] = [
    { name: "cron", expect: /cron trigger "0 \* \* \* \*" refused/, make: (c) => c.createFunction({ id: "f", triggers: [{ cron: "0 * * * *" }] }, () => 1) },
    {
      name: "batchEvents",
      expect: /option "batchEvents" refused: event batching/,
      make: (c) => c.createFunction({ id: "f", batchEvents: { maxSize: 10, timeout: "5s" }, triggers: [{ event: "r/x" }] }, () => 1),
    },
    {
      name: "debounce",
      expect: /option "debounce" refused/,
      make: (c) => c.createFunction({ id: "f", debounce: { period: "5s" }, triggers: [{ event: "r/x" }] }, () => 1),
    },
    {
      name: "throttle",
      expect: /option "throttle" refused/,
      make: (c) => c.createFunction({ id: "f", throttle: { limit: 1, period: "1m" }, triggers: [{ event: "r/x" }] }, () => 1),
    },
    {
      name: "rateLimit",
      expect: /option "rateLimit" refused/,
      make: (c) => c.createFunction({ id: "f", rateLimit: { limit: 1, period: "1m" }, triggers: [{ event: "r/x" }] }, () => 1),
    },
    {
      name: "priority",
      expect: /option "priority" refused/,
      make: (c) => c.createFunction({ id: "f", priority: { run: "event.data.p" }, triggers: [{ event: "r/x" }] }, () => 1),
    },
    {
      name: "singleton",
      expect: /option "singleton" refused/,
      make: (c) => c.createFunction({ id: "f", singleton: { key: "event.data.k", mode: "skip" }, triggers: [{ event: "r/x" }] }, () => 1),
    },
    {
      name: "timeouts",
      expect: /option "timeouts" refused/,
      make: (c) => c.createFunction({ id: "f", timeouts: { finish: "1h" }, triggers: [{ event: "r/x" }] }, () => 1),
    },
    {
      name: "concurrency scope account",
      expect: /concurrency scope "account" refused/,
      make: (c) => c.createFunction({ id: "f", concurrency: { limit: 1, scope: "account", key: "event.data.k" }, triggers: [{ event: "r/x" }] }, () => 1),
    },
    {
      name: "concurrency scope env",
      expect: /concurrency scope "env" refused/,
      make: (c) => c.createFunction({ id: "f", concurrency: [{ limit: 1, scope: "env", key: "event.data.k" }], triggers: [{ event: "r/x" }] }, () => 1),
    },
    {
      name: "createDefer",
      expect: /trigger "inngest\/deferred.schedule" refused: defer\(\)/,
      make: (c) => createDefer(c, { id: "f" }, () => 1),
    },
  ];

  for (const [i, c] of cases.entries()) {
    it(`${c.name}: refused in band and out of band, naming the option; nothing registered`, async () => {
      const appId = `refuse-${i}`;
      const client = testClient(appId, executor.url);
      const app = await startTestApp(client, [c.make(client)]);
      try {
        const err = await executor.sync(app.url).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(RegistrationRefusedError);
        expect((err as Error).message).toMatch(c.expect);
        expect((err as Error).message).toContain(`function "${appId}-f"`);
        // Out of band: the SDK posts /fn/register itself and mirrors the executor's 400 to the PUT.
        const put = await fetch(app.url, { method: "PUT" });
        const body = (await put.json()) as { message?: string };
        expect(put.status).not.toBe(200);
        expect(body.message).toMatch(c.expect);
        expect(await executor.db.executorApp.count({ where: { id: appId } })).toBe(0);
        expect(await executor.db.executorFunction.count({ where: { appId } })).toBe(0);
      } finally {
        await app.stop();
      }
    });
  }

  it("all or nothing: one refused function refuses the app's sync; a re-sync that adds an option keeps the registration it had", async () => {
    const appId = "refuse-mixed";
    const v1 = testClient(appId, executor.url);
    const ok = v1.createFunction({ id: "ok", triggers: [{ event: "refuse/ok" }] }, async ({ step }) => step.run("s", () => "still runs"));
    const app1 = await startTestApp(v1, [ok]);
    await executor.sync(app1.url);

    const v2 = testClient(appId, executor.url);
    const okAgain = v2.createFunction({ id: "ok", triggers: [{ event: "refuse/ok" }] }, async ({ step }) => step.run("s", () => "still runs"));
    const debounced = v2.createFunction({ id: "new", debounce: { period: "1s" }, triggers: [{ event: "refuse/new" }] }, () => 1);
    const app2 = await startTestApp(v2, [okAgain, debounced]);
    try {
      const err = await executor.sync(app2.url).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RegistrationRefusedError);
      expect((err as Error).message).toMatch(/function "refuse-mixed-new": option "debounce" refused/);
      expect((await executor.db.executorFunction.findMany({ where: { appId } })).map((f) => f.id)).toEqual(["refuse-mixed-ok"]);
      // The function registered before the refused re-sync (and its URL) stays, and still runs.
      expect((await executor.db.executorApp.findUniqueOrThrow({ where: { id: appId } })).url).toBe(app1.url);
      const runId = await runIdForEvent(executor.db, "refuse-mixed-ok", await sendEvent(executor.url, "refuse/ok"));
      expect(await waitForRunStatus(executor.url, runId)).toMatchObject({ status: "completed", output: "still runs" });
    } finally {
      await app2.stop();
      await app1.stop();
    }
  });
});
