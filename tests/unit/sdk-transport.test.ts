import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Inngest } from "inngest";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createInngestClient, sdkFetch, withStableEnvironment } from "../../server/inngest/sdk-transport.ts";

// The SDK's transport (server/inngest/sdk-transport.ts) against a real node:http server on a free
// port: what fetch callers rely on (status, headers, body, errors, abort) and the keep-alive reuse.

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  socket: Socket;
}

let server: Server | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server?.closeAllConnections();
  server = undefined;
});

async function serve(handler: (seen: Seen, res: ServerResponse, index: number) => void): Promise<{ url: string; seen: Seen[]; sockets: Set<Socket> }> {
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const entry = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString(), socket: req.socket };
      seen.push(entry);
      handler(entry, res, seen.length - 1);
    });
  });
  server.on("connection", (s) => sockets.add(s));
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, sockets };
}

describe("sdkFetch", () => {
  it("sends method, headers and body in one request and returns a standard Response", async () => {
    const { url, seen } = await serve((_s, res) => {
      res.writeHead(201, { "content-type": "application/json", "x-inngest-server-kind": "cloud" });
      res.end(JSON.stringify({ ok: true, n: 7 }));
    });
    const res = await sdkFetch(`${url}/v1/checkpoint/run%201/async`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Bearer signkey-test-abc" },
      body: JSON.stringify({ steps: [{ id: "s0", op: "StepRun", data: "é" }] }),
    });
    expect(res).toBeInstanceOf(Response);
    expect(res.status).toBe(201);
    expect(res.ok).toBe(true);
    expect(res.headers.get("x-inngest-server-kind")).toBe("cloud");
    expect(await res.json()).toEqual({ ok: true, n: 7 });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.method).toBe("POST");
    expect(seen[0]!.url).toBe("/v1/checkpoint/run%201/async");
    expect(seen[0]!.headers.authorization).toBe("Bearer signkey-test-abc");
    expect(seen[0]!.headers["content-type"]).toBe("application/json");
    // Content-Length in bytes, not characters ("é" is two bytes).
    expect(Number(seen[0]!.headers["content-length"])).toBe(Buffer.byteLength(seen[0]!.body));
    expect(JSON.parse(seen[0]!.body)).toEqual({ steps: [{ id: "s0", op: "StepRun", data: "é" }] });
  });

  it("keeps the connection alive across calls and answers 204/409 as fetch does", async () => {
    const { url, sockets } = await serve((_s, res, i) => {
      if (i === 0) {
        res.writeHead(204);
        res.end();
      } else {
        res.writeHead(409, { "content-type": "text/plain" });
        res.end("stale");
      }
    });
    const first = await sdkFetch(`${url}/a`, { method: "POST", body: "{}" });
    expect(first.status).toBe(204);
    expect(first.body).toBeNull();
    const second = await sdkFetch(`${url}/b`, { method: "POST", body: "{}" });
    expect(second.status).toBe(409);
    expect(second.ok).toBe(false);
    expect(await second.text()).toBe("stale");
    expect(sockets.size).toBe(1);
  });

  it("sends a request again on a new connection when a reused socket is reset before any answer", async () => {
    const { url, seen, sockets } = await serve((s, res, i) => {
      if (i === 1) {
        // The server drops the kept-alive socket as the second request arrives on it.
        s.socket.destroy();
        return;
      }
      res.end(`answer ${i}`);
    });
    expect(await (await sdkFetch(`${url}/x`, { method: "POST", body: "1" })).text()).toBe("answer 0");
    expect(await (await sdkFetch(`${url}/x`, { method: "POST", body: "2" })).text()).toBe("answer 2");
    expect(seen.map((s) => s.body)).toEqual(["1", "2", "2"]);
    expect(sockets.size).toBe(2);
  });

  it("rejects with TypeError 'fetch failed' and the cause when the server answers nothing", async () => {
    const { url } = await serve((s) => s.socket.destroy());
    const error = await sdkFetch(`${url}/x`, { method: "POST", body: "{}" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe("fetch failed");
    expect((error as Error & { cause: NodeJS.ErrnoException }).cause.code).toBe("ECONNRESET");
  });

  it("rejects with TypeError 'fetch failed' when nothing listens", async () => {
    const { url } = await serve((_s, res) => res.end());
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server!.closeAllConnections();
    server = undefined;
    const error = await sdkFetch(`${url}/x`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error & { cause: NodeJS.ErrnoException }).cause.code).toBe("ECONNREFUSED");
  });

  it("aborts with the signal's reason", async () => {
    const { url } = await serve(() => {
      // Never answers.
    });
    const controller = new AbortController();
    const pending = sdkFetch(`${url}/slow`, { method: "POST", body: "{}", signal: controller.signal });
    controller.abort(new Error("caller gave up"));
    await expect(pending).rejects.toThrow("caller gave up");
  });

  it("leaves https, Request objects and stream bodies to the global fetch", async () => {
    const global = vi.spyOn(globalThis, "fetch").mockResolvedValue(new Response("from global fetch"));
    await sdkFetch("https://api.inngest.com/v1/checkpoint/r/async", { method: "POST", body: "{}" });
    await sdkFetch(new Request("http://127.0.0.1:9/x"));
    await sdkFetch("http://127.0.0.1:9/x", { method: "POST", body: new ReadableStream(), duplex: "half" } as RequestInit);
    expect(global).toHaveBeenCalledTimes(3);
    expect(global.mock.calls[0]![0]).toBe("https://api.inngest.com/v1/checkpoint/r/async");
  });
});

describe("withStableEnvironment", () => {
  it("answers what the SDK's getter answers, without copying process.env on each read", () => {
    vi.stubEnv("INNGEST_ENV", "branch-a");
    const plain = new Inngest({ id: "plain" });
    const stable = createInngestClient({ id: "stable" });
    vi.stubEnv("INNGEST_ENV", "branch-b");
    // The SDK merges its construction-time snapshot over the fresh copy, so its value is fixed too.
    expect(plain.env).toBe("branch-a");
    expect(stable.env).toBe("branch-a");
    const entries = vi.spyOn(Object, "entries");
    const readsOfEnv = () => entries.mock.calls.filter(([o]) => o === process.env).length;
    for (let i = 0; i < 5; i++) void stable.env;
    expect(readsOfEnv()).toBe(0);
    const headersOf = (c: unknown) => (c as { headers: Record<string, string> }).headers;
    expect(headersOf(stable)).toEqual(headersOf(plain));
    expect(headersOf(stable)["x-inngest-env"]).toBe("branch-a");
    expect(readsOfEnv()).toBe(1); // the plain client's getter, once
    headersOf(stable).extra = "mine";
    expect(headersOf(stable).extra).toBeUndefined();
    for (let i = 0; i < 5; i++) void plain.env;
    expect(readsOfEnv()).toBeGreaterThanOrEqual(5);
    vi.unstubAllEnvs();
  });

  it("keeps the client's own env option", () => {
    const client = withStableEnvironment(new Inngest({ id: "opt", env: "preview-42" }));
    expect(client.env).toBe("preview-42");
  });
});
