import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { hostname } from "node:os";
import { createPrismaClient, type PrismaClient } from "../db/client.ts";
import { errorText } from "./engine/context.ts";
import { Executor } from "./engine/executor.ts";
import { createExecutorMetrics } from "./engine/metrics.ts";
import { createHotSql } from "./engine/pg.ts";
import { createDevGraphql, restRun, runsForEvent } from "./read-api.ts";
import { createExecutorLogger, type ExecutorLogger, type LogFormat, type LogLevel } from "./logger.ts";
import { registerApp, RegistrationRefusedError, type FunctionConfig } from "./registry.ts";
import { canonicalJson, DEFAULT_BACKOFF_MS, responseSignatureProblem, signBody, verifyApiBearer, verifyBearer } from "./util.ts";

/** Options of {@link startExecutor}. */
export interface StartExecutorOptions {
  /** PostgreSQL URL with the `executor_*` tables migrated. */
  databaseUrl: string;
  /** TCP port to listen on (127.0.0.1 unless `host` is given); 0 = any free port. */
  port: number;
  host?: string;
  /**
   * Dev mode, as `inngest dev` behaves: unsigned SDK calls are accepted (`Bearer undefined`, an
   * empty bearer, no signature) on `/fn/register` and `/v1/checkpoint/…`, any event key on
   * `POST /e/{key}`, the read API needs no bearer, and requests to the app are signed only when a
   * signing key is given. Never for production. Default false (signed mode).
   */
  dev?: boolean;
  /** INNGEST_SIGNING_KEY shared with the app (hex, optionally `signkey-<env>-` prefixed). Required unless `dev`. */
  signingKey?: string;
  /** INNGEST_EVENT_KEY accepted on `POST /e/{key}`. Required unless `dev` (which accepts any key). */
  eventKey?: string;
  /** serve() URLs to sync in-band at start and re-sync periodically (retried until reachable). */
  appUrls: string[];
  /** Retry backoff table in ms; default Inngest's 15s…2h with jitter. When given, no jitter. */
  backoffMs?: number[];
  /** Send `ctx.fn_id`/`qi_id` so the SDK checkpoints steps asynchronously (§2.13). Default true. */
  checkpointing?: boolean;
  /** Lease length, ms (default 5000). Items of a dead executor are reclaimed after this. */
  leaseMs?: number;
  /** Items processed concurrently (default {@link DEFAULT_WORKERS}). */
  workers?: number;
  /** Idle poll interval of the queue, ms (default 100). */
  pollMs?: number;
  /** Interval between re-syncs of `appUrls` once synced, ms (default 60000); retries every 2 s until the first success. */
  resyncMs?: number;
  /** Keep ended runs, events and the ops log this long, ms (default 7 days); housekeeping runs at start and hourly. */
  retentionMs?: number;
  /** A run whose app has not answered at all (refused, reset) for this long ends failed (`AppUnreachable`), ms (default 24 h). */
  appGoneMs?: number;
  /** On stop, grace for in-flight requests before they are aborted and released, ms (default 5000). */
  stopGraceMs?: number;
  /** Instance name (default `executor@<host>:<port>`); leases of a previous process with this name are released at start. */
  instance?: string;
  /**
   * Where log lines go, one call per line (default stderr; text lines get an `[executor] ` prefix
   * there). Ignored when `logger` is given.
   */
  log?: (line: string) => void;
  /** Line format (server/executor/logger.ts): `text` (default here) or `json` (one object per line). */
  logFormat?: LogFormat;
  /** Lowest level logged (default `info`). */
  logLevel?: LogLevel;
  /** A ready logger (main.ts shares its own); overrides `log`, `logFormat` and `logLevel`. */
  logger?: ExecutorLogger;
}

