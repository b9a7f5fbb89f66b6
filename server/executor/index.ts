import { createServer, type Server } from "node:http";
import { hostname } from "node:os";
import { createPrismaClient, type PrismaClient } from "../db/client.ts";
import { createInBandSync, startSyncLoops, type SyncResult } from "./app-sync.ts";
import { errorText } from "./engine/context.ts";
import { Executor } from "./engine/executor.ts";
import { createExecutorMetrics, type ExecutorMetrics } from "./engine/metrics.ts";
import { createHotSql, type HotSql } from "./engine/pg.ts";
import { createHttpApi, serveWhenStarted, type HttpApiDeps } from "./http-api.ts";
import { createExecutorLogger, type ExecutorLogger, type LogFormat, type LogLevel } from "./logger.ts";
import { executorMode, type ExecutorMode } from "./mode.ts";
import { DEFAULT_BACKOFF_MS } from "./util.ts";

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
  /** Interval between re-syncs of `appUrls` once synced, ms (default 60000); retries every `syncRetryMs` until the first success. */
  resyncMs?: number;
  /** Wait before syncing an app again after a failed sync (it is still starting, or away), ms (default 2000). */
  syncRetryMs?: number;
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
  sync: (appUrl: string) => Promise<SyncResult>;
  /** Stops leasing, lets in-flight requests finish (≤ stopGraceMs) or releases them, closes the HTTP server and the pool. */
  stop: () => Promise<void>;
  db: PrismaClient;
}

/**
 * Starts Longhaul's embedded Inngest-compatible executor: an HTTP API (event API `POST /e/{key}`,
 * `POST /fn/register`, `POST /v1/checkpoint/{runId}/async`, `GET /v1/runs/{id}`,
 * `POST /v1/runs/{id}/cancel` — both need `Authorization: Bearer <signing key>` in signed mode —,
 * `GET /health`, `GET /health/live` (liveness: answers without touching the database), `GET /dev`;
 * http-api.ts) over a PostgreSQL-backed engine ({@link Executor}). Signed mode (the default): every
 * request to the app is signed with `signingKey`, and register/checkpoint calls must carry the SDK's
 * hashed-key bearer token (docs/INNGEST-PROTOCOL.md §2.9); dev mode accepts anything (mode.ts).
 * Resolves once the engine has started and the HTTP API answers; the apps sync in the background.
 * @throws Error when signed mode lacks a key, the port cannot be bound, the database is unreachable,
 * or the engine cannot start (the HTTP server is closed again).
 */
export async function startExecutor(options: StartExecutorOptions): Promise<ExecutorHandle> {
  const mode = executorMode(options);
  const logger = options.logger ?? createExecutorLogger({ format: options.logFormat ?? "text", level: options.logLevel, write: options.log });
  const { db, hot, metrics } = await connectDatabase(options.databaseUrl);
  const { server, url, port } = await listen(options);
  const engine = createEngine(options, { db, hot, metrics, mode, logger, url, port });
  const sync = createInBandSync({ db, engine, mode, logger });
  const api: HttpApiDeps = { db, engine, metrics, mode, logger };
  const engineStarted = startGate();
  serveWhenStarted(server, engineStarted.promise, createHttpApi(api), api);
  await startEngine(engine, server, engineStarted);
  const syncLoops = startSyncLoops({ appUrls: options.appUrls, resyncMs: options.resyncMs ?? 60_000, retryMs: options.syncRetryMs, sync, logger });
  const housekeeping = startHousekeeping(engine, logger);
  logger.info(
    `listening on ${url} (${mode.dev ? "DEV MODE: unsigned SDK calls and any event key accepted; never expose this port" : "signed mode"}, checkpointing ${(options.checkpointing ?? true) ? "on" : "off"})`,
  );
  let stopped = false;
  return {
    url,
    sync,
    db,
    housekeep: (retentionMs?: number) => engine.housekeep(retentionMs),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      syncLoops.stop();
      housekeeping.stop();
      await stopEngineAndServer(engine, server, { db, hot });
      logger.info("stopped");
    },
  };
}

