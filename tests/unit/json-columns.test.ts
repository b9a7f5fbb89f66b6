import { Inngest } from "inngest";
import superjson from "superjson";
import { describe, expect, it } from "vitest";
import {
  evalCaseChecksJson,
  alertEvidenceJson,
  modelStepOutputJson,
  requestResultJson,
  taskBudgetBasisJson,
  taskSmokeJson,
} from "../../server/db/json-columns.ts";
import { readFileSync } from "node:fs";
import { LIVE_TABLES, liveEventPasses, parseChangeEvent, parseLiveTables } from "../../server/db/change-feed.ts";
import { executorFunctionConfigJson } from "../../server/executor/json-columns.ts";

describe("JSON column codecs", () => {
  it("encode writes the value's JSON form: what PostgreSQL would store from it anyway", () => {
    const evidence = { at: new Date(Date.UTC(2026, 0, 2)), skipped: undefined, steps: ["s1"], nested: { n: 1 } };
    expect(alertEvidenceJson.encode(evidence)).toEqual({ at: "2026-01-02T00:00:00.000Z", steps: ["s1"], nested: { n: 1 } });
    expect(alertEvidenceJson.decode(alertEvidenceJson.encode(evidence))).toEqual(JSON.parse(JSON.stringify(evidence)));
  });

  it("a strict decode refuses a stored value of another shape, naming the path", () => {
    expect(() => evalCaseChecksJson.decode([{ kind: "status", equals: "completed" }, { kind: "no_such_check" }])).toThrow(/\[1\]|kind/);
    expect(() => alertEvidenceJson.decode(["not", "an", "object"])).toThrow();
  });

  it("a lenient decode gives null for an absent or unreadable value, as its readers expect", () => {
    expect(taskSmokeJson.decode(null)).toBeNull();
    expect(taskSmokeJson.decode({ tools: "all" })).toBeNull();
    expect(taskBudgetBasisJson.decode({ source: "nowhere" })).toBeNull();
  });

  it("a keyed request's superjson result comes back with its types", () => {
    const result = { taskId: "t1", at: new Date(Date.UTC(2026, 5, 1)), ids: new Set(["a"]) };
    const stored = requestResultJson.encode(superjson.serialize(result));
    expect(superjson.deserialize(requestResultJson.decode(stored))).toEqual(result);
    expect(() => requestResultJson.decode({ value: 1 })).toThrow(/superjson/);
  });

  it("a model step's output reads with its calls; an older one without them reads as none, calls of another shape are refused", () => {
    const calls = [{ id: "c1", name: "record_fact", arguments: '{"key":"k"}' }];
    expect(modelStepOutputJson.decode({ content: "hi", toolCalls: calls, finishReason: "tool_calls" }, "st_1")).toMatchObject({
      content: "hi",
      toolCalls: calls,
    });
    expect(modelStepOutputJson.decode({}, "st_1")).toEqual({ content: null, toolCalls: [] });
    expect(() => modelStepOutputJson.decode({ toolCalls: [{ id: "c1", name: "record_fact", arguments: { key: "k" } }] }, "st_1")).toThrow(
      /^Step\.output of row st_1: toolCalls\[0\]\.arguments: /,
    );
  });
});

