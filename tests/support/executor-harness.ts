import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { Readable } from "node:stream";
import type { Inngest, InngestFunction } from "inngest";
import { serve } from "inngest/node";
import { startExecutor, type ExecutorHandle } from "../../server/executor/index.ts";
import { createInngestClient } from "../../server/inngest/sdk-transport.ts";
import { childNodeArgs } from "./child-bundles.ts";
import { freePort } from "./ports.ts";

/** Signing key shared by the test executor and the test apps (cloud/signed mode, never dev mode). */
export const TEST_SIGNING_KEY = "signkey-test-8f4b2c1d9e7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c";
export const TEST_EVENT_KEY = "test-event-key";

/** A serve() app on a plain node:http server; `stop()`/`start()` take it down and bring it back on the same port. */
export interface TestApp {
  url: string;
  port: number;
  stop: () => Promise<void>;
  start: () => Promise<void>;
  /** Requests received by the serve endpoint (method, query, parsed body) — to compare shapes with the transcripts. */
  requests: { method: string; query: URLSearchParams; body: unknown; headers: Record<string, string | string[] | undefined> }[];
}

/** An Inngest 4.24.0 client in cloud mode pointed at `executorUrl` (`baseUrl`), with the test keys and the app's SDK transport (sdk-transport.ts). */
export function testClient(id: string, executorUrl: string): Inngest {
  return createInngestClient({ id, signingKey: TEST_SIGNING_KEY, eventKey: TEST_EVENT_KEY, baseUrl: executorUrl, checkpointing: true });
}

/**
 * Serves `functions` of `client` with `serve` from `inngest/node` at `http://127.0.0.1:<port>/api/inngest`.
 * `serveOrigin` (serve()'s option) is the origin the app registers as its own, e.g. a proxy's.
 */
export async function startTestApp(
  client: Inngest,
  functions: InngestFunction.Any[],
  port?: number,
  { serveOrigin }: { serveOrigin?: string } = {},
): Promise<TestApp> {
  const handler = serve({ client, functions, ...(serveOrigin ? { serveOrigin } : {}) });
  const p = port ?? (await freePort());
  const requests: TestApp["requests"] = [];
  let server: Server | undefined;
  const app: TestApp = {
    url: `http://127.0.0.1:${p}/api/inngest`,
    port: p,
    requests,
    start: async () => {
      server = createServer((req, res) => {
        // Buffer the body (to record it), then hand serve() an equivalent readable request.
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          const buf = Buffer.concat(chunks);
          const raw = buf.toString("utf8");
          let body: unknown = raw;
          try {
            body = raw ? JSON.parse(raw) : undefined;
          } catch {
            /* keep raw */
          }
          requests.push({ method: req.method ?? "", query: new URL(req.url ?? "/", "http://x").searchParams, body, headers: req.headers });
          const replay = Object.assign(Readable.from(buf.length ? [buf] : []), { headers: req.headers, method: req.method, url: req.url, socket: req.socket });
          void handler(replay as unknown as IncomingMessage, res);
        });
      });
      await new Promise<void>((resolve, reject) => {
        server!.once("error", reject);
        server!.listen(p, "127.0.0.1", () => resolve());
      });
    },
    stop: async () => {
      const s = server;
      server = undefined;
      if (!s) return;
      await new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeAllConnections();
      });
    },
  };
  await app.start();
  return app;
}

/** Starts an in-process executor on a free port with a fast backoff table (50,100,200 ms). */
export async function startTestExecutor(databaseUrl: string, overrides: Partial<Parameters<typeof startExecutor>[0]> = {}): Promise<ExecutorHandle> {
  return startExecutor({
    databaseUrl,
    port: 0,
    signingKey: TEST_SIGNING_KEY,
    eventKey: TEST_EVENT_KEY,
    appUrls: [],
    backoffMs: [50, 100, 200],
    leaseMs: 2000,
    log: process.env.EXECUTOR_TEST_LOG ? (l) => process.stderr.write(`[executor] ${l}\n`) : () => {},
    ...overrides,
  });
}

/**
 * Polls `check` every `intervalMs` until it returns a value other than undefined/false, or throws
 * after `timeoutMs` with `what` in the message (no fixed sleeps standing in for synchronisation).
 * With WAIT_TRACE set, each wait that ends prints `[wait] <ms> ms for <what>` to stderr: where a
 * slow test file's time goes (child boots, runs, sweeps), with `--reporter=verbose` for per-test times.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
  intervalMs = 50,
): Promise<T> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) {
        if (process.env.WAIT_TRACE) process.stderr.write(`[wait] ${Date.now() - started} ms for ${what}\n`);
        return v;
      }
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${last instanceof Error ? last.message : JSON.stringify(last)})` : ""}`,
      );
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Auth header for the executor's REST API (`/v1/runs/…`). */
export const apiAuth = { authorization: `Bearer ${TEST_SIGNING_KEY}` };

