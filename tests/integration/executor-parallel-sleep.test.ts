import { createHash } from "node:crypto";
import { Inngest, Middleware } from "inngest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExecutorHandle } from "../../server/executor/index.ts";
import {
  TEST_EVENT_KEY,
  TEST_SIGNING_KEY,
  runIdForEvent,
  sendEvent,
  startTestApp,
  startTestExecutor,
  waitForRunStatus,
  type TestApp,
} from "../support/executor-harness.ts";
import { testDatabaseUrl } from "../support/database.ts";

// Parallel steps with a sleep in the group (`Promise.all([step.run, step.sleep])`), in dev and
// signed mode, with real inngest@4.24.0 functions. The request sequence must be the dev server's
// (docs/INNGEST-PROTOCOL.md §2.7; Go executor: every op of a multi-op response goes into the run's
// pending set — `SavePending(groups.IDs())` — and only the save that empties it, a planned step's
// result or the sleep's wake, enqueues the next discovery):
//   1. discovery → 206 [StepPlanned <run>…, Sleep <sleep>]
//   2. one targeted request (`stepId=<hash>`, disable_immediate_execution) per planned step → 206 [StepRun]
//   3. one discovery once everything in the group is done (after the sleep) carrying all results.
// The sequence is counted by an SDK middleware (`wrapRequest`, called once per request), as user
// middleware would count it.

/** One request as the SDK's own middleware saw it. */
interface Seen {
  runId: string;
  stepId: string;
  status: number;
  ops: string[];
  at: number;
  /** ctx.stack.stack of the request body (memoized step ids in completion order). */
  stack: string[];
  disableImmediate: boolean;
}

const sha1 = (s: string): string => createHash("sha1").update(s).digest("hex");

function recorder(seen: Seen[]): Middleware.Class {
  return class RequestCounter extends Middleware.BaseMiddleware {
    readonly id = "request-counter";
    async wrapRequest({ next, requestInfo, runId }: Middleware.WrapRequestArgs): Promise<Middleware.Response> {
      const body = (await requestInfo.body()) as { ctx?: { stack?: { stack?: string[] }; disable_immediate_execution?: boolean } } | undefined;
      const res = await next();
      let ops: string[] = [];
      if (res.status === 206) {
        try {
          ops = (JSON.parse(res.body) as { op: string; displayName?: string; name?: string }[]).map((o) => `${o.op} ${o.displayName ?? o.name ?? ""}`.trim());
        } catch {
          ops = ["<unparsed>"];
        }
      }
      seen.push({
        runId,
        stepId: requestInfo.url.searchParams.get("stepId") ?? "",
        status: res.status,
        ops,
        at: Date.now(),
        stack: body?.ctx?.stack?.stack ?? [],
        disableImmediate: body?.ctx?.disable_immediate_execution === true,
      });
      return res;
    }
  };
}

