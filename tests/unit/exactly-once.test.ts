import { describe, expect, it } from "vitest";
import { judgeExactlyOnce, taskOfKey, type ChaosEvidence, type ObservedTask, type ProxyEntry } from "../../scripts/lib/exactly-once.ts";

// The chaos scripts pass or fail on this oracle: each kind of violation must be found on hand-built
// evidence, named by task and effect with the count seen and expected, and a clean run must yield none.

const CSV = "package,license\nleft-pad,MIT\n";
const license = (taskId: string, over: Partial<Extract<ObservedTask, { kind: "license-audit" }>> = {}): ObservedTask => ({
  kind: "license-audit",
  taskId,
  status: "completed",
  csv: { actual: CSV, expected: CSV },
  ...over,
});
const mcpTask = (taskId: string, expectedEntities: string[], status = "completed"): ObservedTask => ({ kind: "mcp-audit", taskId, status, expectedEntities });
const key = (taskId: string, step: string) => `${taskId}:run1:${step}`;
/** A create_entities call the memory server received and answered. */
const answeredCall = (pid: number, id: number, taskId: string, entities: string[]): ProxyEntry[] => [
  { kind: "call", pid, id, tool: "create_entities", key: key(taskId, `mcp-${id}`), entities },
  { kind: "result", pid, id, key: key(taskId, `mcp-${id}`), isError: false },
];

/** Two license tasks and an mcp task, every effect exactly once. */
function clean(): ChaosEvidence {
  return {
    tasks: [license("t1"), license("t2"), mcpTask("m1", ["finding a.md:1", "finding b.md:3"])],
    outbox: [{ taskId: "t1" }, { taskId: "t2" }],
    ledger: [
      { taskId: "t1", tool: "send_email", fingerprint: "f-mail-1", idempotencyKey: key("t1", "s5"), deduplicated: false },
      { taskId: "t1", tool: "http_post", fingerprint: "f-post-1", idempotencyKey: key("t1", "s6"), deduplicated: false },
      { taskId: "t2", tool: "send_email", fingerprint: "f-mail-2", idempotencyKey: key("t2", "s5"), deduplicated: false },
      { taskId: "t2", tool: "http_post", fingerprint: "f-post-2", idempotencyKey: key("t2", "s6"), deduplicated: false },
    ],
    receiver: [{ key: key("t1", "s6") }, { key: key("t2", "s6") }],
    mcp: {
      proxyLog: answeredCall(100, 1, "m1", ["finding a.md:1", "finding b.md:3"]),
      graph: [{ type: "entity", name: "finding a.md:1" }, { type: "entity", name: "finding b.md:3" }, { type: "relation" }],
    },
  };
}