/**
 * Opens the executor's two pools on `databaseUrl` — Prisma (20 connections) for the general paths and
 * plain `pg` (10, engine/pg.ts) for the per-step statements — with the metrics over them, and checks
 * the database answers. @throws the driver's Error when PostgreSQL is unreachable.
 */
async function connectDatabase(databaseUrl: string): Promise<{ db: PrismaClient; hot: HotSql; metrics: ExecutorMetrics }> {
  const db = createPrismaClient(databaseUrl, { max: 20 });
  const hot = createHotSql(databaseUrl, 10);
  const metrics = createExecutorMetrics(db);
  await db.$queryRawUnsafe("SELECT 1");
  return { db, hot, metrics };
}

/**
 * An HTTP server listening on `host` (default 127.0.0.1):`port` (0 = any free port), with no request
 * handler yet; `url` is its origin (127.0.0.1 for a wildcard host), `port` the bound port.
 * @throws the server's Error (EADDRINUSE, EACCES) when the port cannot be bound.
 */
async function listen({ port, host }: { port: number; host?: string }): Promise<{ server: Server; url: string; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : port;
  return { server, url: `http://${host && host !== "0.0.0.0" ? host : "127.0.0.1"}:${bound}`, port: bound };
}

/**
 * The engine with the options' tuning or its defaults (Inngest's backoff table with jitter,
 * checkpointing on, 5 s leases, {@link DEFAULT_WORKERS} workers, 100 ms polls, requests to the app cut
 * after 2 h, an app gone after 24 h, 5 s stop grace, 7 days' retention), named
 * `executor@<host>:<port>` unless `instance` is given, not started yet.
 */
function createEngine(
  options: StartExecutorOptions,
  {
    db,
    hot,
    metrics,
    mode,
    logger,
    url,
    port,
  }: { db: PrismaClient; hot: HotSql; metrics: ExecutorMetrics; mode: ExecutorMode; logger: ExecutorLogger; url: string; port: number },
): Executor {
  const engine = new Executor({
    db,
    hot,
    metrics,
    signingKey: mode.signingKey,
    serverKind: mode.serverKind,
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
  return engine;
}

/** A promise the HTTP API waits on (see {@link serveWhenStarted}), settled by {@link startEngine}. */
interface StartGate {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** A pending {@link StartGate}; its rejection is never unhandled (startExecutor throws the error itself). */
function startGate(): StartGate {
  let settle!: Pick<StartGate, "resolve" | "reject">;
  const promise = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  promise.catch(() => {}); // a failed start is thrown by startExecutor; requests meanwhile get a 500
  return { promise, ...settle };
}

/**
 * Starts the engine (releasing the leases of this instance's previous process, then leasing) and
 * opens `gate`. @throws the engine's start error, after rejecting `gate` and closing `server`.
 */
async function startEngine(engine: Executor, server: Server, gate: StartGate): Promise<void> {
  try {
    await engine.start();
  } catch (error) {
    gate.reject(error);
    server.close();
    throw error;
  }
  gate.resolve();
}

/** Housekeeping ({@link Executor.housekeep}) now and hourly; a failure is logged. @returns `stop()`, which ends the hourly timer. */
function startHousekeeping(engine: Executor, logger: ExecutorLogger): { stop: () => void } {
  const housekeeping = (): void => {
    engine.housekeep().catch((error: unknown) => logger.error(`housekeeping failed: ${errorText(error)}`));
  };
  housekeeping();
  const timer = setInterval(housekeeping, 3_600_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/**
 * Stops the engine (no more leases; in-flight requests finish within the stop grace or are released),
 * closes the HTTP server and its connections, then both database pools.
 */
async function stopEngineAndServer(engine: Executor, server: Server, { db, hot }: { db: PrismaClient; hot: HotSql }): Promise<void> {
  await engine.stop();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  await db.$disconnect();
  await hot.end();
}

export { Executor } from "./engine/executor.ts";
export { RegistrationRefusedError } from "./registry.ts";
export { createExecutorLogger, type ExecutorLogger, type LogFields, type LogFormat, type LogLevel } from "./logger.ts";
