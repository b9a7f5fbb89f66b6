import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { PrismaClient } from "../db/client.ts";
import { errorText } from "./engine/context.ts";
import type { Executor } from "./engine/executor.ts";
import type { ExecutorMetrics } from "./engine/metrics.ts";
import type { ExecutorLogger } from "./logger.ts";
import type { ExecutorMode } from "./mode.ts";
import { executorFunctionConfigJson } from "./json-columns.ts";
import { createDevGraphql, restRun, runsForEvent } from "./read-api.ts";
import { registerApp, RegistrationRefusedError, type FunctionConfig } from "./registry.ts";

/** What the executor's HTTP API reads and drives. */
export interface HttpApiDeps {
  db: PrismaClient;
  engine: Executor;
  metrics: ExecutorMetrics;
  mode: ExecutorMode;
  logger: ExecutorLogger;
}

/** Answers one request to the executor's HTTP API; rejects on an unexpected failure (the caller answers 500). */
export type HttpApiHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * Serves `handle` on `server` once `started` resolves: a request that arrives earlier waits for it.
 * The executor's start releases the leases a previous process of its instance left, and a
 * checkpoint served before that would renew a dead process's lease just before it is released: the
 * dead process's request (still running on the app) would go on to its next step while this process
 * re-dispatches the run, so that step would run twice. A request whose handler throws, or that
 * arrives when the start failed, is answered `500 {error:"internal error"}` (or cut short when its
 * headers were sent) and logged, through the database outage log when PostgreSQL is what failed.
 */
export function serveWhenStarted(server: Server, started: Promise<void>, handle: HttpApiHandler, { engine, mode, logger }: HttpApiDeps): void {
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    started
      .then(() => handle(req, res))
      .catch((error: unknown) => {
        const where = `HTTP ${req.method} ${new URL(req.url ?? "/", "http://x").pathname}`;
        if (!engine.dbOutage.failure(where, error)) logger.error(`${where}: ${errorText(error)}`);
        if (!res.headersSent) sendJson(res, 500, { error: "internal error" }, mode.serverKind);
        else res.end();
      });
  });
}

/**
 * The executor's HTTP API as one handler, route by route (server/executor/README.md, "HTTP API"):
 * liveness and health, metrics, the dev-server function list, the event API, out-of-band sync,
 * async checkpoints, then the read API behind its bearer check (GraphQL, runs of an event, a run,
 * cancellation); anything else is a 404 naming the method and path.
 */
export function createHttpApi(deps: HttpApiDeps): HttpApiHandler {
  const routes = httpApiRoutes(deps);
  const { mode } = deps;
  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const method = req.method ?? "GET";
    const send = (status: number, body: unknown): void => sendJson(res, status, body, mode.serverKind);
    let m: RegExpExecArray | null;
    // Liveness: the process answers, whatever the database does (npm start's supervisor probes it).
    if (method === "GET" && path === "/health/live") return send(200, { status: "ok" });
    if (method === "GET" && path === "/health") return send(200, await routes.health());
    if (method === "GET" && path === "/metrics") return routes.metrics(res);
    if (method === "GET" && path === "/dev") return send(200, await routes.devFunctions());
    if (method === "POST" && (m = /^\/e\/([^/]+)\/?$/.exec(path))) return routes.ingestEvents(req, send, m[1]!);
    if (method === "POST" && path === "/fn/register") return routes.registerOutOfBand(req, send);
    if (method === "POST" && (m = /^\/v1\/checkpoint\/([^/]+)\/async$/.exec(path))) return routes.asyncCheckpoint(req, send, m[1]!);
    // The read API (dev server's REST run views and /v0/gql): no auth in dev mode, the signing key as bearer in signed mode.
    if ((path.startsWith("/v1/runs/") || path.startsWith("/v1/events/") || path === "/v0/gql") && !mode.apiAuthorized(req.headers.authorization)) {
      return send(401, { error: "Authorization: Bearer <INNGEST_SIGNING_KEY> required" });
    }
    if (method === "POST" && path === "/v0/gql") return routes.graphql(req, send);
    if (method === "GET" && (m = /^\/v1\/events\/([^/]+)\/runs$/.exec(path))) return routes.eventRuns(send, m[1]!);
    if (method === "GET" && (m = /^\/v1\/runs\/([^/]+)$/.exec(path))) return routes.getRun(send, m[1]!);
    // Cancellation: Inngest's `DELETE /v1/runs/{id}`, and `POST /v1/runs/{id}/cancel`.
    if ((method === "DELETE" && (m = /^\/v1\/runs\/([^/]+)$/.exec(path))) || (method === "POST" && (m = /^\/v1\/runs\/([^/]+)\/cancel$/.exec(path)))) {
      return routes.cancelRun(send, m[1]!);
    }
    return send(404, { error: `no route for ${method} ${path}` });
  };
}