/**
 * Queue items processed at once when `workers` is not given: 100. With async checkpointing
 * (docs/INNGEST-PROTOCOL.md §2.13) a run holds one request to the app for as long as its steps run
 * inline, so this is the number of runs that make progress at the same time, not of step requests.
 * At the former 16, 100 concurrent runs × 20 no-op steps queued behind 16 of them and the
 * checkpoint group commit never saw more than 16 entries per batch. In bench:peer on this 2-core
 * machine (load 5–8, `--steps 20`), raising it alone took Longhaul from 0.66–0.77× DBOS's
 * throughput to 0.96–1.00× at 64. Per-function `concurrency` limits
 * still apply within it; `EXECUTOR_WORKERS` sets it for the executor process.
 */
export const DEFAULT_WORKERS = 100;

/** A running executor. */
export interface ExecutorHandle {
  /** Origin the executor listens on, e.g. `http://127.0.0.1:8288` (use as the Inngest client's baseUrl). */
  url: string;
  /** Runs housekeeping now (see Executor.housekeep). */
  housekeep: (retentionMs?: number) => ReturnType<Executor["housekeep"]>;
  /** Syncs one serve() URL in-band now. @throws RegistrationRefusedError or Error when unreachable. */
  sync: (appUrl: string) => Promise<{ appId: string; functionIds: string[] }>;
  /** Stops leasing, lets in-flight requests finish (≤ stopGraceMs) or releases them, closes the HTTP server and the pool. */
  stop: () => Promise<void>;
  db: PrismaClient;
}

/**
 * Starts Longhaul's embedded Inngest-compatible executor: an HTTP API (event API `POST /e/{key}`,
 * `POST /fn/register`, `POST /v1/checkpoint/{runId}/async`, `GET /v1/runs/{id}`,
 * `POST /v1/runs/{id}/cancel` — both need `Authorization: Bearer <signing key>` —, `GET /health`,
 * `GET /health/live` (liveness: answers without touching the database),
 * `GET /dev`) over a PostgreSQL-backed engine
 * ({@link Executor}). Signed mode only: every request to the app is signed with `signingKey`, and
 * register/checkpoint calls must carry the SDK's hashed-key bearer token (docs/INNGEST-PROTOCOL.md §2.9).
 * @throws Error when the port cannot be bound or the database is unreachable.
 */