describe("judgeExactlyOnce", () => {
  it("finds nothing wrong with a clean run and counts it", () => {
    const verdict = judgeExactlyOnce(clean());
    expect(verdict.violations).toEqual([]);
    expect(verdict.counts).toMatchObject({ completed: 3, csvCorrect: 2, duplicateSideEffects: 0, missingSideEffects: 0, missingEmails: 0 });
    expect(verdict.tasks.map((t) => [t.taskId, t.emails, t.posts, t.entitiesExpected, t.entitiesMissing])).toEqual([
      ["t1", 1, 1, 0, 0],
      ["t2", 1, 1, 0, 0],
      ["m1", 0, 0, 2, 0],
    ]);
  });

  it("names a task that did not complete", () => {
    const e = clean();
    e.tasks = [license("t1"), license("t2", { status: "failed" }), e.tasks[2]!];
    const { violations, counts } = judgeExactlyOnce(e);
    expect(violations.map((v) => v.line)).toEqual(['not-completed: task t2: task status: seen "failed", expected "completed"']);
    expect(counts.completed).toBe(2);
  });

  it("finds a CSV that differs from the expected one, and a missing one", () => {
    const e = clean();
    e.tasks = [license("t1", { csv: { actual: "package,license\n", expected: CSV } }), license("t2", { csv: { actual: null, expected: CSV } }), e.tasks[2]!];
    const { violations, counts } = judgeExactlyOnce(e);
    expect(violations.map((v) => [v.kind, v.taskId, v.effect, v.seen])).toEqual([
      ["wrong-output", "t1", "licenses.csv", "different content"],
      ["wrong-output", "t2", "licenses.csv", "none"],
    ]);
    expect(counts.csvCorrect).toBe(0);
  });

  it("finds an email sent twice and an email never sent", () => {
    const e = clean();
    e.outbox = [{ taskId: "t1" }, { taskId: "t1" }];
    const { violations, counts } = judgeExactlyOnce(e);
    expect(violations.map((v) => v.line)).toEqual([
      "duplicate: task t1: send_email (outbox rows): seen 2, expected 1",
      "missing: task t2: send_email (outbox rows): seen 0, expected 1",
    ]);
    expect(counts).toMatchObject({ duplicateSideEffects: 1, missingSideEffects: 1, missingEmails: 1 });
    expect(counts.duplicates.outbox).toBe(1);
  });

  it("does not ask an unfinished task for its effects (only that it complete)", () => {
    const e = clean();
    e.tasks = [license("t1"), license("t2", { status: "cancelled" }), e.tasks[2]!];
    e.outbox = [{ taskId: "t1" }];
    e.receiver = [{ key: key("t1", "s6") }];
    expect(judgeExactlyOnce(e).violations.map((v) => v.kind)).toEqual(["not-completed"]);
  });

  it("counts POSTs at the receiver: the same key twice, a second key, none", () => {
    const e = clean();
    e.tasks = [license("t1"), license("t2"), license("t3")];
    e.outbox = [{ taskId: "t1" }, { taskId: "t2" }, { taskId: "t3" }];
    e.ledger = [];
    e.mcp = undefined;
    e.receiver = [{ key: key("t1", "s6") }, { key: key("t1", "s6") }, { key: key("t2", "s6") }, { key: key("t2", "s9") }, { key: key("t2", "s9") }];
    const { violations, counts } = judgeExactlyOnce(e);
    expect(violations.map((v) => v.line)).toEqual([
      'duplicate: task t1: http_post (POSTs at the receiver): seen "2 under 1 key(s)", expected 1',
      'duplicate: task t2: http_post (POSTs at the receiver): seen "3 under 2 key(s)", expected 1',
      "missing: task t3: http_post (POSTs at the receiver): seen 0, expected 1",
    ]);
    expect(counts.duplicates).toMatchObject({ receiver: 3, receiverSameKey: 2 });
    expect(counts).toMatchObject({ duplicateSideEffects: 3, missingSideEffects: 1, missingEmails: 0 });
  });

  it("checks no POST when the run had no receiver (harness mode)", () => {
    const e = clean();
    e.receiver = undefined;
    expect(judgeExactlyOnce(e).violations).toEqual([]);
  });

  it("finds the same effect twice in the ledger under two keys, but not a row answered deduplicated", () => {
    const e = clean();
    const twice = { taskId: "t1", tool: "http_post", fingerprint: "f-post-1", idempotencyKey: key("t1", "s7"), deduplicated: false };
    e.ledger = [...e.ledger, twice, { ...twice, idempotencyKey: key("t1", "s8"), deduplicated: true }];
    const { violations, counts } = judgeExactlyOnce(e);
    expect(violations.map((v) => v.line)).toEqual([
      `duplicate: task t1: http_post (ledger rows, fingerprint f-post-1, keys t1:run1:s6 t1:run1:s7): seen 2, expected 1`,
    ]);
    expect(counts.duplicates.ledger).toBe(1);
    expect(counts.duplicateSideEffects).toBe(1);
  });

  it("finds an MCP entity the server answered twice, but not a call it never answered", () => {
    const e = clean();
    e.mcp!.proxyLog = [
      ...e.mcp!.proxyLog,
      ...answeredCall(101, 1, "m1", ["finding b.md:3"]), // a second server process answered it again
      { kind: "call", pid: 101, id: 2, tool: "create_entities", key: key("m1", "x"), entities: ["finding a.md:1"] }, // killed before answering
      { kind: "call", pid: 101, id: 3, tool: "create_entities", key: key("m1", "y"), entities: ["finding a.md:1"] },
      { kind: "result", pid: 101, id: 3, key: key("m1", "y"), isError: true }, // answered with an error: applied nothing
    ];
    const { violations, counts } = judgeExactlyOnce(e);
    expect(violations.map((v) => v.line)).toEqual(['duplicate: task m1: memory create_entities "finding b.md:3" (answered by the server): seen 2, expected 1']);
    expect(counts.duplicates.mcpCalls).toBe(1);
    expect(judgeExactlyOnce(e).tasks.find((t) => t.taskId === "m1")?.entitiesSentTwice).toBe(1);
  });

  it("finds entities missing from the graph of a completed mcp task", () => {
    const e = clean();
    e.mcp!.graph = [{ type: "entity", name: "finding a.md:1" }];
    const { violations, counts } = judgeExactlyOnce(e);
    expect(violations.map((v) => v.line)).toEqual(["missing: task m1: memory entities in the graph: seen 1, expected 2"]);
    expect(counts).toMatchObject({ missingSideEffects: 1, missingEntities: 1 });
  });

  it("finds an entity held twice in the graph, naming the tasks that store it", () => {
    const e = clean();
    e.tasks = [...e.tasks, mcpTask("m2", ["finding a.md:1"])];
    e.mcp!.proxyLog = [...e.mcp!.proxyLog, ...answeredCall(100, 2, "m2", ["finding a.md:1"])];
    e.mcp!.graph = [...e.mcp!.graph, { type: "entity", name: "finding a.md:1" }];
    const { violations, counts } = judgeExactlyOnce(e);
    expect(violations.map((v) => v.line)).toEqual(['duplicate: task m1,m2: memory graph entity "finding a.md:1": seen 2, expected 1']);
    expect(counts.duplicates.mcpGraph).toBe(1);
  });

  it("sums every kind of duplicate into duplicateSideEffects", () => {
    const e = clean();
    e.outbox = [...e.outbox, { taskId: "t2" }, { taskId: "t2" }];
    e.receiver = [...e.receiver!, { key: key("t1", "s6") }];
    e.mcp!.graph = [...e.mcp!.graph, { type: "entity", name: "finding b.md:3" }];
    const { counts } = judgeExactlyOnce(e);
    expect(counts.duplicates).toMatchObject({ outbox: 2, receiver: 1, mcpGraph: 1 });
    expect(counts.duplicateSideEffects).toBe(4);
  });
});

describe("taskOfKey", () => {
  it("reads the task from Longhaul's <task>:<run>:<step> key", () => {
    expect(taskOfKey("cm1abc:cm2def:step-3")).toBe("cm1abc");
    expect(taskOfKey(null)).toBe("");
  });
});