describe("ExecutorFunction.config", () => {
  // What inngest-js registers (InngestFunction.getConfig), every option the executor implements set.
  const client = new Inngest({ id: "json-app" });
  const fn = client.createFunction(
    {
      id: "fn",
      retries: 2,
      idempotency: "event.data.k",
      concurrency: [{ limit: 2, key: "event.data.u" }],
      cancelOn: [{ event: "a/stop", match: "data.k", timeout: "1d" }],
      triggers: [{ event: "a/go", if: "event.data.n > 1" }],
    },
    () => "done",
  );
  const [config] = (fn as unknown as { getConfig(o: { baseUrl: URL; appPrefix: string }): unknown[] }).getConfig({
    baseUrl: new URL("http://127.0.0.1:3000/api/inngest"),
    appPrefix: "json-app",
  });

  it("the SDK's config reads back as it was registered", () => {
    const stored = executorFunctionConfigJson.encode(executorFunctionConfigJson.decode(config, "json-app-fn"));
    expect(stored).toEqual(JSON.parse(JSON.stringify(config)));
    expect(executorFunctionConfigJson.decode(stored, "json-app-fn")).toMatchObject({ id: "json-app-fn", concurrency: [{ limit: 2, key: "event.data.u" }] });
  });

  it("a stored config whose options the engine reads are of another type is refused, naming the function", () => {
    expect(() => executorFunctionConfigJson.decode({ ...(config as object), concurrency: "2" }, "json-app-fn")).toThrow(
      /^ExecutorFunction\.config of row json-app-fn: concurrency: /,
    );
    expect(() => executorFunctionConfigJson.decode({ ...(config as object), triggers: { event: "a/go" } }, "json-app-fn")).toThrow(/triggers: /);
    expect(() => executorFunctionConfigJson.decode({ triggers: [] }, "json-app-fn")).toThrow(/id: /);
  });
});

describe("change notifications", () => {
  it("a payload of the triggers' shape is a change event; any other is none", () => {
    expect(parseChangeEvent('{"t": "step", "taskId": "task_1"}')).toEqual({ t: "step", taskId: "task_1" });
    expect(parseChangeEvent('{"t": "profile", "taskId": null}')).toEqual({ t: "profile", taskId: null });
    expect(parseChangeEvent('{"t": 5, "taskId": "task_1"}')).toBeNull();
    expect(parseChangeEvent('["step"]')).toBeNull();
    expect(parseChangeEvent("step")).toBeNull();
  });

  it("a live stream's tables filter names tables that notify; LIVE_TABLES are the tables with a trigger", () => {
    expect(parseLiveTables(null)).toEqual({ tables: null });
    expect(parseLiveTables("escalation")).toEqual({ tables: new Set(["escalation"]) });
    expect(parseLiveTables("escalation,task")).toEqual({ tables: new Set(["escalation", "task"]) });
    expect(parseLiveTables("escalation,profile")).toEqual({
      error: expect.stringMatching(/^tables: unknown table "profile"; a comma-separated list of task, run,/),
    });
    expect(parseLiveTables("")).toEqual({ error: expect.stringMatching(/^tables: an empty name; a comma-separated list of/) });
    expect(parseLiveTables("escalation,")).toEqual({ error: expect.stringMatching(/^tables: an empty name;/) });
    expect(parseLiveTables(`${"x".repeat(10_000)}`)).toEqual({ error: expect.stringContaining(`"${"x".repeat(50)}"`) });
    const sql = readFileSync(new URL("../../server/db/sql/live-notify.sql", import.meta.url), "utf8");
    const triggered = [...sql.matchAll(/AFTER INSERT OR UPDATE ON (\w+) FOR EACH ROW EXECUTE FUNCTION longhaul_notify_change/g)].map((m) => m[1]);
    expect([...LIVE_TABLES].sort()).toEqual(triggered.sort());
  });

  it("a filtered stream passes its task's events of its tables, and every reconnect", () => {
    const inbox = { taskId: null, tables: new Set(["escalation"]) };
    expect(liveEventPasses({ t: "escalation", taskId: "task_1" }, inbox)).toBe(true);
    expect(liveEventPasses({ t: "step", taskId: "task_1" }, inbox)).toBe(false);
    const runPage = { taskId: "task_1", tables: null };
    expect(liveEventPasses({ t: "step", taskId: "task_1" }, runPage)).toBe(true);
    expect(liveEventPasses({ t: "step", taskId: "task_2" }, runPage)).toBe(false);
    expect(liveEventPasses({ t: "escalation", taskId: "task_2" }, { taskId: "task_1", tables: new Set(["escalation"]) })).toBe(false);
    for (const filter of [inbox, runPage]) expect(liveEventPasses({ t: "reconnect", taskId: null }, filter)).toBe(true);
  });
});
