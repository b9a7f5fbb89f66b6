import { describe, expect, it } from "vitest";
import { builtinToolNames, executeToolCall, toolDefinitions, type ToolContext } from "../../server/tools/registry.ts";

// No database: every call below must be refused before a tool touches ctx.prisma.
const ctx: ToolContext = { prisma: null as never, taskId: "t", runId: "r", stepId: "tool-1-0", workspace: "/nonexistent-workspace" };

async function error(name: string, rawArguments: string) {
  const r = await executeToolCall({ name, rawArguments, ctx });
  if (r.ok) throw new Error(`expected an error, got ${JSON.stringify(r.output)}`);
  return r.error;
}

describe("tool gateway: bad input is a tool result, never a throw", () => {
  it("names the field and the limit", async () => {
    expect(await error("read_file", '{"path":"a","limit":500000}')).toEqual({ code: "invalid_arguments", message: "limit: must be ≤ 262144, got 500000" });
    expect((await error("list_files", '{"limit":1001}')).message).toBe("limit: must be ≤ 1000, got 1001");
    expect((await error("list_files", '{"offset":-1}')).message).toBe("offset: must be ≥ 0, got -1");
    expect((await error("record_fact", JSON.stringify({ key: "k".repeat(201), value: 1 }))).message).toBe("key: must be at most 200 characters, got 201");
    expect((await error("send_email", JSON.stringify({ to: "a@example.com", subject: "s", body: "é".repeat(40_000) }))).message).toBe(
      "body: must be ≤ 65536 bytes (UTF-8), got 80000",
    );
    expect((await error("record_fact", JSON.stringify({ key: "k", value: "x".repeat(17_000) }))).message).toBe(
      "value: must be ≤ 16384 bytes serialised as JSON, got 17002",
    );
    expect((await error("write_artifact", JSON.stringify({ name: "a.csv", mime: "text/csv", content: "x".repeat(1_048_577) }))).message).toBe(
      "content: must be ≤ 1048576 bytes (UTF-8), got 1048577",
    );
  });

  it("reports wrong types, missing and unknown fields, enums and formats", async () => {
    expect((await error("read_file", '{"path":3}')).message).toBe("path: must be of type string, got integer 3");
    expect((await error("read_file", "{}")).message).toBe("path: required (string)");
    expect((await error("list_files", '{"limit":1.5}')).message).toBe("limit: must be an integer, got number 1.5");
    expect((await error("list_files", '{"recursive":true}')).message).toBe('unknown argument "recursive"');
    expect((await error("write_artifact", '{"name":"x","mime":"text/html","content":""}')).message).toBe(
      'mime: must be one of "text/plain", "text/markdown", "text/csv", got "text/html"',
    );
    expect((await error("write_artifact", '{"name":"../x","mime":"text/csv","content":""}')).message).toContain("name: must be a plain file name");
    expect((await error("send_email", '{"to":"nobody","subject":"s","body":"b"}')).message).toBe('to: must be a valid email, got "nobody"');
    expect((await error("record_fact", '{"key":"k"}')).message).toBe("value: required (any JSON value)");
  });

  it("refuses unknown tools, invalid JSON and non-object arguments", async () => {
    expect((await error("rm_rf", "{}")).code).toBe("unknown_tool");
    expect(await error("read_file", '{"path": "a"')).toMatchObject({ code: "invalid_json" });
    expect(await error("read_file", "[1]")).toEqual({ code: "invalid_arguments", message: "arguments: must be a JSON object, got array" });
    expect(await error("read_file", "null")).toEqual({ code: "invalid_arguments", message: "arguments: must be a JSON object, got null" });
    expect(await error("search_files", '{"pattern":"(unclosed"}')).toMatchObject({
      code: "invalid_arguments",
      message: expect.stringContaining("pattern: not a valid regular expression"),
    });
  });

  it("refuses strings PostgreSQL cannot store (NUL, unpaired surrogates) before any write", async () => {
    expect(await error("record_fact", '{"key":"k","value":{"list":["ok","a\\u0000b"]}}')).toEqual({
      code: "invalid_arguments",
      message: "value.list[1]: must not contain NUL characters (\\u0000)",
    });
    expect((await error("send_email", '{"to":"a@example.com","subject":"\\ud800","body":"b"}')).message).toBe(
      "subject: must not contain unpaired UTF-16 surrogates",
    );
    // A properly paired surrogate (an emoji) is fine: the call gets as far as the schema.
    expect((await error("send_email", '{"to":"a@example.com","subject":"\\ud83d\\ude00"}')).message).toBe("body: required (string)");
  });

  it("accepts empty arguments as {} for tools without required fields, and validates finish/declare_dead_end", async () => {
    expect(await executeToolCall({ name: "finish", rawArguments: '{"result":"done"}', ctx })).toEqual({ ok: true, output: { finished: true } });
    expect(await executeToolCall({ name: "declare_dead_end", rawArguments: '{"reason":"no node_modules"}', ctx })).toEqual({
      ok: true,
      output: { deadEnd: true },
    });
    expect((await error("finish", "")).message).toBe("result: required (string)");
    expect((await error("declare_dead_end", '{"reason":""}')).message).toBe("reason: must be at least 1 characters, got 0");
  });
});

describe("toolDefinitions", () => {
  it("gives the Chat Completions tools array with JSON Schema parameters", () => {
    const defs = toolDefinitions(builtinToolNames);
    expect(defs.map((d) => d.function.name)).toEqual([
      "list_files",
      "read_file",
      "search_files",
      "record_fact",
      "read_reference",
      "write_artifact",
      "send_email",
      "http_post",
      "complete_phase",
      "request_human",
      "finish",
      "declare_dead_end",
    ]);
    const read = defs.find((d) => d.function.name === "read_file")!;
    expect(read.type).toBe("function");
    expect(read.function.parameters).toMatchObject({
      type: "object",
      required: ["path"],
      additionalProperties: false,
      properties: { limit: { type: "integer", maximum: 262144, default: 65536 }, offset: { type: "integer", minimum: 0 } },
    });
    expect(read.function.parameters).not.toHaveProperty("$schema");
    expect(toolDefinitions(["finish"])).toHaveLength(1);
  });

  it("throws on an unknown tool name (a profile configuration error)", () => {
    expect(() => toolDefinitions(["finish", "telnet"])).toThrow(/unknown tool telnet/);
  });
});
