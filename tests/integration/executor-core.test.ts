import { NonRetriableError, RetryAfterError } from "inngest";
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

// Real inngest@4.24.0 functions served with serve() from inngest/node, in signed cloud mode, driven by
// the embedded executor over HTTP. Runs once with async checkpointing (fn_id/qi_id sent) and once
// with the classic protocol.
for (const checkpointing of [true, false]) {
  describe(`executor core flows (${checkpointing ? "checkpoint" : "classic"} mode)`, () => {
    const tag = checkpointing ? "cp" : "cl";
    let executor: ExecutorHandle;
    let app: TestApp;
    const counter = new Counter();
    const fnLog: string[] = [];
    let retryAfterTimes: number[] = [];

    beforeAll(async () => {
      executor = await startTestExecutor(testDatabaseUrl(), { checkpointing });
      const client = testClient(`core-${tag}`, executor.url);
      const sequential = client.createFunction({ id: "sequential", retries: 2, triggers: [{ event: `t/${tag}.seq` }] }, async ({ event, step, runId }) => {
        const a = await step.run("plan", () => {
          counter.hit(`${runId}:plan`);
          return { plan: `plan for ${String(event.data.k)}` };
        });
        const b = await step.run("act", () => {
          counter.hit(`${runId}:act`);
          return { acted: true, prev: a.plan };
        });
        const c = await step.run("finish", () => {
          counter.hit(`${runId}:finish`);
          return 3;
        });
        return { a, b, c };
      });
      const flaky = client.createFunction({ id: "flaky", retries: 2, triggers: [{ event: `t/${tag}.flaky` }] }, async ({ step, runId }) => {
        const first = await step.run("flaky-step", () => {
          const n = counter.hit(`${runId}:flaky`);
          if (n === 1) throw new Error("transient failure");
          return `ok on try ${n}`;
        });
        const second = await step.run("retry-after-step", () => {
          retryAfterTimes.push(Date.now());
          const n = counter.hit(`${runId}:ra`);
          if (n === 1) throw new RetryAfterError("slow down", "1s");
          return n;
        });
        const caught = await step
          .run("non-retriable", () => {
            counter.hit(`${runId}:nr`);
            throw new NonRetriableError("never again");
          })
          .catch((error: unknown) => `caught: ${(error as Error).message}`);
        return { first, second, caught };
      });
      const failing = client.createFunction(
        {
          id: "failing",
          retries: 1,
          triggers: [{ event: `t/${tag}.fail` }],
          onFailure: async ({ event, step, error }) => {
            await step.run("record-failure", () => {
              fnLog.push(`onFailure ${event.data.run_id}: ${error.message}`);
              return error.message;
            });
          },
        },
        async ({ runId }) => {
          counter.hit(`${runId}:fail`);
          throw new Error("function level explosion");
        },
      );
      const parallel = client.createFunction({ id: "parallel", triggers: [{ event: `t/${tag}.par` }] }, async ({ step, runId }) => {
        const [l, r] = await Promise.all([
          step.run("left", () => {
            counter.hit(`${runId}:left`);
            return "L";
          }),
          step.run("right", () => {
            counter.hit(`${runId}:right`);
            return "R";
          }),
        ]);
        return step.run("join", () => l + r);
      });
      const idem = client.createFunction({ id: "idem", idempotency: "event.data.key", triggers: [{ event: `t/${tag}.idem` }] }, async ({ step }) =>
        step.run("only", () => "x"),
      );
      const expr = client.createFunction({ id: "expr", triggers: [{ event: `t/${tag}.expr`, if: "event.data.go == true" }] }, async () => "went");
      app = await startTestApp(client, [sequential, flaky, failing, parallel, idem, expr]);
      await executor.sync(app.url);
    });

    afterAll(async () => {
      await app?.stop();
      await executor?.stop();
    });

    it("runs sequential steps to completion with the transcript's request/response shapes", async () => {
      const eventId = await sendEvent(executor.url, `t/${tag}.seq`, { k: "r-1" });
      const runId = await runIdForEvent(executor.db, `core-${tag}-sequential`, eventId);
      const run = await waitForRunStatus(executor.url, runId);
      expect(run.status).toBe("completed");
      expect(run.output).toEqual({ a: { plan: "plan for r-1" }, b: { acted: true, prev: "plan for r-1" }, c: 3 });
      for (const s of ["plan", "act", "finish"]) expect(counter.get(`${runId}:${s}`)).toBe(1);
      const calls = app.requests.filter((r) => r.method === "POST" && (r.body as { ctx?: { run_id?: string } })?.ctx?.run_id === runId);
      const first = calls[0]!;
      expect(first.query.get("fnId")).toBe(`core-${tag}-sequential`);
      expect(first.query.get("stepId")).toBe("step");
      expect(first.headers["x-inngest-signature"]).toMatch(/^t=\d+&s=[0-9a-f]{64}$/);
      expect(first.headers["x-run-id"]).toBe(runId);
      const body = first.body as {
        event: { id: string; name: string; data: unknown; ts: number };
        events: unknown[];
        steps: object;
        ctx: Record<string, unknown>;
        version: number;
      };
      expect(body.event).toMatchObject({ id: eventId, name: `t/${tag}.seq`, data: { k: "r-1" } });
      expect(typeof body.event.ts).toBe("number");
      expect(body.events).toHaveLength(1);
      expect(body.steps).toEqual({});
      expect(body.version).toBe(-1);
      expect(body.ctx).toMatchObject({
        run_id: runId,
        attempt: 0,
        max_attempts: 3,
        disable_immediate_execution: false,
        use_api: false,
        stack: { stack: [], current: 0 },
      });
      if (checkpointing) {
        expect(body.ctx.fn_id).toMatch(/^[0-9a-f-]{36}$/);
        expect(calls).toHaveLength(1); // all steps checkpointed inside one request
      } else {
        expect(body.ctx.fn_id).toBeUndefined();
        expect(calls).toHaveLength(4); // one request per step plus one to finish (transcript agent.jsonl)
        const second = calls[1]!.body as { steps: Record<string, unknown>; ctx: { stack: unknown }; version: number };
        // sha1("plan") = bed97175…, memoized as {data} (docs/INNGEST-PROTOCOL.md §2.14)
        expect(second.steps).toEqual({ bed97175b06e68eb7ff5722897aa86b8ea75c8ef: { data: { plan: "plan for r-1" } } });
        expect(second.ctx.stack).toEqual({ stack: ["bed97175b06e68eb7ff5722897aa86b8ea75c8ef"], current: 1 });
        expect(second.version).toBe(2);
      }
      const steps = await executor.db.executorStepResult.findMany({ where: { runId }, orderBy: { seq: "asc" } });
      expect(steps.map((s) => s.seq)).toEqual([0, 1, 2]);
      expect(steps[0]!.value).toEqual({ data: { plan: "plan for r-1" } });
    });

    it("retries a failing step, honours retry-after, and memoizes a NonRetriableError as StepFailed", async () => {
      retryAfterTimes = [];
      const eventId = await sendEvent(executor.url, `t/${tag}.flaky`);
      const runId = await runIdForEvent(executor.db, `core-${tag}-flaky`, eventId);
      const run = await waitForRunStatus(executor.url, runId);
      expect(run.status).toBe("completed");
      expect(run.output).toEqual({ first: "ok on try 2", second: 2, caught: "caught: never again" });
      expect(counter.get(`${runId}:flaky`)).toBe(2);
      expect(counter.get(`${runId}:nr`)).toBe(1); // no retry for NonRetriableError
      // retry-after: 1 s honoured instead of the 50 ms backoff
      expect(retryAfterTimes[1]! - retryAfterTimes[0]!).toBeGreaterThanOrEqual(900);
      const nr = await executor.db.executorStepResult.findFirst({ where: { runId, name: "non-retriable" } });
      expect(nr?.value).toMatchObject({ error: { name: "NonRetriableError", message: "never again" } });
    });

    it("fails a run after its function-level retries and runs onFailure with the error", async () => {
      const eventId = await sendEvent(executor.url, `t/${tag}.fail`);
      const runId = await runIdForEvent(executor.db, `core-${tag}-failing`, eventId);
      const run = await waitForRunStatus(executor.url, runId);
      expect(run.status).toBe("failed");
      expect(run.error).toMatchObject({ message: "function level explosion" });
      expect(counter.get(`${runId}:fail`)).toBe(2); // retries: 1 → 2 attempts
      await waitFor("onFailure to run", () => fnLog.find((l) => l.startsWith(`onFailure ${runId}`)));
      expect(fnLog).toContain(`onFailure ${runId}: function level explosion`);
      const failed = await executor.db.executorEvent.findUnique({ where: { id: runId } });
      expect(failed?.name).toBe("inngest/function.failed");
      expect(failed?.data).toMatchObject({ function_id: `core-${tag}-failing`, run_id: runId });
    });

    it("fans parallel steps in: two planned steps, then one discovery", async () => {
      const eventId = await sendEvent(executor.url, `t/${tag}.par`);
      const runId = await runIdForEvent(executor.db, `core-${tag}-parallel`, eventId);
      const run = await waitForRunStatus(executor.url, runId);
      expect(run.status).toBe("completed");
      expect(run.output).toBe("LR");
      expect(counter.get(`${runId}:left`)).toBe(1);
      expect(counter.get(`${runId}:right`)).toBe(1);
      const calls = app.requests.filter((r) => (r.body as { ctx?: { run_id?: string } })?.ctx?.run_id === runId);
      const targeted = calls.filter((c) => c.query.get("stepId") !== "step");
      expect(targeted).toHaveLength(2);
      for (const t of targeted) expect((t.body as { ctx: { disable_immediate_execution: boolean } }).ctx.disable_immediate_execution).toBe(true);
    });

    it("drives 20 concurrent runs (sequential + parallel steps) to completion, each step body once", async () => {
      const seqIds = await Promise.all(Array.from({ length: 10 }, (_, i) => sendEvent(executor.url, `t/${tag}.seq`, { k: `many-${i}` })));
      const parIds = await Promise.all(Array.from({ length: 10 }, () => sendEvent(executor.url, `t/${tag}.par`)));
      const seqRuns = await Promise.all(seqIds.map((id) => runIdForEvent(executor.db, `core-${tag}-sequential`, id)));
      const parRuns = await Promise.all(parIds.map((id) => runIdForEvent(executor.db, `core-${tag}-parallel`, id)));
      const done = await Promise.all([...seqRuns, ...parRuns].map((id) => waitForRunStatus(executor.url, id, undefined, 60_000)));
      expect(done.map((r) => r.status)).toEqual(Array(20).fill("completed"));
      for (const id of seqRuns) for (const s of ["plan", "act", "finish"]) expect(counter.get(`${id}:${s}`)).toBe(1);
      for (const id of parRuns) for (const s of ["left", "right"]) expect(counter.get(`${id}:${s}`)).toBe(1);
    });

    it("starts one run per idempotency key and honours trigger expressions", async () => {
      await sendEvent(executor.url, `t/${tag}.idem`, { key: "same" });
      await sendEvent(executor.url, `t/${tag}.idem`, { key: "same" });
      await sendEvent(executor.url, `t/${tag}.idem`, { key: "other" });
      const skipped = await sendEvent(executor.url, `t/${tag}.expr`, { go: false });
      const missing = await sendEvent(executor.url, `t/${tag}.expr`, {}); // missing key in CEL → non-match, no crash
      const went = await sendEvent(executor.url, `t/${tag}.expr`, { go: true });
      const wentRun = await runIdForEvent(executor.db, `core-${tag}-expr`, went);
      expect((await waitForRunStatus(executor.url, wentRun)).output).toBe("went");
      const idemRuns = await executor.db.executorRun.findMany({ where: { functionId: `core-${tag}-idem` } });
      expect(idemRuns).toHaveLength(2);
      const exprRuns = await executor.db.executorRun.findMany({ where: { functionId: `core-${tag}-expr` } });
      expect(exprRuns.map((r) => (r.event as { id: string }).id)).toEqual([went]);
      expect([skipped, missing]).not.toContain(went);
      // user-supplied event id: duplicates within 24 h trigger nothing
      await sendEvent(executor.url, `t/${tag}.idem`, { key: "dedupe-a" }, { id: `user-id-${tag}` });
      await sendEvent(executor.url, `t/${tag}.idem`, { key: "dedupe-b" }, { id: `user-id-${tag}` });
      const after = await executor.db.executorRun.findMany({ where: { functionId: `core-${tag}-idem` } });
      expect(after).toHaveLength(3);
      expect(await getRun(executor.url, "no-such-run")).toBeUndefined();
    });
  });
}
