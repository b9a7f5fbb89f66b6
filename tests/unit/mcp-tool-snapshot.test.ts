import { describe, expect, it } from "vitest";
import { buildToolSnapshot, classifyTool, idempotencyArgumentOf, toolsHash, type DiscoveredTool } from "../../server/domain/mcp-tool-snapshot.ts";

// The tool class table (docs/ARCHITECTURE.md "Words": tool class): annotations, the admin's overrides, and the
// conservative default for a tool without annotations; and the snapshot a task's runs are offered.

describe("classifyTool", () => {
  it("a tool without annotations is side-effecting, not idempotent, destructive, open-world — the MCP spec's defaults", () => {
    expect(classifyTool(undefined, undefined)).toEqual({
      class: { readOnly: false, idempotent: false, destructive: true, openWorld: true },
      classSource: { readOnly: "default", idempotent: "default", destructive: "default", openWorld: "default" },
    });
  });

  it("takes the hints, and a read-only tool is never destructive and counts as idempotent", () => {
    expect(classifyTool({ readOnlyHint: true, destructiveHint: true, openWorldHint: false }, undefined).class).toEqual({
      readOnly: true,
      idempotent: true,
      destructive: false,
      openWorld: false,
    });
    expect(classifyTool({ readOnlyHint: false, destructiveHint: true, idempotentHint: true }, undefined).class).toEqual({
      readOnly: false,
      idempotent: true,
      destructive: true,
      openWorld: true,
    });
  });

  it("an admin's override wins over the annotation, field by field", () => {
    const c = classifyTool({ readOnlyHint: true, openWorldHint: true }, { readOnly: false, openWorld: false });
    expect(c.class).toMatchObject({ readOnly: false, openWorld: false });
    expect(c.classSource).toMatchObject({ readOnly: "override", openWorld: "override", destructive: "default" });
  });
});

describe("idempotencyArgumentOf", () => {
  it("finds a string property named like an idempotency key", () => {
    expect(idempotencyArgumentOf({ type: "object", properties: { to: { type: "string" }, idempotency_key: { type: "string" } } })).toBe("idempotency_key");
    expect(idempotencyArgumentOf({ type: "object", properties: { IdempotencyKey: {} } })).toBe("IdempotencyKey");
    expect(idempotencyArgumentOf({ type: "object", properties: { idempotencyKey: { type: "number" } } })).toBeNull();
    expect(idempotencyArgumentOf({ type: "object", properties: { key: { type: "string" } } })).toBeNull();
  });
});

const tool = (name: string, annotations?: DiscoveredTool["annotations"]): DiscoveredTool => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: "object", properties: {} },
  ...(annotations ? { annotations } : {}),
});

describe("buildToolSnapshot", () => {
  const memory = {
    name: "memory",
    version: 3,
    serverInfo: { name: "memory-server", version: "1.0.0" },
    tools: [tool("read_graph", { readOnlyHint: true }), tool("create_entities", { readOnlyHint: false }), tool("delete_entities", { destructiveHint: true })],
    overrides: { delete_entities: { disabled: true } },
  };

  it("qualifies, classifies, applies the selection and the disabled override", () => {
    const snap = buildToolSnapshot({ selections: [{ server: "memory" }], servers: [memory], builtinNames: ["finish"], takenAt: new Date(0) });
    expect(snap.servers[0]).toMatchObject({ name: "memory", version: 3, toolsHash: toolsHash(memory.tools) });
    expect(snap.servers[0]!.tools.map((t) => [t.name, t.tool, t.class.readOnly])).toEqual([
      ["memory__read_graph", "read_graph", true],
      ["memory__create_entities", "create_entities", false],
    ]);
    const subset = buildToolSnapshot({
      selections: [{ server: "memory", tools: ["create_entities"] }],
      servers: [memory],
      builtinNames: [],
      takenAt: new Date(0),
    });
    expect(subset.servers[0]!.tools.map((t) => t.name)).toEqual(["memory__create_entities"]);
  });

  it("refuses a selected tool the server does not have, naming what it has", () => {
    expect(() => buildToolSnapshot({ selections: [{ server: "memory", tools: ["nope"] }], servers: [memory], builtinNames: [], takenAt: new Date(0) })).toThrow(
      'MCP server "memory" has no tool "nope" (it has read_graph, create_entities, delete_entities)',
    );
  });

  it("refuses two tools that map to one qualified name", () => {
    const clash = { ...memory, tools: [tool("a.b"), tool("a_b")], overrides: {} };
    expect(() => buildToolSnapshot({ selections: [{ server: "memory" }], servers: [clash], builtinNames: [], takenAt: new Date(0) })).toThrow(/already taken/);
  });

  it("the hash changes when any tool of the server changes, not with the order", () => {
    const a = [tool("x"), tool("y")];
    expect(toolsHash(a)).toBe(toolsHash([...a].reverse()));
    expect(toolsHash(a)).not.toBe(toolsHash([tool("x"), { ...tool("y"), description: "changed" }]));
  });
});
