import http from "node:http";
import { Inngest } from "inngest";

/**
 * The Inngest SDK's own HTTP calls (checkpoints, event sends, run reads) made cheaper, without
 * changing what is sent. Measured with `npm run bench:peer` and a CPU profile of its process (issue
 * 20's note): with async checkpointing the SDK makes one API call per step, and two costs of
 * inngest 4.24.0 per call dominated the SDK's share:
 *
 * 1. Every API call recomputes the client's environment name from a full copy of `process.env`
 *    (`InngestApi.apiHeaders` → `client.env` → `inngestHeaders()` → `getProcessEnv()`, which
 *    enumerates the whole environment against a 40-key allow-list): 8.8 % of the process's CPU.
 *    {@link withStableEnvironment} computes it once.
 * 2. The global `fetch` (undici's WHATWG fetch, web streams for every body): 9.6–10.9 %.
 *    {@link sdkFetch} sends plain-HTTP calls with node:http over a keep-alive agent.
 */

/** Kept-alive sockets to the executor (the SDK's calls all go to one origin). */
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** A response that has not started after this long fails, as undici's default `headersTimeout` (300 s). */
const HEADERS_TIMEOUT_MS = 300_000;

/**
 * A `fetch` for the Inngest client's `fetch` option. Requests to an `http:` URL with a string or
 * byte body (all the SDK's API calls: `POST /v1/checkpoint/{runId}/async`, `POST /e/{key}`, run
 * reads) go through node:http with a keep-alive agent, headers and body in one write, the body read
 * into one buffer; anything else (`https:` — Inngest Cloud —, a `Request` object, a stream body)
 * and redirects go to the global `fetch` unchanged.
 *
 * Semantics kept from fetch: the response is a standard `Response`; a network failure rejects with
 * `TypeError("fetch failed")` and the cause (the SDK's fetch wrapper treats that message as an
 * ordinary failure, env.js `getFetch`); `signal` aborts. A request that fails with `ECONNRESET` on
 * a reused keep-alive socket before any response is sent once more on a new connection — the
 * retry Node's documentation gives for `request.reusedSocket` (the server closed the idle socket as
 * the request left); every SDK call here is idempotent at the executor (a checkpoint writes the
 * steps not yet stored; an event with the same id seed is the same event).
 * @throws TypeError "fetch failed" (cause: the socket error or timeout).
 */
export const sdkFetch: typeof fetch = async (input, init) => {
  const href = typeof input === "string" ? input : input instanceof URL ? input.href : null;
  const body = init?.body;
  const plainBody = body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array;
  if (href === null || !href.startsWith("http:") || !plainBody) return fetch(input, init);
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, key) => {
    headers[key] = value;
  });
  const payload = body === undefined || body === null ? undefined : typeof body === "string" ? Buffer.from(body) : body;
  if (payload !== undefined) headers["content-length"] = String(payload.byteLength);
  const send = (retry: boolean): Promise<Response> =>
    new Promise<Response>((resolve, reject) => {
      const req = http.request(href, { method: init?.method ?? "GET", headers, agent, signal: init?.signal ?? undefined }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", (error) => reject(new TypeError("fetch failed", { cause: error })));
        res.on("end", () => {
          const status = res.statusCode ?? 0;
          if (status >= 300 && status < 400 && res.headers.location) {
            resolve(fetch(input, init));
            return;
          }
          const out = new Headers();
          for (const [key, value] of Object.entries(res.headers)) {
            if (value !== undefined) out.set(key, Array.isArray(value) ? value.join(", ") : value);
          }
          const nullBody = status === 204 || status === 304 || init?.method === "HEAD";
          resolve(new Response(nullBody ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage ?? "", headers: out }));
        });
      });
      req.setTimeout(HEADERS_TIMEOUT_MS, () => req.destroy(new Error(`no response within ${HEADERS_TIMEOUT_MS} ms`)));
      req.on("error", (error: NodeJS.ErrnoException) => {
        if (error.name === "AbortError") reject(init?.signal?.reason instanceof Error ? init.signal.reason : error);
        else if (retry && req.reusedSocket && error.code === "ECONNRESET") send(false).then(resolve, reject);
        else reject(new TypeError("fetch failed", { cause: error }));
      });
      req.end(payload);
    });
  return send(true);
};

/**
 * Makes `client.env` (the environment name the SDK sends as `x-inngest-env` on every API call) and
 * `client.headers` (the SDK headers serve() adds to every answer) values computed once, at this
 * call, instead of getters that copy and filter all of `process.env` on each read (see the module
 * comment). The value is what the getter returns now:
 * the client's `env` option, else INNGEST_ENV or a platform's branch variable. It cannot differ
 * from what the getter would answer later: inngest 4.24.0 merges the snapshot of the environment
 * it took at construction over the fresh copy, so the copy only costs time. Returns `client`.
 */
export function withStableEnvironment<T extends Inngest.Any>(client: T): T {
  const value = client.env;
  // `headers` (sent by serve() on every answer to the executor) is built the same way; each read
  // gets its own copy, as from the getter, so a caller that changes it changes only its own.
  const headers = (client as unknown as { headers: Record<string, string> }).headers;
  Object.defineProperty(client, "env", { value, enumerable: false, configurable: true, writable: false });
  Object.defineProperty(client, "headers", { get: () => ({ ...headers }), enumerable: false, configurable: true });
  return client;
}

/**
 * An Inngest client with Longhaul's SDK transport: {@link sdkFetch} (unless `options.fetch` is
 * given) and {@link withStableEnvironment}. Every client Longhaul makes — the app's, the test
 * harness's, the benchmarks' — is made here, so a benchmark measures the transport users run.
 */
export function createInngestClient<const O extends ConstructorParameters<typeof Inngest>[0]>(options: O): Inngest<O> {
  return withStableEnvironment(new Inngest<O>({ fetch: sdkFetch, ...options }));
}
