import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExecutorHandle } from "../../server/executor/index.ts";
import { TEST_EVENT_KEY, startTestApp, startTestExecutor, testClient, waitFor, waitForRunStatus, type TestApp } from "../support/executor-harness.ts";
import { testDatabaseUrl } from "../support/database.ts";

// Batch event ingest (engine/events.ts): one POST /e/{key} with many events is stored with one
// multi-row insert and its runs inserted together, with the per-event semantics unchanged: ids in
// input order, user-id dedupe (across and within a batch), seeded retries processed once,
// idempotency keys, and a cancel event later in the same batch cancelling a run an earlier one started.
describe("executor batch event ingest", () => {
  let executor: ExecutorHandle;
  let app: TestApp;

  beforeAll(async () => {
    executor = await startTestExecutor(testDatabaseUrl());
    const client = testClient("ingest", executor.url);
    const counted = client.createFunction({ id: "counted", retries: 0, triggers: [{ event: "i/go" }] }, ({ event }) => ({
      n: (event.data as { n: number }).n,
    }));
    const stoppable = client.createFunction(
      { id: "stoppable", retries: 0, cancelOn: [{ event: "i/stop", match: "data.k" }], triggers: [{ event: "i/start" }] },
      async ({ step }) => {
        await step.sleep("long", "1h");
        return "not cancelled";
      },
    );
    const idem = client.createFunction({ id: "idem", retries: 0, idempotency: "event.data.key", triggers: [{ event: "i/idem" }] }, () => "once");
    app = await startTestApp(client, [counted, stoppable, idem]);
    await executor.sync(app.url);
  });

  afterAll(async () => {
    await app?.stop();
    await executor?.stop();
  });

  const post = async (events: unknown[], headers: Record<string, string> = {}): Promise<string[]> => {
    const res = await fetch(`${executor.url}/e/${TEST_EVENT_KEY}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(events),
    });
    const body = (await res.json()) as { ids: string[]; status: number };
    expect(body.status).toBe(200);
    expect(body.ids).toHaveLength(events.length);
    return body.ids;
  };
  const runsOf = (functionId: string) => executor.db.executorRun.findMany({ where: { functionId }, select: { id: true, event: true, status: true } });

  it("an event's data that is not an object is stored as {} (Inngest's data is an object): an array too", async () => {
    const ids = await post([
      { name: "i/nobody", data: [1, 2] },
      { name: "i/nobody", data: "text" },
      { name: "i/nobody", data: { n: 1 } },
    ]);
    const stored = await executor.db.executorEvent.findMany({ where: { id: { in: ids } }, select: { id: true, data: true, raw: true } });
    const byId = new Map(stored.map((e) => [e.id, e]));
    expect(ids.map((id) => byId.get(id)?.data)).toEqual([{}, {}, { n: 1 }]);
    expect(ids.map((id) => (byId.get(id)?.raw as { data: unknown }).data)).toEqual([{}, {}, { n: 1 }]);
  });

  it("one POST of 60 events (50 triggering, 10 not) starts 50 runs, each with its own event, all complete", async () => {
    const events = Array.from({ length: 60 }, (_, n) => (n % 6 === 5 ? { name: "i/nobody", data: { n } } : { name: "i/go", data: { n } }));
    const ids = await post(events);
    expect(new Set(ids).size).toBe(60);
    const stored = await executor.db.executorEvent.findMany({ where: { id: { in: ids } }, select: { id: true, data: true } });
    expect(new Map(stored.map((e) => [e.id, (e.data as { n: number }).n]))).toEqual(new Map(ids.map((id, n) => [id, n])));
    const runs = await waitFor("50 runs", async () => {
      const r = (await runsOf("ingest-counted")).filter((x) => ids.includes((x.event as { id: string }).id));
      return r.length === 50 ? r : undefined;
    });
    const done = await Promise.all(runs.map((r) => waitForRunStatus(executor.url, r.id, undefined, 60_000)));
    expect(done.map((d) => (d.output as { n: number }).n).sort((a, b) => a - b)).toEqual(events.flatMap((e, n) => (e.name === "i/go" ? [n] : [])));
    expect(done.every((d) => d.status === "completed")).toBe(true);
  });

  it("a cancel event later in the same POST cancels the run an earlier event started; others stay", async () => {
    const [keep, stopped] = await post([
      { name: "i/start", data: { k: "keep" } },
      { name: "i/start", data: { k: "stop-me" } },
      { name: "i/stop", data: { k: "stop-me" } },
    ]);
    const runs = await runsOf("ingest-stoppable");
    const byEvent = new Map(runs.map((r) => [(r.event as { id: string }).id, r.id]));
    expect(await waitForRunStatus(executor.url, byEvent.get(stopped!)!, ["cancelled"])).toMatchObject({ status: "cancelled" });
    expect((await executor.db.executorRun.findUniqueOrThrow({ where: { id: byEvent.get(keep!)! } })).status).not.toBe("cancelled");
  });

  it("user ids dedupe within a batch and across batches; a retried seeded send is processed once; one run per idempotency key", async () => {
    await post([
      { name: "i/go", id: "user-dup-1", data: { n: 1 } },
      { name: "i/go", id: "user-dup-1", data: { n: 2 } },
      { name: "i/go", id: "user-dup-2", data: { n: 3 } },
    ]);
    await post([{ name: "i/go", id: "user-dup-2", data: { n: 4 } }]);
    const seed = { "x-inngest-event-id-seed": `${Date.now()},AAECAwQFBgcICQ==` };
    const first = await post([{ name: "i/go", data: { n: 5 } }], seed);
    const again = await post([{ name: "i/go", data: { n: 5 } }], seed);
    expect(again).toEqual(first);
    // An event with a user id keeps it as its id (Inngest's shape); the seeded one has the returned id.
    const mine = new Set(["user-dup-1", "user-dup-2", first[0]!]);
    const runs = (await runsOf("ingest-counted")).filter((r) => mine.has((r.event as { id: string }).id));
    expect(runs.map((r) => (r.event as { data: { n: number } }).data.n).sort()).toEqual([1, 3, 5]);

    await post([
      { name: "i/idem", data: { key: "k1" } },
      { name: "i/idem", data: { key: "k1" } },
      { name: "i/idem", data: { key: "k2" } },
    ]);
    expect((await runsOf("ingest-idem")).map((r) => (r.event as { data: { key: string } }).data.key).sort()).toEqual(["k1", "k2"]);
  });
});