/** A run as `GET /v1/runs/{id}` returns it. */
export interface RunView {
  id: string;
  functionId: string;
  status: string;
  output: unknown;
  error: unknown;
}

/** `GET /v1/runs/{id}` (Inngest's REST shape `{data: {run_id, function_id, status: "Completed", …}}`), as a {@link RunView} with the executor's lower-case status. */
export async function getRun(executorUrl: string, runId: string): Promise<RunView | undefined> {
  const res = await fetch(`${executorUrl}/v1/runs/${runId}`, { headers: apiAuth });
  if (res.status !== 200) return undefined;
  const { data } = (await res.json()) as { data: { run_id: string; function_id: string; status: string; output: unknown; error: unknown } };
  return { id: data.run_id, functionId: data.function_id, status: data.status.toLowerCase(), output: data.output, error: data.error };
}

/** Sends one event through the event API; returns its id. */
export async function sendEvent(executorUrl: string, name: string, data: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await fetch(`${executorUrl}/e/${TEST_EVENT_KEY}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify([{ name, data, ...extra }]),
  });
  const body = (await res.json()) as { ids: string[]; status: number };
  if (body.status !== 200) throw new Error(`send failed: ${JSON.stringify(body)}`);
  return body.ids[0]!;
}

/** Waits until a run of `functionId` exists whose trigger event has id `eventId`; returns its id. */
export async function runIdForEvent(db: ExecutorHandle["db"], functionId: string, eventId: string, timeoutMs = 10_000): Promise<string> {
  return waitFor(
    `a run of ${functionId} for event ${eventId}`,
    async () => {
      const runs = await db.executorRun.findMany({ where: { functionId }, select: { id: true, event: true } });
      return runs.find((r) => (r.event as { id?: string }).id === eventId)?.id;
    },
    timeoutMs,
  );
}

/** Waits until the run reaches one of `statuses` (default: any terminal status). */
export async function waitForRunStatus(
  executorUrl: string,
  runId: string,
  statuses = ["completed", "failed", "cancelled"],
  timeoutMs = 20_000,
): Promise<RunView> {
  return waitFor(
    `run ${runId} to reach ${statuses.join("|")}`,
    async () => {
      const run = await getRun(executorUrl, runId);
      return run && statuses.includes(run.status) ? run : undefined;
    },
    timeoutMs,
  );
}

/** Per-test execution counters for step bodies. */
export class Counter {
  private readonly counts = new Map<string, number>();
  hit(key: string): number {
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    return n;
  }
  get(key: string): number {
    return this.counts.get(key) ?? 0;
  }
}

/** The executor as a child process (server/executor/main.ts), for kill -9 tests. */
export interface ExecutorProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  kill: (signal?: NodeJS.Signals) => void;
}

/**
 * Spawns server/executor/main.ts [args] (its bundle in a test run, see childNodeArgs) with the given env (a value of `undefined` unsets the
 * variable; `databaseUrl` undefined = unset DATABASE_URL) and waits until `GET /health` answers.
 */
export async function spawnExecutor({
  databaseUrl,
  port,
  appUrls,
  env = {},
  args = [],
}: {
  databaseUrl: string | undefined;
  port: number;
  appUrls: string[];
  env?: Record<string, string | undefined>;
  args?: string[];
}): Promise<ExecutorProcess> {
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    EXECUTOR_PORT: String(port),
    INNGEST_SIGNING_KEY: TEST_SIGNING_KEY,
    INNGEST_EVENT_KEY: TEST_EVENT_KEY,
    EXECUTOR_SDK_URL: appUrls.join(","),
    EXECUTOR_BACKOFF_MS: "50,100,200",
    LONGHAUL_CRASH_AT: "",
    ...env,
  };
  for (const [k, v] of Object.entries(childEnv)) if (v === undefined) delete childEnv[k];
  const child = spawn(process.execPath, [...childNodeArgs("server/executor/main.ts"), ...args], {
    env: childEnv as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => {
    out += d.toString();
    if (process.env.EXECUTOR_TEST_LOG) process.stderr.write(d);
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    "the executor child process to answer /health",
    async () => {
      if (child.exitCode !== null) throw new Error(`executor exited ${child.exitCode}: ${out}`);
      const res = await fetch(`${url}/health`).catch(() => undefined);
      return res?.status === 200;
    },
    30_000,
    100,
  );
  return { url, child, output: () => out, exited, kill: (signal = "SIGKILL") => child.kill(signal) };
}
