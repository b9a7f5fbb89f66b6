import { createServer } from "node:http";
import { afterAll, beforeAll, expect } from "vitest";
import { startAgentStack, type AgentStack } from "./agent-stack.ts";
import { freePort } from "./ports.ts";
import { testDatabaseUrl } from "./database.ts";

// Vitest fixtures of the integration tests (tests/integration/*.test.ts): the agent stack's
// lifecycle hooks and a local HTTP receiver standing in for webhooks and external systems.
// Kept apart from agent-stack.ts, which scripts/ also import outside vitest.

/**
 * Registers, in the calling scope (file or describe block), a `beforeAll` that starts the agent
 * stack against the test database (`startAgentStack({ databaseUrl: testDatabaseUrl() })`) and
 * hands it to `onStarted`, and an `afterAll` that stops it and expects no child process left alive.
 * Hooks registered before this call run before the stack starts (e.g. to set env the app child inherits).
 */
export function useAgentStack(onStarted: (stack: AgentStack) => void): void {
  let started: AgentStack | undefined;
  // The stack's children end their start-up waits as soon as they are up (or exited); this bounds a hang only.
  beforeAll(async () => {
    started = await startAgentStack({ databaseUrl: testDatabaseUrl() });
    onStarted(started);
  }, 420_000);
  afterAll(async () => {
    if (!started) return; // beforeAll failed, and said why
    const left = await started.stop();
    expect(
      left.map((c) => `${c.name} pid ${c.child.pid}`),
      "child processes still alive after stop",
    ).toEqual([]);
  });
}

/** One request a {@link Receiver} got. */
export interface ReceivedRequest<Body> {
  /** Request path with query (`req.url`), e.g. `/hook`. */
  path: string;
  /** The `Idempotency-Key` header, if any. */
  key: string | undefined;
  /** The request body parsed as JSON. */
  body: Body;
}

/** A local HTTP receiver (see {@link startReceiver}). */
export interface Receiver<Body> {
  /** `http://127.0.0.1:<port>`, without a path: any path is accepted. */
  url: string;
  /** Every request so far, oldest first. Tests may empty it (`received.length = 0`). */
  received: ReceivedRequest<Body>[];
  /** Closes open connections and the server. */
  close: () => Promise<void>;
}

/**
 * Starts an HTTP server on a free port of 127.0.0.1 that records each request's path,
 * `Idempotency-Key` header and JSON body (a non-JSON body fails the request's handler), and answers
 * 200 with `reply.body` (default `ok`) and, when given, `reply.contentType`.
 */
export async function startReceiver<Body = Record<string, unknown>>(reply: { body?: string; contentType?: string } = {}): Promise<Receiver<Body>> {
  const received: ReceivedRequest<Body>[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      received.push({ path: req.url ?? "", key: req.headers["idempotency-key"] as string | undefined, body: JSON.parse(body) as Body });
      if (reply.contentType) res.setHeader("content-type", reply.contentType);
      res.end(reply.body ?? "ok");
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
