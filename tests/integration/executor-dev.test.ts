import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Inngest } from "inngest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/ports.ts";
import { Counter, spawnExecutor, startTestApp, waitFor, type ExecutorProcess, type TestApp } from "../support/executor-harness.ts";
import { testDatabaseUrl } from "../support/database.ts";

// Dev mode (`npm run executor -- --dev`), as `inngest dev` behaves: a real inngest@4.24.0 app in dev
// mode (isDev, no signing key, no event key) registers out of band (`Bearer undefined`), sends
// events with any key, checkpoints without a bearer, and its run completes. Signed mode keeps
// refusing all of that (executor-flow.test.ts "rejects bad credentials").
describe("executor dev mode (--dev)", () => {
  let executor: ExecutorProcess;
  let app: TestApp;
  const counter = new Counter();

  beforeAll(async () => {
    executor = await spawnExecutor({
      databaseUrl: testDatabaseUrl(),
      port: await freePort(),
      appUrls: [],
      args: ["--dev"],
      env: { INNGEST_SIGNING_KEY: undefined, INNGEST_EVENT_KEY: undefined, INNGEST_DEV: undefined },
    });
    const client = new Inngest({ id: "dev-app", isDev: true, baseUrl: executor.url, checkpointing: true });
    const fn = client.createFunction({ id: "steps", retries: 1, triggers: [{ event: "dev/steps" }] }, async ({ event, step, runId }) => {
      const a = await step.run("a", () => counter.hit(`${runId}:a`));
      const b = await step.run("b", () => counter.hit(`${runId}:b`));
      // inngest 4.x types no longer declare `user`; the dev server still delivers it ({} when omitted).
      return { a, b, user: (event as { user?: unknown }).user, hasTs: typeof event.ts === "number" };
    });
    app = await startTestApp(client, [fn]);
  });

  afterAll(async () => {
    await app?.stop();
    executor?.kill("SIGTERM");
    await executor?.exited;
  });

  it("says it is dev mode and registers an unsigned app (PUT → /fn/register with Bearer undefined)", async () => {
    expect(executor.output()).toContain("DEV MODE");
    const put = await fetch(app.url, { method: "PUT" });
    const reply = (await put.json()) as { message?: string; modified?: boolean };
    expect(put.status).toBe(200);
    expect(reply.modified).toBe(true);
    const dev = (await (await fetch(`${executor.url}/dev`)).json()) as { functions: { id: string }[] };
    expect(dev.functions.map((f) => f.id)).toContain("dev-app-steps");
  });

  it("accepts any event key, runs with unsigned checkpoints, and serves the read API without a bearer", async () => {
    const res = await fetch(`${executor.url}/e/any-key-at-all`, { method: "POST", body: JSON.stringify({ name: "dev/steps", data: {} }) });
    const sent = (await res.json()) as { ids: string[]; status: number };
    expect(sent.status).toBe(200);
    const runs = await waitFor("a run for the event", async () => {
      const r = await fetch(`${executor.url}/v1/events/${sent.ids[0]}/runs`);
      const body = (await r.json()) as { data: { run_id: string; status: string }[] };
      return body.data.length && body.data[0]!.status === "Completed" ? body.data : undefined;
    });
    const run = (await (await fetch(`${executor.url}/v1/runs/${runs[0]!.run_id}`)).json()) as { data: { status: string; output: unknown } };
    expect(run.data.status).toBe("Completed");
    // The stored event always has `user` ({} when omitted) and a ts.
    expect(run.data.output).toEqual({ a: 1, b: 1, user: {}, hasTs: true });
    // One request did all the steps (checkpointed without a bearer); nothing was signed.
    const posts = app.requests.filter((r) => r.method === "POST");
    expect(posts).toHaveLength(1);
    expect(posts[0]!.headers["x-inngest-signature"]).toBeUndefined();
    expect(posts[0]!.headers["x-inngest-server-kind"]).toBe("dev");
    expect((posts[0]!.body as { ctx: { qi_id?: string } }).ctx.qi_id).toBeTruthy();
    // Not on a terminal, the executor logs one JSON object per line (EXECUTOR_LOG_FORMAT default),
    // with the run's and the request's ids.
    const runId = runs[0]!.run_id;
    const lines = await waitFor("the completion log line", () => {
      const all = executor
        .output()
        .split("\n")
        .filter((l) => l.trim());
      return all.some((l) => l.includes(`run ${runId} completed`)) ? all : undefined;
    });
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const e of entries)
      expect(e).toMatchObject({ level: expect.stringMatching(/^(debug|info|warn|error)$/), time: expect.any(String), msg: expect.any(String) });
    expect(entries.find((e) => e.level === "warn" && String(e.msg).startsWith("DEV MODE"))).toBeDefined();
    const ofRun = entries.filter((e) => e.runId === runId);
    expect(ofRun.find((e) => String(e.msg).startsWith(`run ${runId} started`))).toMatchObject({ fnId: "dev-app-steps", eventId: sent.ids[0] });
    expect(ofRun.find((e) => e.stepId === "step" && e.status === 206)).toMatchObject({ fnId: "dev-app-steps", attempt: 0, durationMs: expect.any(Number) });
  });

  it("client.send from the dev-mode SDK (event key NO_EVENT_KEY_SET) triggers the function", async () => {
    const client = new Inngest({ id: "dev-app", isDev: true, baseUrl: executor.url });
    const { ids } = await client.send({ name: "dev/steps", data: {}, user: { id: "u1" } } as Parameters<typeof client.send>[0]);
    const runs = await waitFor("the run of the SDK-sent event", async () => {
      const body = (await (await fetch(`${executor.url}/v1/events/${ids[0]}/runs`)).json()) as { data: { run_id: string; status: string; output: unknown }[] };
      return body.data[0]?.status === "Completed" ? body.data : undefined;
    });
    expect((runs[0]!.output as { user: unknown }).user).toEqual({ id: "u1" });
  });
});

describe("executor dev mode without DATABASE_URL", () => {
  it("starts its own embedded PostgreSQL under DATA_DIR with the migrations applied, and stops it on SIGTERM", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "lh-executor-dev-"));
    const executor = await spawnExecutor({
      databaseUrl: undefined,
      port: await freePort(),
      appUrls: [],
      args: ["--dev"],
      env: { INNGEST_SIGNING_KEY: undefined, INNGEST_EVENT_KEY: undefined, DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) },
    });
    try {
      expect(executor.output()).toContain("PostgreSQL (embedded)");
      expect(executor.output()).toMatch(/migrations applied: .+/);
      const health = (await (await fetch(`${executor.url}/health`)).json()) as { status: string; queued: number };
      expect(health).toMatchObject({ status: "ok", queued: 0 });
    } finally {
      executor.kill("SIGTERM");
      expect(await executor.exited).toBe(0);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
