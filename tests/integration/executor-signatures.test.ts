import { createServer, type IncomingMessage, type Server } from "node:http";
import { Inngest } from "inngest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExecutorHandle } from "../../server/executor/index.ts";
import { freePort } from "../support/ports.ts";
import { Counter, runIdForEvent, sendEvent, startTestApp, startTestExecutor, testClient, waitForRunStatus, type TestApp } from "../support/executor-harness.ts";
import { testDatabaseUrl } from "../support/database.ts";

// Response signatures (docs/INNGEST-PROTOCOL.md §2.4, §2.9): in signed mode the SDK signs every response
// to a signed request (`X-Inngest-Signature: t=…&s=HMAC(body + t)`) and the executor refuses one
// that is unsigned or does not match its body — a failed attempt (retried), the run failed with
// InvalidResponseSignature after the last, nothing of the refused body applied. Dev mode checks
// nothing, as the dev server. A proxy between the executor and a real inngest@4.24.0 app rewrites
// the responses; the app registers the proxy's origin as its own (serve's `serveOrigin`).

type Tamper = "none" | "strip" | "forge-body" | "forge-signature";

/** A forwarding proxy to `target` whose response rewriting is set per request by `plan()`. */
async function startProxy(target: () => string, plan: () => Tamper): Promise<{ origin: string; seen: Tamper[]; close: () => Promise<void> }> {
  const port = await freePort();
  const seen: Tamper[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(([k, v]) => typeof v === "string" && !["host", "content-length", "connection"].includes(k)),
        ) as Record<string, string>;
        const up = await fetch(new URL(req.url ?? "/", target()), { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
        let body = await up.text();
        const out: Record<string, string> = {};
        up.headers.forEach((v, k) => {
          if (k.startsWith("x-inngest-") || k === "content-type" || k === "retry-after") out[k] = v;
        });
        const mode = req.method === "POST" ? plan() : "none";
        if (req.method === "POST") seen.push(mode);
        if (mode === "strip") delete out["x-inngest-signature"];
        if (mode === "forge-body") body = body.replace(/"A"/g, '"EVIL"');
        if (mode === "forge-signature" && out["x-inngest-signature"])
          out["x-inngest-signature"] = out["x-inngest-signature"].replace(/s=[0-9a-f]+/, `s=${"0".repeat(64)}`);
        res.writeHead(up.status, { ...out, "content-length": String(Buffer.byteLength(body)) });
        res.end(body);
      })().catch((error: unknown) => {
        res.writeHead(502);
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe("response signatures (signed mode)", () => {
  let executor: ExecutorHandle;
  let app: TestApp;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  const counter = new Counter();
  let plan: (n: number) => Tamper = () => "none";
  let n = 0;

  beforeAll(async () => {
    executor = await startTestExecutor(testDatabaseUrl());
    proxy = await startProxy(
      () => app.url,
      () => plan(n++),
    );
    const client = testClient("sig", executor.url);
    const fn = client.createFunction({ id: "one", retries: 1, triggers: [{ event: "sig/one" }] }, async ({ step, runId }) => {
      const a = await step.run("a", () => {
        counter.hit(`${runId}:a`);
        return "A";
      });
      return { a };
    });
    app = await startTestApp(client, [fn], undefined, { serveOrigin: proxy.origin });
    await executor.sync(`${proxy.origin}/api/inngest`);
  });

  afterAll(async () => {
    await proxy?.close();
    await app?.stop();
    await executor?.stop();
  });

  const start = async (tamper: (n: number) => Tamper) => {
    n = 0;
    proxy.seen.length = 0;
    plan = tamper;
    const runId = await runIdForEvent(executor.db, "sig-one", await sendEvent(executor.url, "sig/one"));
    return { runId, run: await waitForRunStatus(executor.url, runId) };
  };

  it("genuine signed responses through the proxy are accepted", async () => {
    const { runId, run } = await start(() => "none");
    expect(run).toMatchObject({ status: "completed", output: { a: "A" } });
    expect(counter.get(`${runId}:a`)).toBe(1);
  });

  it("a response whose body was altered is refused on every attempt: the run fails with InvalidResponseSignature, the forged output never stored", async () => {
    const { runId, run } = await start(() => "forge-body");
    expect(run.status).toBe("failed");
    expect(run.output).toBeNull();
    expect(run.error).toMatchObject({ name: "InvalidResponseSignature", message: expect.stringMatching(/X-Inngest-Signature does not match its body/) });
    // retries: 1 → two attempts, both refused.
    expect(proxy.seen).toEqual(["forge-body", "forge-body"]);
    const attempts = app.requests
      .filter((r) => (r.body as { ctx?: { run_id?: string } })?.ctx?.run_id === runId)
      .map((r) => (r.body as { ctx: { attempt: number } }).ctx.attempt);
    expect(attempts).toEqual([0, 1]);
    const stored = JSON.stringify(await executor.db.executorStepResult.findMany({ where: { runId } }));
    expect(stored).not.toContain("EVIL");
    const metrics = await (await fetch(`${executor.url}/metrics`)).text();
    expect(metrics).toMatch(/failed_requests_total\{reason="bad_signature"\} [1-9]/);
  });

  it("a response without a signature (or with a forged one) is a failed attempt: retried, and the retry completes", async () => {
    for (const mode of ["strip", "forge-signature"] as const) {
      const { runId, run } = await start((i) => (i === 0 ? mode : "none"));
      expect(run, mode).toMatchObject({ status: "completed", output: { a: "A" } });
      expect(proxy.seen.slice(0, 2)).toEqual([mode, "none"]);
      const attempts = app.requests
        .filter((r) => (r.body as { ctx?: { run_id?: string } })?.ctx?.run_id === runId)
        .map((r) => (r.body as { ctx: { attempt: number } }).ctx.attempt);
      expect(attempts[0]).toBe(0);
      expect(attempts[1]).toBe(1);
    }
  });
});

describe("response signatures (dev mode: not checked, as the dev server)", () => {
  let executor: ExecutorHandle;
  let app: TestApp;
  let proxy: Awaited<ReturnType<typeof startProxy>>;

  beforeAll(async () => {
    // A signing key given to a dev-mode executor signs its requests, yet responses are never checked.
    executor = await startTestExecutor(testDatabaseUrl(), { dev: true, eventKey: undefined });
    proxy = await startProxy(
      () => app.url,
      () => "forge-signature",
    );
    const client = new Inngest({ id: "sig-dev", isDev: true, baseUrl: executor.url, checkpointing: true });
    const fn = client.createFunction({ id: "one", triggers: [{ event: "sig-dev/one" }] }, async ({ step }) => ({ a: await step.run("a", () => "A") }));
    app = await startTestApp(client, [fn], undefined, { serveOrigin: proxy.origin });
    expect((await fetch(`${proxy.origin}/api/inngest`, { method: "PUT" })).status).toBe(200);
  });

  afterAll(async () => {
    await proxy?.close();
    await app?.stop();
    await executor?.stop();
  });

  it("unsigned responses of a dev-mode app complete the run", async () => {
    const runId = await runIdForEvent(executor.db, "sig-dev-one", await sendEvent(executor.url, "sig-dev/one"));
    const run = await waitForRunStatus(executor.url, runId);
    expect(run).toMatchObject({ status: "completed", output: { a: "A" } });
    const posts = app.requests.filter((r) => r.method === "POST");
    expect(posts.length).toBeGreaterThan(0);
    expect(proxy.seen.length).toBe(posts.length);
  });
});
