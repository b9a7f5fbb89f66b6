import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { SCRIPTED_MODELS } from "./agent.ts";
import { BreakpointCache } from "./breakpoint-cache.ts";
import { handleModelRequest, type ScriptedServerStats, type ScriptedState, type WireFormatRoute } from "./core.ts";
import { FaultBook, faultSchema } from "./faults.ts";
import { openaiError, readBody, sendJson } from "./http.ts";
import { MintedIdNormalizer } from "./minted-ids.ts";
import { PrefixCache } from "./prefix-cache.ts";
import { chatCompletionsRoute } from "./routes/chat-completions.ts";
import { messagesRoute } from "./routes/messages.ts";
import { responsesRoute } from "./routes/responses.ts";

export type { FaultSpec } from "./faults.ts";
export type { ScriptedServerStats } from "./core.ts";

/**
 * The scripted model server: the offline model, reached like any provider (processes: "model").
 * Loopback only. It speaks the three wire formats Longhaul's adapters speak, each closely enough that
 * the official SDKs parse every reply, streamed or not — the scripted agents (agent.ts) stay wire-format
 * neutral: each route reads its format into one shape and renders the agent's answer back (core.ts):
 * - `POST /v1/chat/completions` — OpenAI Chat Completions (routes/chat-completions.ts)
 * - `POST /v1/responses` — OpenAI's Responses API, with encrypted reasoning items (routes/responses.ts)
 * - `POST /v1/messages` — Anthropic's Messages API, with signed thinking blocks (routes/messages.ts)
 * Deterministic: ids and content depend only on the request. Usage is realistic: prompt tokens counted
 * with gpt-tokenizer, the ids a run mints counted as fixed-width placeholders (MintedIdNormalizer, so
 * identical work gets identical usage), cached tokens by each provider's rule (OpenAI: PrefixCache;
 * Anthropic: BreakpointCache, with cache writes).
 * - `GET /v1/models`, `GET /v1/models/<id>`, `GET /health`.
 * - `POST /control/faults` arms faults (faults.ts; an object or an array), `GET` lists them with the number
 *   of requests a fault holds right now (`waiting`), `DELETE` clears them and ends every such hold at once
 *   (a stalled request goes on as if its stall had run out), so a test's held call never outlives it.
 * - `GET /control/stats` counts requests; `POST /control/reset` clears faults, stats and the caches.
 */

export interface ScriptedModelServer {
  /** `http://127.0.0.1:<port>` (the base URL for Anthropic's SDK) */
  url: string;
  /** `http://127.0.0.1:<port>/v1`, the base URL for an OpenAI client. */
  baseUrl: string;
  port: number;
  stop(): Promise<void>;
}

const emptyStats = (): ScriptedServerStats => ({ requests: 0, completions: 0, streamed: 0, byModel: {}, byRoute: {}, faultsServed: {}, reasoningReturned: 0 });

const MODEL_ROUTES: Record<string, WireFormatRoute> = {
  "POST /v1/chat/completions": chatCompletionsRoute,
  "POST /v1/responses": responsesRoute,
  "POST /v1/messages": messagesRoute,
};

/**
 * Starts the scripted model server on 127.0.0.1:`port` (0 = any free port). Resolves once listening.
 * Errors: rejects when the port cannot be bound.
 */
