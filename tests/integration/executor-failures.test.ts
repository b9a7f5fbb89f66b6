import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExecutorHandle } from "../../server/executor/index.ts";
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
  type TestApp,
} from "../support/executor-harness.ts";
import { testDatabaseUrl } from "../support/database.ts";

// Runs the executor ends for reasons of its own, against real inngest@4.24.0 functions: an app gone
// for good (its URL refuses connections longer than appGoneMs) and a step output over the 4 MB
// limit. Both end failed with a clear error and are reported back to the app as
// inngest/function.failed, so the function's onFailure runs (as Inngest does).
describe("executor: runs failed by the executor itself", () => {
  let executor: ExecutorHandle;
  let app: TestApp;
  const lines: string[] = [];
  const counter = new Counter();
  const failures: string[] = [];

  beforeAll(async () => {
    executor = await startTestExecutor(testDatabaseUrl(), { appGoneMs: 1500, log: (l) => lines.push(l) });
    const client = testClient("fail-own", executor.url);
    const gone = client.createFunction({ id: "gone", retries: 3, triggers: [{ event: "x/gone" }] }, async ({ step, runId }) =>
      step.run("s", () => counter.hit(runId)),
    );
    const huge = client.createFunction(
      {
        id: "huge",
        retries: 0,
        triggers: [{ event: "x/huge" }],
        onFailure: async ({ event, error, step }) => {
          await step.run("report", () => {
            failures.push(`${String(event.data.run_id)}: ${error.name}: ${error.message}`);
            return true;
          });
        },
      },
      async ({ step }) => {
        await step.run("small", () => 1);
        return step.run("big", () => "x".repeat(4 * 1024 * 1024 + 10));
      },
    );
    app = await startTestApp(client, [gone, huge]);
    await executor.sync(app.url);
  });

  afterAll(async () => {
    await app?.stop();
    await executor?.stop();
  });

  it("a run whose app refuses connections longer than appGoneMs ends failed (AppUnreachable); the retry log line is rate-limited", async () => {
    await app.stop();
    try {
      const runId = await runIdForEvent(executor.db, "fail-own-gone", await sendEvent(executor.url, "x/gone"));
      const run = await waitForRunStatus(executor.url, runId, ["failed"], 20_000);
      expect(run.error).toMatchObject({ name: "AppUnreachable", message: expect.stringContaining("has not answered for") });
      expect(counter.get(runId)).toBe(0);
      // Several retries happened (250 ms, 500 ms, 1 s …) but one line was logged for the origin.
      const unreachable = lines.filter((l) => l.includes(runId) && l.includes("app unreachable"));
      expect(unreachable).toHaveLength(1);
      const failedEvent = await executor.db.executorEvent.findUnique({ where: { id: runId } });
      expect(failedEvent?.name).toBe("inngest/function.failed");
    } finally {
      await app.start();
    }
  });

  it("a step output over 4 MB ends the run failed (OutputTooLarge) and runs the function's onFailure", async () => {
    const runId = await runIdForEvent(executor.db, "fail-own-huge", await sendEvent(executor.url, "x/huge"));
    const run = await waitForRunStatus(executor.url, runId, ["failed"]);
    expect(run.error).toMatchObject({ name: "OutputTooLarge" });
    const line = await waitFor("onFailure to run", () => failures.find((f) => f.startsWith(runId)));
    expect(line).toContain("OutputTooLarge");
    expect((await getRun(executor.url, runId))?.status).toBe("failed");
  });
});
