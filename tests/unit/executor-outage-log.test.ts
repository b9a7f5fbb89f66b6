import { createServer } from "node:net";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { describeError, isDatabaseUnreachable, OUTAGE_REMINDER_MS, OutageLog } from "../../server/executor/engine/outage-log.ts";

/** A refused connection as node-postgres reports it (to a port nothing listens on). */
async function refusedConnectionError(host: string): Promise<unknown> {
  const port = await new Promise<number>((resolve) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const p = (srv.address() as { port: number }).port;
      srv.close(() => resolve(p));
    });
  });
  const client = new pg.Client({ host, port, user: "x", database: "x", connectionTimeoutMillis: 5000 });
  return client.connect().then(
    () => new Error("unexpectedly connected"),
    (error: unknown) => error,
  );
}

function fakeLog() {
  let t = 1_000_000;
  const lines: string[] = [];
  const log = new OutageLog(
    (line) => lines.push(line),
    () => t,
  );
  return { log, lines, advance: (ms: number) => (t += ms) };
}

const refused = Object.assign(new AggregateError([Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })], ""), {
  code: "ECONNREFUSED",
});

describe("describeError / isDatabaseUnreachable", () => {
  it("names the code and message of a real refused node-postgres connection, never empty", async () => {
    for (const host of ["127.0.0.1", "localhost"]) {
      const error = await refusedConnectionError(host);
      const text = describeError(error);
      expect(text).toMatch(/ECONNREFUSED/);
      expect(text.length).toBeGreaterThan("ECONNREFUSED".length);
      expect(isDatabaseUnreachable(error)).toBe(true);
    }
  });

  it("reads an AggregateError with an empty message through its inner errors", () => {
    expect(refused.message).toBe("");
    expect(describeError(refused)).toBe("ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432");
  });

  it.each([
    [Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }), true],
    [Object.assign(new Error("the database system is starting up"), { code: "57P03" }), true],
    [new Error("Connection terminated unexpectedly"), true],
    [new Error("the database system is not yet accepting connections"), true],
    [new Error("Can't reach database server at 127.0.0.1:35529"), true],
    [new Error("x", { cause: { kind: "DatabaseNotReachable", message: "" } }), true],
    [Object.assign(new Error('relation "executor_queue_item" does not exist'), { code: "42P01" }), false],
    [new Error("syntax error at or near SELECT"), false],
  ])("%s → unreachable %s", (error, expected) => {
    expect(isDatabaseUnreachable(error)).toBe(expected);
  });

  it("describes an error with nothing to say by its name", () => {
    expect(describeError(new TypeError(""))).toBe("TypeError");
    expect(describeError(undefined)).toBe("unknown error");
  });
});

describe("OutageLog", () => {
  it("writes one line for the first failure, nothing while it stays down, one recovery line", () => {
    const { log, lines, advance } = fakeLog();
    expect(log.failure("lease", refused)).toBe(true);
    for (let i = 0; i < 30; i++) {
      advance(500);
      expect(log.failure(i % 3 === 0 ? "heartbeat" : i % 3 === 1 ? "lease" : "HTTP POST /v1/checkpoint", refused)).toBe(true);
    }
    expect(log.down).toBe(true);
    advance(200);
    log.ok();
    log.ok();
    expect(lines).toEqual([
      "PostgreSQL unreachable (lease): ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432; retrying, further failures are not logged until it is back",
      "PostgreSQL reachable again after 15200 ms (31 failed operations during the outage)",
    ]);
    expect(log.down).toBe(false);
  });

  it("writes at most one reminder a minute during a long outage", () => {
    const { log, lines, advance } = fakeLog();
    log.failure("lease", refused);
    // 5 minutes of failures every 100 ms.
    for (let elapsed = 0; elapsed < 5 * 60_000; elapsed += 100) {
      advance(100);
      log.failure("lease", refused);
    }
    const reminders = lines.filter((l) => l.startsWith("PostgreSQL still unreachable"));
    expect(reminders).toHaveLength(5);
    expect(reminders[0]).toBe(
      `PostgreSQL still unreachable after ${OUTAGE_REMINDER_MS / 1000} s (601 failed operations; latest, lease: ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432)`,
    );
    expect(lines).toHaveLength(6);
  });

  it("leaves other errors to the caller and opens a new outage after a recovery", () => {
    const { log, lines, advance } = fakeLog();
    expect(log.failure("lease", new Error("syntax error at or near SELECT"))).toBe(false);
    log.ok();
    expect(lines).toEqual([]);
    log.failure("lease", refused);
    advance(1000);
    log.ok();
    advance(1000);
    log.failure("heartbeat", refused);
    expect(lines.map((l) => l.split(" (")[0])).toEqual(["PostgreSQL unreachable", "PostgreSQL reachable again after 1000 ms", "PostgreSQL unreachable"]);
  });
});