for (const mode of ["dev", "signed"] as const) {
  describe(`parallel steps with a sleep in the group (${mode} mode)`, () => {
    let executor: ExecutorHandle;
    let app: TestApp;
    const seen: Seen[] = [];
    const of = (runId: string) => seen.filter((s) => s.runId === runId);

    beforeAll(async () => {
      executor = await startTestExecutor(testDatabaseUrl(), mode === "dev" ? { dev: true, signingKey: undefined, eventKey: undefined } : {});
      const middleware = [recorder(seen)];
      const id = `psl-${mode}`;
      const client =
        mode === "dev"
          ? new Inngest({ id, isDev: true, baseUrl: executor.url, checkpointing: true, middleware })
          : new Inngest({ id, signingKey: TEST_SIGNING_KEY, eventKey: TEST_EVENT_KEY, baseUrl: executor.url, checkpointing: true, middleware });
      const mix = client.createFunction({ id: "mix", triggers: [{ event: `psl/${mode}.mix` }] }, async ({ step }) => {
        const [a] = await Promise.all([step.run("a", () => "A"), step.sleep("nap", "1s")]);
        const b = await step.run("b", () => "B");
        return `${a}${b}`;
      });
      const slow = client.createFunction({ id: "slow", triggers: [{ event: `psl/${mode}.slow` }] }, async ({ step }) => {
        // The planned step outlasts the sleep: the wake must not start a discovery while it is pending.
        const [s] = await Promise.all([step.run("slow", () => new Promise<string>((r) => setTimeout(() => r("S"), 2500))), step.sleep("blink", "1s")]);
        return s;
      });
      const pair = client.createFunction({ id: "pair", triggers: [{ event: `psl/${mode}.pair` }] }, async ({ step }) => {
        const [l, r] = await Promise.all([step.run("left", () => "L"), step.run("right", () => "R"), step.sleep("nap", "1s")]);
        return `${l}${r}`;
      });
      app = await startTestApp(client, [mix, slow, pair]);
      const put = await fetch(app.url, { method: "PUT" });
      expect(put.status).toBe(200);
    });

    afterAll(async () => {
      await app?.stop();
      await executor?.stop();
    });

    it("run + sleep: a targeted request for the planned step, then one discovery after the sleep", async () => {
      const runId = await runIdForEvent(executor.db, `psl-${mode}-mix`, await sendEvent(executor.url, `psl/${mode}.mix`));
      const run = await waitForRunStatus(executor.url, runId);
      expect(run).toMatchObject({ status: "completed", output: "AB" });
      const reqs = of(runId);
      expect(reqs.map((r) => [r.stepId, r.status, r.ops])).toEqual([
        ["step", 206, ["StepPlanned a", "Sleep nap"]],
        [sha1("a"), 206, ["StepRun a"]],
        // Async checkpointing: b runs inline and is checkpointed; the request ends with RunComplete.
        ["step", 206, ["RunComplete"]],
      ]);
      expect(reqs[1]!.disableImmediate).toBe(true);
      // The discovery comes after the sleep, carries both results, and may run steps inline again.
      expect(reqs[2]!.at - reqs[0]!.at).toBeGreaterThanOrEqual(1000);
      expect(reqs[2]!.stack).toEqual([sha1("a"), sha1("nap")]);
      expect(reqs[2]!.disableImmediate).toBe(false);
      if (mode === "signed") {
        const calls = app.requests.filter((r) => r.method === "POST" && (r.body as { ctx?: { run_id?: string } })?.ctx?.run_id === runId);
        for (const c of calls) expect(c.headers["x-inngest-signature"]).toMatch(/^t=\d+&s=[0-9a-f]{64}$/);
      }
    });

    it("planned step slower than the sleep: the wake starts no discovery; the step's result does", async () => {
      const runId = await runIdForEvent(executor.db, `psl-${mode}-slow`, await sendEvent(executor.url, `psl/${mode}.slow`));
      const run = await waitForRunStatus(executor.url, runId);
      expect(run).toMatchObject({ status: "completed", output: "S" });
      const reqs = of(runId);
      expect(reqs.map((r) => [r.stepId, r.status, r.ops])).toEqual([
        ["step", 206, ["StepPlanned slow", "Sleep blink"]],
        [sha1("slow"), 206, ["StepRun slow"]],
        ["step", 206, ["RunComplete"]],
      ]);
      // Completion order: the sleep woke (and was memoized) while the slow step was still running.
      expect(reqs[2]!.stack).toEqual([sha1("blink"), sha1("slow")]);
    });

    it("two runs + a sleep: two targeted requests, then exactly one discovery", async () => {
      const runId = await runIdForEvent(executor.db, `psl-${mode}-pair`, await sendEvent(executor.url, `psl/${mode}.pair`));
      const run = await waitForRunStatus(executor.url, runId);
      expect(run).toMatchObject({ status: "completed", output: "LR" });
      const reqs = of(runId);
      expect(reqs[0]).toMatchObject({ stepId: "step", status: 206, ops: ["StepPlanned left", "StepPlanned right", "Sleep nap"] });
      expect(
        reqs
          .slice(1, 3)
          .map((r) => r.stepId)
          .sort(),
      ).toEqual([sha1("left"), sha1("right")].sort());
      for (const r of reqs.slice(1, 3)) expect(r).toMatchObject({ status: 206, disableImmediate: true });
      expect(reqs.slice(3).map((r) => [r.stepId, r.status])).toEqual([["step", 206]]);
      expect(reqs[3]!.ops).toEqual(["RunComplete"]);
      expect(new Set(reqs[3]!.stack)).toEqual(new Set([sha1("left"), sha1("right"), sha1("nap")]));
      expect(reqs[3]!.at - reqs[0]!.at).toBeGreaterThanOrEqual(1000);
    });
  });
}
