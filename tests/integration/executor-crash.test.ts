import { afterAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "../../server/db/client.ts";
import { freePort } from "../support/ports.ts";
import {
  Counter,
  runIdForEvent,
  sendEvent,
  spawnExecutor,
  startTestApp,
  startTestExecutor,
  testClient,
  waitFor,
  waitForRunStatus,
  type ExecutorProcess,
} from "../support/executor-harness.ts";
import { testDatabaseUrl } from "../support/database.ts";

const db = createPrismaClient(testDatabaseUrl());
afterAll(() => db.$disconnect());

const STEPS = ["s1", "s2", "s3", "s4", "s5", "s6"];

// kill -9 of the executor process mid-run (LONGHAUL_CRASH_AT makes it exit 137 with no cleanup right
// after the 3rd step result is committed), then a restart without the crash point: the run completes
// and every step committed before the kill is never executed again.
const CASES = [
  { checkpointing: true, point: "executor:after-step-saved", minSaved: 3, tag: "cp" },
  { checkpointing: false, point: "executor:after-step-saved", minSaved: 3, tag: "cl" },
  // The 3rd checkpoint POST arrives but the process dies before persisting it: s1, s2 are kept.
  { checkpointing: true, point: "executor:checkpoint-received", minSaved: 2, tag: "cpr" },
];
for (const { checkpointing, point, minSaved, tag } of CASES) {
  it(`executor killed (-9) at ${point}@3 resumes from memoized steps (${checkpointing ? "checkpoint" : "classic"} mode)`, async () => {
    const port = await freePort();
    const executorUrl = `http://127.0.0.1:${port}`;
    const counter = new Counter();
    const client = testClient(`crash-${tag}`, executorUrl);
    const fn = client.createFunction({ id: "six-steps", retries: 0, triggers: [{ event: `c/${tag}.six` }] }, async ({ step, runId }) => {
      const out: string[] = [];
      for (const s of STEPS) {
        out.push(
          await step.run(s, async () => {
            counter.hit(`${runId}:${s}`);
            await new Promise((r) => setTimeout(r, 20));
            return s;
          }),
        );
      }
      return out;
    });
    const app = await startTestApp(client, [fn]);
    const env = { LONGHAUL_CRASH_AT: `${point}@3`, EXECUTOR_CHECKPOINTING: checkpointing ? "1" : "0" };
    let proc: ExecutorProcess | undefined = await spawnExecutor({ databaseUrl: testDatabaseUrl(), port, appUrls: [app.url], env });
    try {
      await waitFor("the app to be synced", () => db.executorFunction.findUnique({ where: { id: `crash-${tag}-six-steps` } }).then((f) => f ?? undefined));
      const eventId = await sendEvent(executorUrl, `c/${tag}.six`);
      const runId = await runIdForEvent(db, `crash-${tag}-six-steps`, eventId);
      const code = await proc.exited;
      expect(code).toBe(137);
      expect(proc.output()).toContain(`crash at ${point} (#3)`);
      const savedBefore = (await db.executorStepResult.findMany({ where: { runId }, orderBy: { seq: "asc" } })).map((s) => s.name);
      expect(savedBefore.length).toBeGreaterThanOrEqual(minSaved);
      expect(savedBefore.slice(0, minSaved)).toEqual(STEPS.slice(0, minSaved));

      proc = await spawnExecutor({ databaseUrl: testDatabaseUrl(), port, appUrls: [app.url], env: { EXECUTOR_CHECKPOINTING: env.EXECUTOR_CHECKPOINTING } });
      const run = await waitForRunStatus(executorUrl, runId, undefined, 30_000);
      expect(run.status).toBe("completed");
      expect(run.output).toEqual(STEPS);
      for (const s of savedBefore) expect(counter.get(`${runId}:${s}`), `step ${s} was committed before the kill`).toBe(1);
      for (const s of STEPS) expect(counter.get(`${runId}:${s}`)).toBeGreaterThanOrEqual(1);
      const rows = await db.executorStepResult.findMany({ where: { runId }, orderBy: { seq: "asc" } });
      expect(rows.map((r) => r.name)).toEqual(STEPS);
    } finally {
      proc?.kill("SIGTERM");
      await proc?.exited;
      await app.stop();
    }
  });
}

describe("app unreachable during a request", () => {
  it("connection refused does not use up attempts; the run completes once the app is back", async () => {
    const executor = await startTestExecutor(testDatabaseUrl());
    const counter = new Counter();
    const attempts: number[] = [];
    const client = testClient("appdown", executor.url);
    const fn = client.createFunction({ id: "pausing", retries: 0, triggers: [{ event: "d/pausing" }] }, async ({ step, runId, attempt }) => {
      await step.run("a", () => counter.hit(`${runId}:a`));
      await step.sleep("pause", "1s");
      return step.run("b", () => {
        attempts.push(attempt);
        counter.hit(`${runId}:b`);
        return "done";
      });
    });
    const app = await startTestApp(client, [fn]);
    try {
      await executor.sync(app.url);
      const runId = await runIdForEvent(executor.db, "appdown-pausing", await sendEvent(executor.url, "d/pausing"));
      await waitFor("the sleep", () => executor.db.executorQueueItem.findFirst({ where: { runId, kind: "sleepWake" } }).then((i) => i ?? undefined));
      await app.stop(); // web down: the wake-up discovery gets ECONNREFUSED
      const item = await waitFor(
        "two refused connections",
        async () => {
          const it = await executor.db.executorQueueItem.findFirst({ where: { runId, kind: "discover" } });
          return it && Number((it.payload as { connectFailures?: number }).connectFailures ?? 0) >= 2 ? it : undefined;
        },
        20_000,
      );
      expect(item.attempt).toBe(0);
      await app.start();
      const run = await waitForRunStatus(executor.url, runId);
      expect(run.status).toBe("completed"); // retries: 0 → a consumed attempt would have failed the run
      expect(run.output).toBe("done");
      expect(counter.get(`${runId}:a`)).toBe(1);
      expect(counter.get(`${runId}:b`)).toBe(1);
      expect(attempts).toEqual([0]);
    } finally {
      await app.stop();
      await executor.stop();
    }
  });

  it("the app dying mid-request (connection reset) does not use up attempts either", async () => {
    const executor = await startTestExecutor(testDatabaseUrl(), { checkpointing: false });
    const counter = new Counter();
    const client = testClient("appreset", executor.url);
    const holder: { app?: Awaited<ReturnType<typeof startTestApp>> } = {};
    const fn = client.createFunction({ id: "dies", retries: 0, triggers: [{ event: "d/dies" }] }, async ({ step, runId }) => {
      return step.run("work", async () => {
        const n = counter.hit(`${runId}:work`);
        if (n === 1) await holder.app!.stop(); // the web process goes away while this request is in flight
        return `finished on execution ${n}`;
      });
    });
    const app = (holder.app = await startTestApp(client, [fn]));
    try {
      await executor.sync(app.url);
      const runId = await runIdForEvent(executor.db, "appreset-dies", await sendEvent(executor.url, "d/dies"));
      await waitFor(
        "a failed connection",
        async () => {
          const it = await executor.db.executorQueueItem.findFirst({ where: { runId } });
          return it && Number((it.payload as { connectFailures?: number }).connectFailures ?? 0) >= 1 ? it : undefined;
        },
        20_000,
      );
      await app.start();
      const run = await waitForRunStatus(executor.url, runId);
      expect(run.status).toBe("completed");
      expect(run.output).toBe("finished on execution 2"); // at-least-once: the lost result is recomputed
    } finally {
      await app.stop();
      await executor.stop();
    }
  });
});

describe("leases", () => {
  it("a request running longer than the lease keeps its lease by heartbeat (no second execution)", async () => {
    const executor = await startTestExecutor(testDatabaseUrl(), { leaseMs: 1000, checkpointing: false });
    const counter = new Counter();
    const client = testClient("lease", executor.url);
    const fn = client.createFunction({ id: "slow", triggers: [{ event: "l/slow" }] }, async ({ step, runId }) =>
      step.run("slow", async () => {
        counter.hit(`${runId}:slow`);
        await new Promise((r) => setTimeout(r, 3500)); // 3.5× the lease
        return "slow done";
      }),
    );
    const app = await startTestApp(client, [fn]);
    try {
      await executor.sync(app.url);
      const runId = await runIdForEvent(executor.db, "lease-slow", await sendEvent(executor.url, "l/slow"));
      const run = await waitForRunStatus(executor.url, runId);
      expect(run.output).toBe("slow done");
      expect(counter.get(`${runId}:slow`)).toBe(1);
    } finally {
      await app.stop();
      await executor.stop();
    }
  });
});

describe("graceful stop", () => {
  it("stop() lets an in-flight step finish and persists it; a new executor continues without re-running it", async () => {
    const port = await freePort();
    const counter = new Counter();
    const client = testClient("graceful", `http://127.0.0.1:${port}`);
    let stepStarted = false;
    const fn = client.createFunction({ id: "two", retries: 0, triggers: [{ event: "g/two" }] }, async ({ step, runId }) => {
      await step.run("slow", async () => {
        counter.hit(`${runId}:slow`);
        stepStarted = true;
        await new Promise((r) => setTimeout(r, 800));
        return "slow";
      });
      return step.run("next", () => counter.hit(`${runId}:next`));
    });
    const app = await startTestApp(client, [fn]);
    let executor = await startTestExecutor(testDatabaseUrl(), { port, checkpointing: false });
    try {
      await executor.sync(app.url);
      const runId = await runIdForEvent(executor.db, "graceful-two", await sendEvent(executor.url, "g/two"));
      await waitFor("the slow step to start", () => stepStarted);
      await executor.stop(); // SIGTERM path: waits (≤ 5 s) for the in-flight request
      const saved = await db.executorStepResult.findMany({ where: { runId } });
      expect(saved.map((s) => s.name)).toContain("slow");
      executor = await startTestExecutor(testDatabaseUrl(), { port, checkpointing: false });
      const run = await waitForRunStatus(executor.url, runId);
      expect(run.status).toBe("completed");
      expect(counter.get(`${runId}:slow`)).toBe(1);
    } finally {
      await app.stop();
      await executor.stop();
    }
  });
});