export async function startExecutor(options: StartExecutorOptions): Promise<ExecutorHandle> {
  const dev = options.dev ?? false;
  if (!dev && !options.signingKey) throw new Error("signingKey is required in signed mode (pass dev: true for dev mode)");
  if (!dev && !options.eventKey) throw new Error("eventKey is required in signed mode (pass dev: true for dev mode)");
  const serverKind = dev ? "dev" : "cloud";
  const signingKey = options.signingKey;
  /** Bearer check of SDK calls: signed mode only; the dev server accepts any (docs/INNGEST-PROTOCOL.md §2.2). */
  const sdkAuthorized = (header: string | undefined): boolean => dev || verifyBearer(header, signingKey!);
  const apiAuthorized = (header: string | undefined): boolean => dev || verifyApiBearer(header, signingKey!);
  const send = (res: ServerResponse, status: number, body: unknown): void => sendJson(res, status, body, serverKind);
  const logger = options.logger ?? createExecutorLogger({ format: options.logFormat ?? "text", level: options.logLevel, write: options.log });
  const db = createPrismaClient(options.databaseUrl, { max: 20 });
  const hot = createHotSql(options.databaseUrl, 10);
  const metrics = createExecutorMetrics(db);
  await db.$queryRawUnsafe("SELECT 1");
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  const url = `http://${options.host && options.host !== "0.0.0.0" ? options.host : "127.0.0.1"}:${port}`;
  const engine = new Executor({
    db,
    hot,
    metrics,
    signingKey,
    serverKind,
    backoffMs: options.backoffMs ?? DEFAULT_BACKOFF_MS,
    jitter: options.backoffMs === undefined,
    checkpointing: options.checkpointing ?? true,
    leaseMs: options.leaseMs ?? 5000,
    workers: options.workers ?? DEFAULT_WORKERS,
    pollMs: options.pollMs ?? 100,
    instance: options.instance ?? `executor@${hostname()}:${port}`,
    requestTimeoutMs: 2 * 3_600_000,
    appGoneMs: options.appGoneMs ?? 24 * 3_600_000,
    stopGraceMs: options.stopGraceMs ?? 5000,
    retentionMs: options.retentionMs ?? 7 * 86_400_000,
    logger,
  });
  engine.url = url;
  const gql = createDevGraphql(db, (runId) => engine.cancelRunById(runId, "cancelled through /v0/gql cancelRun"));

  const sync = async (appUrl: string): Promise<{ appId: string; functionIds: string[] }> => {
    const body = canonicalJson({ url: appUrl });
    const res = await fetch(appUrl, {
      method: "PUT",
      headers: {
        "content-type": "application/json",
        "x-inngest-sync-kind": "in_band",
        "x-inngest-server-kind": serverKind,
        ...(signingKey ? { "x-inngest-signature": signBody(body, signingKey) } : {}),
      },
      body,
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`sync of ${appUrl}: HTTP ${res.status} ${text.slice(0, 300)}`);
    // Signed mode: the SDK signs its in-band sync reply like any response to a signed request; an
    // unsigned or forged one would register whatever URLs it names, so it is refused (the sync loop retries).
    const problem =
      !dev && signingKey && res.headers.get("x-inngest-sync-kind") === "in_band"
        ? responseSignatureProblem(res.headers.get("x-inngest-signature"), text, signingKey)
        : undefined;
    if (problem) throw new Error(`sync of ${appUrl}: ${problem}; the reply was refused (is INNGEST_SIGNING_KEY the same in the app and the executor?)`);
    const reply = JSON.parse(text) as { app_id?: string; functions?: FunctionConfig[]; sdk?: string; url?: string };
    if (res.headers.get("x-inngest-sync-kind") !== "in_band" || !reply.app_id || !Array.isArray(reply.functions)) {
      // The SDK refused in-band sync (INNGEST_ALLOW_IN_BAND_SYNC=0) and registered out of band instead.
      logger.info(`sync of ${appUrl}: the app answered out-of-band (${text.slice(0, 200)})`);
      return { appId: "", functionIds: [] };
    }
    const result = await registerApp(db, { appId: reply.app_id, url: reply.url ?? appUrl, sdk: reply.sdk ?? "", functions: reply.functions });
    logger.info(`synced app ${reply.app_id} from ${appUrl} (in band): ${result.functionIds.join(", ")}`, { appId: reply.app_id });
    engine.wake();
    return { appId: reply.app_id, functionIds: result.functionIds };
  };

  // Requests wait until the engine has started, i.e. released the leases a previous process of this
  // instance left: a checkpoint served before that would renew a dead process's lease just before it
  // is released, and the dead process's request (still running on the app) would go on to its next
  // step while this process re-dispatches the run, so that step would run twice.
  let engineStarted!: { resolve: () => void; reject: (error: unknown) => void };
  const started = new Promise<void>((resolve, reject) => (engineStarted = { resolve, reject }));
  started.catch(() => {}); // a failed start is thrown by startExecutor; requests meanwhile get a 500
  server.on("request", (req, res) => {
    started
      .then(() => handle(req, res))
      .catch((error: unknown) => {
        const where = `HTTP ${req.method} ${new URL(req.url ?? "/", "http://x").pathname}`;
        if (!engine.dbOutage.failure(where, error)) logger.error(`${where}: ${errorText(error)}`);
        if (!res.headersSent) send(res, 500, { error: "internal error" });
        else res.end();
      });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const method = req.method ?? "GET";
    let m: RegExpExecArray | null;
    if (method === "GET" && path === "/health/live") {
      // Liveness: the process answers, whatever the database does (npm start's supervisor probes it).
      return send(res, 200, { status: "ok" });
    }
    if (method === "GET" && path === "/health") {
      const [apps, functions, queue] = await Promise.all([db.executorApp.count(), db.executorFunction.count(), db.executorQueueItem.count()]);
      return send(res, 200, { status: "ok", apps, functions, queued: queue });
    }
    if (method === "GET" && path === "/metrics") {
      const text = await metrics.registry.metrics();
      res.writeHead(200, { "content-type": metrics.registry.contentType, "content-length": Buffer.byteLength(text) });
      res.end(text);
      return;
    }
    if (method === "GET" && path === "/dev") {
      const fns = await db.executorFunction.findMany({ orderBy: { id: "asc" } });
      return send(res, 200, {
        functions: fns.map((f) => {
          const config = f.config as unknown as FunctionConfig;
          return {
            id: f.id,
            name: f.name,
            slug: f.id,
            triggers: (config.triggers ?? []).map((t) => (t.cron ? { cron: t.cron } : { event: t.event })),
            steps: [{ id: "step", name: "step", uri: f.url }],
          };
        }),
      });
    }
    if (method === "POST" && (m = /^\/e\/([^/]+)\/?$/.exec(path))) {
      if (!dev && decodeURIComponent(m[1]!) !== options.eventKey) return send(res, 401, { ids: [], status: 401, error: "event key not found" });
      let parsed: unknown;
      try {
        parsed = JSON.parse(await readBody(req));
      } catch {
        return send(res, 400, { ids: [], status: 400, error: "body is not JSON" });
      }
      const list = (Array.isArray(parsed) ? parsed : [parsed]) as { name?: unknown }[];
      const bad = list.findIndex((e) => !e || typeof e !== "object" || typeof e.name !== "string" || !e.name);
      if (bad >= 0) return send(res, 400, { ids: [], status: 400, error: `event ${bad}: "name" (string) is required` });
      const seed = req.headers["x-inngest-event-id-seed"];
      const ids = await engine.ingest(list as { name: string }[], typeof seed === "string" ? seed : undefined);
      return send(res, 200, { ids, status: 200 });
    }
    if (method === "POST" && path === "/fn/register") {
      if (!sdkAuthorized(req.headers.authorization)) return send(res, 401, { ok: false, status: 401, error: "invalid signing key" });
      const body = JSON.parse(await readBody(req)) as { appName?: string; url?: string; sdk?: string; functions?: FunctionConfig[] };
      if (!body.appName || !body.url || !Array.isArray(body.functions))
        return send(res, 400, { ok: false, status: 400, error: "appName, url and functions are required" });
      try {
        const result = await registerApp(db, { appId: body.appName, url: body.url, sdk: body.sdk ?? "", functions: body.functions });
        logger.info(`registered app ${body.appName} (out of band): ${result.functionIds.join(", ")}`, { appId: body.appName });
        engine.wake();
        return send(res, 200, { ok: true, modified: true });
      } catch (error) {
        if (error instanceof RegistrationRefusedError) {
          logger.warn(`REFUSED registration of app ${body.appName}: ${error.problems.join("; ")}`, { appId: body.appName });
          return send(res, 400, { ok: false, status: 400, error: error.message });
        }
        throw error;
      }
    }
    if (method === "POST" && (m = /^\/v1\/checkpoint\/([^/]+)\/async$/.exec(path))) {
      if (!sdkAuthorized(req.headers.authorization)) return send(res, 401, { error: "unauthorized" });
      const body = JSON.parse(await readBody(req)) as { qi_id?: unknown; steps?: unknown };
      const result = await engine.checkpoint(decodeURIComponent(m[1]!), body);
      return result === "ok" ? send(res, 200, { data: {} }) : send(res, 409, { error: "stale dispatch" });
    }
    // The read API (dev server's REST run views and /v0/gql): no auth in dev mode, the signing key as bearer in signed mode.
    if ((path.startsWith("/v1/runs/") || path.startsWith("/v1/events/") || path === "/v0/gql") && !apiAuthorized(req.headers.authorization)) {
      return send(res, 401, { error: "Authorization: Bearer <INNGEST_SIGNING_KEY> required" });
    }
    if (method === "POST" && path === "/v0/gql") {
      let body: unknown;
      try {
        body = JSON.parse(await readBody(req));
      } catch {
        return send(res, 200, { errors: [{ message: "body is not JSON" }] });
      }
      return send(res, 200, await gql.execute(body));
    }
    if (method === "GET" && (m = /^\/v1\/events\/([^/]+)\/runs$/.exec(path))) {
      const runs = await runsForEvent(db, decodeURIComponent(m[1]!));
      return send(res, 200, { data: (runs ?? []).map(restRun), metadata: { fetched_at: new Date().toISOString(), cached_until: null } });
    }
    if (method === "GET" && (m = /^\/v1\/runs\/([^/]+)$/.exec(path))) {
      const run = await db.executorRun.findUnique({ where: { id: decodeURIComponent(m[1]!) } });
      if (!run) return send(res, 404, { error: "run not found" });
      return send(res, 200, { data: restRun(run), metadata: { fetched_at: new Date().toISOString(), cached_until: null } });
    }
    // Cancellation: Inngest's `DELETE /v1/runs/{id}`, and `POST /v1/runs/{id}/cancel`.
    if ((method === "DELETE" && (m = /^\/v1\/runs\/([^/]+)$/.exec(path))) || (method === "POST" && (m = /^\/v1\/runs\/([^/]+)\/cancel$/.exec(path)))) {
      const id = decodeURIComponent(m[1]!);
      const exists = await db.executorRun.findUnique({ where: { id }, select: { status: true } });
      if (!exists) return send(res, 404, { error: "run not found" });
      const cancelled = await engine.cancelRunById(id);
      const run = await db.executorRun.findUniqueOrThrow({ where: { id } });
      return send(res, cancelled ? 200 : 409, cancelled ? { data: restRun(run) } : { data: restRun(run), error: "run already ended" });
    }
    return send(res, 404, { error: `no route for ${method} ${path}` });
  }

  try {
    await engine.start();
  } catch (error) {
    engineStarted.reject(error);
    server.close();
    throw error;
  }
  engineStarted.resolve();

  // Sync the configured apps: retry every 2 s until reachable, then re-sync periodically.
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const syncLoop = (appUrl: string, delayMs: number): void => {
    const t = setTimeout(() => {
      timers.delete(t);
      sync(appUrl).then(
        () => !stopped && syncLoop(appUrl, options.resyncMs ?? 60_000),
        (error: unknown) => {
          logger.warn(`sync of ${appUrl} failed: ${errorText(error)}; retrying`);
          if (!stopped) syncLoop(appUrl, error instanceof RegistrationRefusedError ? 30_000 : 2000);
        },
      );
    }, delayMs);
    timers.add(t);
  };
  for (const appUrl of options.appUrls) syncLoop(appUrl, 0);
  const housekeeping = (): void => {
    engine.housekeep().catch((error: unknown) => logger.error(`housekeeping failed: ${errorText(error)}`));
  };
  housekeeping();
  const housekeepingTimer = setInterval(housekeeping, 3_600_000);
  housekeepingTimer.unref();
  logger.info(
    `listening on ${url} (${dev ? "DEV MODE: unsigned SDK calls and any event key accepted; never expose this port" : "signed mode"}, checkpointing ${(options.checkpointing ?? true) ? "on" : "off"})`,
  );

  return {
    url,
    sync,
    db,
    housekeep: (retentionMs?: number) => engine.housekeep(retentionMs),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      for (const t of timers) clearTimeout(t);
      clearInterval(housekeepingTimer);
      await engine.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await db.$disconnect();
      await hot.end();
      logger.info("stopped");
    },
  };
}

/** Largest accepted request body (the SDK's own limit for a request is 4 MB per step, 32 MB per run). */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`request body larger than ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, serverKind: string): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "x-inngest-server-kind": serverKind, "content-length": Buffer.byteLength(text) });
  res.end(text);
}

export { Executor } from "./engine/executor.ts";
export { RegistrationRefusedError } from "./registry.ts";
export { createExecutorLogger, type ExecutorLogger, type LogFields, type LogFormat, type LogLevel } from "./logger.ts";
