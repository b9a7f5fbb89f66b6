import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { deliverWebhook, escalationWebhookPayload, parseRetryAfter } from "../../server/notify/webhook.ts";
import { freePort } from "../support/ports.ts";

/** A request as the receiver saw it, with the receiver's clock. */
interface Received {
  at: number;
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** How the receiver answers the n-th request of a test: a status (+ headers), or "hang" (never answers). */
type Answer = { status: number; headers?: Record<string, string>; body?: string } | "hang";

let server: Server;
let baseUrl: string;
let received: Received[] = [];
let answers: Answer[] = [];
const hanging: ServerResponse[] = [];

beforeAll(async () => {
  const port = await freePort();
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ at: Date.now(), method: req.method ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      const answer = answers[received.length - 1] ?? { status: 200 };
      if (answer === "hang") {
        hanging.push(res);
        return;
      }
      res.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers });
      res.end(answer.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${port}/hook`;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received = [];
  answers = [];
});

const payload = { text: "hello", kind: "test" };
const fast = { backoffMs: [10, 20, 30], timeoutMs: 2_000 };

describe("deliverWebhook against a local receiver", () => {
  it("500, 503, then 200 → delivered after 3 attempts, the same Idempotency-Key on each", async () => {
    answers = [{ status: 500 }, { status: 503 }, { status: 200 }];
    const result = await deliverWebhook({ url: baseUrl, payload, idempotencyKey: "task-1:run-1:esc-1", ...fast });
    expect(result).toEqual({ delivered: true, attempts: 3, status: 200 });
    expect(received).toHaveLength(3);
    expect(received.map((r) => r.method)).toEqual(["POST", "POST", "POST"]);
    expect(received.map((r) => r.headers["idempotency-key"])).toEqual(["task-1:run-1:esc-1", "task-1:run-1:esc-1", "task-1:run-1:esc-1"]);
    expect(received.map((r) => r.headers["x-longhaul-delivery-attempt"])).toEqual(["1", "2", "3"]);
    expect(received.every((r) => r.headers["content-type"] === "application/json")).toBe(true);
    expect(received.map((r) => JSON.parse(r.body) as unknown)).toEqual([payload, payload, payload]);
  });

  it("404 → not retried, reported with the status", async () => {
    answers = [{ status: 404, body: "no such hook" }];
    const result = await deliverWebhook({ url: baseUrl, payload, idempotencyKey: "k-404", ...fast });
    expect(result).toEqual({ delivered: false, attempts: 1, status: 404, error: "HTTP 404: no such hook" });
    expect(received).toHaveLength(1);
  });

  it("429 with retry-after: 1 → waits about a second (not the 10 ms backoff), then delivers", async () => {
    answers = [{ status: 429, headers: { "retry-after": "1" } }, { status: 204 }];
    const result = await deliverWebhook({ url: baseUrl, payload, idempotencyKey: "k-429", ...fast });
    expect(result).toEqual({ delivered: true, attempts: 2, status: 204 });
    expect(received).toHaveLength(2);
    expect(received[1]!.at - received[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it("429 without retry-after uses the backoff; gives up after `attempts` and reports the last status", async () => {
    answers = [{ status: 429 }, { status: 502 }, { status: 503 }];
    const result = await deliverWebhook({ url: baseUrl, payload, idempotencyKey: "k-exhaust", attempts: 3, ...fast });
    expect(result).toMatchObject({ delivered: false, attempts: 3, status: 503 });
    expect(result.error).toMatch(/^HTTP 503/);
    expect(received).toHaveLength(3);
  });

  it("an attempt that times out is retried with the same key", async () => {
    answers = ["hang", { status: 200 }];
    const result = await deliverWebhook({ url: baseUrl, payload, idempotencyKey: "k-timeout", backoffMs: [10], timeoutMs: 300 });
    expect(result).toEqual({ delivered: true, attempts: 2, status: 200 });
    expect(received.map((r) => r.headers["idempotency-key"])).toEqual(["k-timeout", "k-timeout"]);
  });

  it("connection refused on every attempt → delivered false, no throw", async () => {
    const closed = `http://127.0.0.1:${await freePort()}/hook`;
    const result = await deliverWebhook({ url: closed, payload, idempotencyKey: "k-refused", attempts: 2, ...fast });
    expect(result).toMatchObject({ delivered: false, attempts: 2, status: null });
    expect(result.error).toMatch(/^network error/);
  });

  it("an unusable URL → no request, delivered false", async () => {
    await expect(deliverWebhook({ url: "not a url", payload, idempotencyKey: "k" })).resolves.toMatchObject({ delivered: false, attempts: 0 });
    await expect(deliverWebhook({ url: "file:///etc/passwd", payload, idempotencyKey: "k" })).resolves.toMatchObject({ delivered: false, attempts: 0 });
  });

  it("delivers an escalation payload: Slack text plus structured fields", async () => {
    const body = escalationWebhookPayload({
      id: "esc-7",
      taskId: "task-3",
      taskTitle: "License audit <first 50>",
      runId: "run-2",
      reason: "loop",
      message: "read_file called 3 times with identical arguments; escalating.",
      taskUrl: "http://localhost:3000/tasks/task-3",
      dueAt: new Date("2026-11-30T08:00:00Z"),
    });
    const result = await deliverWebhook({ url: baseUrl, payload: body, idempotencyKey: "task-3:run-2:esc-7", ...fast });
    expect(result.delivered).toBe(true);
    const sent = JSON.parse(received[0]!.body) as { text: string; event: string; escalation: Record<string, unknown> };
    expect(sent.text).toContain("<http://localhost:3000/tasks/task-3|License audit &lt;first 50&gt;>");
    expect(sent.text).toContain("(loop)");
    expect(sent.text).toContain("2026-11-30T08:00:00.000Z");
    expect(sent.event).toBe("longhaul/escalation.opened");
    expect(sent.escalation).toEqual({
      id: "esc-7",
      taskId: "task-3",
      runId: "run-2",
      reason: "loop",
      message: "read_file called 3 times with identical arguments; escalating.",
      taskUrl: "http://localhost:3000/tasks/task-3",
      dueAt: "2026-11-30T08:00:00.000Z",
      assigneeRole: null,
      reEscalatedTo: null,
    });
  });

  it("an overdue round names the role it was re-escalated to, or reminds the same role", () => {
    const notice = { id: "esc-8", taskId: "task-4", taskUrl: "http://localhost:3000/escalations?id=esc-8", reason: "stall", dueAt: "2026-11-30T09:00:00Z" };
    const moved = escalationWebhookPayload({ ...notice, round: 1, assigneeRole: "team-lead", reEscalatedTo: "team-lead" });
    expect(moved.text).toMatch(
      /^:alarm_clock: Longhaul escalation overdue — re-escalated to team-lead: <http:\/\/localhost:3000\/escalations\?id=esc-8\|task task-4> stopped \(stall\)/,
    );
    expect(moved).toMatchObject({
      event: "longhaul/escalation.overdue",
      round: 1,
      escalation: { assigneeRole: "team-lead", reEscalatedTo: "team-lead", reason: "stall" },
    });
    const reminder = escalationWebhookPayload({ ...notice, round: 2, assigneeRole: "operator", reEscalatedTo: null });
    expect(reminder.text).toContain("overdue — reminder 2 to operator");
    expect(reminder.text).not.toContain("re-escalated");
    const opened = escalationWebhookPayload({ ...notice, assigneeRole: "operator" });
    expect(opened).toMatchObject({ event: "longhaul/escalation.opened", round: 0 });
    expect(opened.text).toContain("For: operator.");
    // A person named in the profile's chain reads as their name, never as `user:<name>`.
    const toPerson = escalationWebhookPayload({ ...notice, round: 2, assigneeRole: "user:Ada Lovelace", reEscalatedTo: null });
    expect(toPerson.text).toContain("overdue — reminder 2 to Ada Lovelace");
    expect(escalationWebhookPayload({ ...notice, assigneeRole: "user:Ada Lovelace" }).text).toContain("For: Ada Lovelace.");
    expect(escalationWebhookPayload({ ...notice, round: 1, assigneeRole: "user:Ada Lovelace", reEscalatedTo: "user:Ada Lovelace" }).text).toContain(
      "re-escalated to Ada Lovelace:",
    );
  });
});

describe("parseRetryAfter", () => {
  it.each([
    [null, null],
    ["", null],
    ["0", 0],
    ["2", 2000],
    ["1.5", 1500],
    ["soon", null],
    ["Sun, 29 Nov 2026 19:00:10 GMT", 10_000],
    ["Sun, 29 Nov 2026 18:59:00 GMT", 0],
  ] as const)("%j → %j ms", (value, expected) => {
    expect(parseRetryAfter(value, Date.parse("2026-11-29T19:00:00Z"))).toBe(expected);
  });
});