/** Writes one JSON reply: `(status, body)`. */
type Send = (status: number, body: unknown) => void;

/**
 * The bodies of {@link createHttpApi}'s routes. Path parameters come as matched (still
 * percent-encoded) and are decoded where used, so a malformed escape fails only the routes that
 * read it (`URIError`, answered 500). Each rejects on a database failure.
 */
function httpApiRoutes({ db, engine, metrics, mode, logger }: HttpApiDeps) {
  const gql = createDevGraphql(db, (runId) => engine.cancelRunById(runId, "cancelled through /v0/gql cancelRun"));
  return {
    /** `GET /health`: `{status:"ok", apps, functions, queued}`, counted in the database. */
    async health() {
      const [apps, functions, queue] = await Promise.all([db.executorApp.count(), db.executorFunction.count(), db.executorQueueItem.count()]);
      return { status: "ok", apps, functions, queued: queue };
    },

    /** `GET /metrics`: the Prometheus text of {@link ExecutorMetrics}, with its own content type. */
    async metrics(res: ServerResponse): Promise<void> {
      const text = await metrics.registry.metrics();
      res.writeHead(200, { "content-type": metrics.registry.contentType, "content-length": Buffer.byteLength(text) });
      res.end(text);
    },

    /** `GET /dev`: the dev server's function list (`{functions: [{id, name, slug, triggers, steps}]}`), by function id. */
    async devFunctions() {
      const fns = await db.executorFunction.findMany({ orderBy: { id: "asc" } });
      return {
        functions: fns.map((f) => {
          const config = executorFunctionConfigJson.decode(f.config, f.id);
          return {
            id: f.id,
            name: f.name,
            slug: f.id,
            triggers: (config.triggers ?? []).map((t) => (t.cron ? { cron: t.cron } : { event: t.event })),
            steps: [{ id: "step", name: "step", uri: f.url }],
          };
        }),
      };
    },

    /**
     * `POST /e/{eventKey}`: one event or an array of them, each with a non-empty string `name`, into
     * {@link Executor.ingest} (ids derived from `x-inngest-event-id-seed`) → `200 {ids, status:200}`.
     * `401` for another event key in signed mode; `400` for a body that is not JSON or an event without a name.
     */
    async ingestEvents(req: IncomingMessage, send: Send, encodedKey: string): Promise<void> {
      if (!mode.dev && decodeURIComponent(encodedKey) !== mode.eventKey) return send(401, { ids: [], status: 401, error: "event key not found" });
      let parsed: unknown;
      try {
        parsed = JSON.parse(await readBody(req));
      } catch {
        return send(400, { ids: [], status: 400, error: "body is not JSON" });
      }
      const list = (Array.isArray(parsed) ? parsed : [parsed]) as { name?: unknown }[];
      const bad = list.findIndex((e) => !e || typeof e !== "object" || typeof e.name !== "string" || !e.name);
      if (bad >= 0) return send(400, { ids: [], status: 400, error: `event ${bad}: "name" (string) is required` });
      const seed = req.headers["x-inngest-event-id-seed"];
      const ids = await engine.ingest(list as { name: string }[], typeof seed === "string" ? seed : undefined);
      return send(200, { ids, status: 200 });
    },

    /**
     * `POST /fn/register`: out-of-band sync (`{appName, url, sdk?, functions}`, SDK bearer) →
     * `200 {ok:true, modified:true}`; `401` for a bad bearer, `400` for a missing field or a refused
     * registration (naming the function and option). Rejects on a body that is not JSON.
     */
    async registerOutOfBand(req: IncomingMessage, send: Send): Promise<void> {
      if (!mode.sdkAuthorized(req.headers.authorization)) return send(401, { ok: false, status: 401, error: "invalid signing key" });
      const body = JSON.parse(await readBody(req)) as { appName?: string; url?: string; sdk?: string; functions?: FunctionConfig[] };
      if (!body.appName || !body.url || !Array.isArray(body.functions))
        return send(400, { ok: false, status: 400, error: "appName, url and functions are required" });
      try {
        const result = await registerApp(db, { appId: body.appName, url: body.url, sdk: body.sdk ?? "", functions: body.functions });
        logger.info(`registered app ${body.appName} (out of band): ${result.functionIds.join(", ")}`, { appId: body.appName });
        engine.wake();
        return send(200, { ok: true, modified: true });
      } catch (error) {
        if (error instanceof RegistrationRefusedError) {
          logger.warn(`REFUSED registration of app ${body.appName}: ${error.problems.join("; ")}`, { appId: body.appName });
          return send(400, { ok: false, status: 400, error: error.message });
        }
        throw error;
      }
    },

    /**
     * `POST /v1/checkpoint/{runId}/async`: the SDK's async checkpoint (`{qi_id, steps}`, SDK bearer),
     * persisted by {@link Executor.checkpoint} before the `200 {data:{}}`; `409` when the queue item is
     * no longer leased, `401` for a bad bearer. Rejects on a body that is not JSON.
     */
    async asyncCheckpoint(req: IncomingMessage, send: Send, encodedRunId: string): Promise<void> {
      if (!mode.sdkAuthorized(req.headers.authorization)) return send(401, { error: "unauthorized" });
      const body = JSON.parse(await readBody(req)) as { qi_id?: unknown; steps?: unknown };
      const result = await engine.checkpoint(decodeURIComponent(encodedRunId), body);
      return result === "ok" ? send(200, { data: {} }) : send(409, { error: "stale dispatch" });
    },

    /** `POST /v0/gql`: the dev server's GraphQL subset (read-api.ts); a body that is not JSON is a GraphQL error, still 200. */
    async graphql(req: IncomingMessage, send: Send): Promise<void> {
      let body: unknown;
      try {
        body = JSON.parse(await readBody(req));
      } catch {
        return send(200, { errors: [{ message: "body is not JSON" }] });
      }
      return send(200, await gql.execute(body));
    },

    /** `GET /v1/events/{id}/runs`: Inngest's REST shape `{data: runs, metadata}` (no runs: an empty list). */
    async eventRuns(send: Send, encodedEventId: string): Promise<void> {
      const runs = await runsForEvent(db, decodeURIComponent(encodedEventId));
      return send(200, { data: (runs ?? []).map(restRun), metadata: { fetched_at: new Date().toISOString(), cached_until: null } });
    },

    /** `GET /v1/runs/{id}`: `{data: run, metadata}` in Inngest's REST shape; `404` for an unknown run. */
    async getRun(send: Send, encodedRunId: string): Promise<void> {
      const run = await db.executorRun.findUnique({ where: { id: decodeURIComponent(encodedRunId) } });
      if (!run) return send(404, { error: "run not found" });
      return send(200, { data: restRun(run), metadata: { fetched_at: new Date().toISOString(), cached_until: null } });
    },

    /** `DELETE /v1/runs/{id}` or `POST /v1/runs/{id}/cancel`: `200 {data: run}` once cancelled, `409` with the run when it had already ended, `404` for an unknown run. */
    async cancelRun(send: Send, encodedRunId: string): Promise<void> {
      const id = decodeURIComponent(encodedRunId);
      const exists = await db.executorRun.findUnique({ where: { id }, select: { status: true } });
      if (!exists) return send(404, { error: "run not found" });
      const cancelled = await engine.cancelRunById(id);
      const run = await db.executorRun.findUniqueOrThrow({ where: { id } });
      return send(cancelled ? 200 : 409, cancelled ? { data: restRun(run) } : { data: restRun(run), error: "run already ended" });
    },
  };
}

/** Largest accepted request body (the SDK's own limit for a request is 4 MB per step, 32 MB per run). */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** The request's body as UTF-8 text. @throws Error (and destroys the request) past {@link MAX_BODY_BYTES}; the socket's error. */
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

/** Ends `res` with `body` as JSON, `status`, and the `x-inngest-server-kind` header every executor reply carries. */
function sendJson(res: ServerResponse, status: number, body: unknown, serverKind: string): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "x-inngest-server-kind": serverKind, "content-length": Buffer.byteLength(text) });
  res.end(text);
}
