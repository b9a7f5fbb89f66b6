import { describe, expect, it } from "vitest";
import { canonicalJson, fingerprintFor, idempotencyKeyFor } from "../../server/tools/ledger.ts";

const fp = (raw: string, taskId = "task-1", tool = "send_email") => fingerprintFor({ taskId, tool, args: JSON.parse(raw) });

describe("canonical fingerprint", () => {
  it("ignores key order and whitespace", () => {
    const a = fp('{"to":"a@example.com","subject":"S","body":"B","meta":{"x":1,"y":[1,2]}}');
    const b = fp('{ "meta": {"y": [1, 2], "x": 1},\n  "body": "B", "subject": "S", "to": "a@example.com" }');
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it("formats numbers canonically: 1.0 = 1, 1e2 = 100, -0 = 0", () => {
    expect(fp('{"n":1.0}')).toBe(fp('{"n":1}'));
    expect(fp('{"n":1e2}')).toBe(fp('{"n":100}'));
    expect(fp('{"n":-0}')).toBe(fp('{"n":0}'));
    expect(canonicalJson(JSON.parse('{"b":1.50,"a":[true,null,"x"]}'))).toBe('{"a":[true,null,"x"],"b":1.5}');
  });

  it("differs when the task, the tool, a value or the array order differs", () => {
    const base = fp('{"to":"a@example.com","body":"B"}');
    expect(fp('{"to":"a@example.com","body":"B"}', "task-2")).not.toBe(base);
    expect(fp('{"to":"a@example.com","body":"B"}', "task-1", "other_tool")).not.toBe(base);
    expect(fp('{"to":"a@example.com","body":"b"}')).not.toBe(base);
    expect(fp('{"n":"1"}')).not.toBe(fp('{"n":1}'));
    expect(fp('{"l":[1,2]}')).not.toBe(fp('{"l":[2,1]}'));
  });

  it("refuses values JSON cannot canonicalise (lone surrogates) with a tool error, not a crash", () => {
    expect(() => fingerprintFor({ taskId: "t", tool: "send_email", args: JSON.parse('{"s":"\\ud800"}') })).toThrow(/cannot be canonicalised/);
  });

  it("derives the idempotency key from task, run and step", () => {
    expect(idempotencyKeyFor({ taskId: "t1", runId: "r1", stepId: "tool-3-1" })).toBe("t1:r1:tool-3-1");
    expect(idempotencyKeyFor({ taskId: "t1", runId: "r2", stepId: "tool-3-1" })).not.toBe(idempotencyKeyFor({ taskId: "t1", runId: "r1", stepId: "tool-3-1" }));
  });
});