export async function startScriptedModelServer({ port = 0, host = "127.0.0.1" }: { port?: number; host?: string } = {}): Promise<ScriptedModelServer> {
  const waits = new Map<NodeJS.Timeout, () => void>();
  const state = freshState(waits);
  const server = createServer((req, res) => serveRequest(state, req, res));
  await listen(server, port, host);
  const actualPort = (server.address() as AddressInfo).port;
  const url = `http://${host}:${actualPort}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    port: actualPort,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const timer of waits.keys()) clearTimeout(timer);
        waits.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * A server's state with nothing armed, counted or cached; its `wait` keeps each pending wait in
 * `waits` (timer → the function that ends it now) until it fires, is released or the client hangs up.
 */
function freshState(waits: Map<NodeJS.Timeout, () => void>): ScriptedState {
  return {
    faults: new FaultBook(),
    prefixCache: new PrefixCache(),
    breakpointCache: new BreakpointCache(),
    mintedIds: new MintedIdNormalizer(),
    stats: emptyStats(),
    wait: (ms: number, res: ServerResponse) =>
      new Promise<boolean>((resolve) => {
        const end = () => {
          clearTimeout(timer);
          waits.delete(timer);
          res.off("close", onClose);
          resolve(!res.destroyed);
        };
        const timer = setTimeout(end, ms);
        const onClose = () => {
          clearTimeout(timer);
          waits.delete(timer);
          resolve(false);
        };
        waits.set(timer, end);
        res.once("close", onClose);
      }),
    waiting: () => waits.size,
    releaseWaits: () => {
      const ends = [...waits.values()];
      for (const end of ends) end();
      return ends.length;
    },
  };
}

/** The request target's path without trailing slashes ("/" for none), or null when it is no URL (an absolute form like `http://[/`). */
function requestPath(target: string): string | null {
  try {
    return new URL(target, "http://localhost").pathname.replace(/\/+$/, "") || "/";
  } catch {
    return null;
  }
}

/**
 * A path segment with its percent-encoding decoded, or null when the encoding is malformed
 * (`%E0%A4%A`: a truncated UTF-8 sequence, `%zz`), which decodeURIComponent throws on (RFC 3986 §2.1).
 */
function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/**
 * Answers one request ({@link route}); a request target that is no URL is the client's error, an
 * OpenAI-shaped 400; an unexpected failure is written to stderr and answered with an OpenAI-shaped
 * 500, or the connection destroyed when the reply had begun.
 */
function serveRequest(state: ScriptedState, req: IncomingMessage, res: ServerResponse): void {
  const path = requestPath(req.url ?? "/");
  if (path === null) return openaiError(res, 400, `malformed request target: ${JSON.stringify(req.url)} is not a URL`, "invalid_request_error", "invalid_url");
  const name = `${req.method} ${path}`;
  route(state, req, res, name, path).catch((err: unknown) => {
    process.stderr.write(`[scripted-model] ${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    if (!res.headersSent) openaiError(res, 500, "internal error in the scripted model server", "server_error");
    else res.destroy();
  });
}

/**
 * The routes: loopback callers only (403 otherwise), then the three wire formats (core.ts), the
 * health and model list, and the control API (faults, stats, reset); anything else is a 404 naming
 * the route. `name` is `<METHOD> <path>`, `path` without its trailing slashes.
 */
async function route(state: ScriptedState, req: IncomingMessage, res: ServerResponse, name: string, path: string): Promise<void> {
  // Loopback callers only, and never a web page: a browser adds Origin to cross-site requests, and a
  // Host other than a loopback name means DNS rebinding — either could arm faults or spend the scripted budget.
  if (req.headers.origin !== undefined || !/^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(req.headers.host ?? "")) {
    return openaiError(
      res,
      403,
      "the scripted model server answers local programs only (no browser origins, loopback Host)",
      "invalid_request_error",
      "forbidden",
    );
  }
  const wire = MODEL_ROUTES[name];
  if (wire) return handleModelRequest(state, wire, req, res);
  if (name === "GET /health") return sendJson(res, 200, { ok: true, models: Object.keys(SCRIPTED_MODELS), routes: Object.keys(MODEL_ROUTES) });
  if (name === "GET /v1/models") {
    return sendJson(res, 200, {
      object: "list",
      data: Object.keys(SCRIPTED_MODELS).map((id) => ({ id, object: "model", created: 0, owned_by: "longhaul-scripted" })),
    });
  }
  if (req.method === "GET" && path.startsWith("/v1/models/")) {
    const raw = path.slice("/v1/models/".length);
    const id = decodeSegment(raw);
    if (id === null) return openaiError(res, 400, `malformed percent-encoding in the model id: ${JSON.stringify(raw)}`, "invalid_request_error", "invalid_url");
    if (id in SCRIPTED_MODELS) return sendJson(res, 200, { id, object: "model", created: 0, owned_by: "longhaul-scripted" });
    return openaiError(res, 404, `The model \`${id}\` does not exist.`, "invalid_request_error", "model_not_found");
  }
  if (name === "GET /control/faults") return sendJson(res, 200, { faults: state.faults.all(), waiting: state.waiting() });
  if (name === "DELETE /control/faults") {
    state.faults.clear();
    return sendJson(res, 200, { faults: [], released: state.releaseWaits() });
  }
  if (name === "POST /control/faults") return armFaults(state, req, res);
  if (name === "GET /control/stats") return sendJson(res, 200, state.stats);
  if (name === "POST /control/reset") {
    reset(state);
    return sendJson(res, 200, { reset: true });
  }
  return openaiError(res, 404, `no route ${name}`, "invalid_request_error", "not_found");
}

/**
 * `POST /control/faults`: arms a fault or an array of them (faults.ts faultSchema) → 201 with the
 * ids armed and every fault now armed; 400 naming the first invalid field, or a body that is not JSON.
 */
async function armFaults(state: ScriptedState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let input: unknown;
  try {
    input = JSON.parse(await readBody(req));
  } catch {
    return openaiError(res, 400, "body must be JSON: a fault object or an array of them", "invalid_request_error");
  }
  const parsed = z.array(faultSchema).safeParse(Array.isArray(input) ? input : [input]);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return openaiError(res, 400, `invalid fault: ${issue?.path.slice(1).join(".") || "body"}: ${issue?.message}`, "invalid_request_error");
  }
  const armed = state.faults.arm(parsed.data);
  return sendJson(res, 201, { armed, faults: state.faults.all() });
}

/** `POST /control/reset`: clears the faults, the stats, both prompt caches and the minted-id table. */
function reset(state: ScriptedState): void {
  state.faults.clear();
  state.stats = emptyStats();
  state.prefixCache.clear();
  state.breakpointCache.clear();
  state.mintedIds.clear();
}

/** Binds `server` to `host`:`port`. @throws the server's Error (EADDRINUSE, EACCES) when it cannot. */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}
