import { describe, expect, it } from "vitest";
import { alertDetail } from "../../server/domain/alert-detail.ts";
import { buildToolSnapshot, diffSnapshotTools, type DiscoveredTool } from "../../server/domain/mcp-tool-snapshot.ts";

// What a changed MCP tool list shows: the tools added, removed and changed (with the fields) against
// a task's snapshot, and the alert detail the run page and the API read from the stored evidence.

const tool = (name: string, extra: Partial<DiscoveredTool> = {}): DiscoveredTool => ({
  name,
  description: `${name} does a thing`,
  inputSchema: { type: "object", properties: { q: { type: "string" } } },
  ...extra,
});

function snapshotOf(tools: DiscoveredTool[], selected?: string[]) {
  return buildToolSnapshot({
    selections: [{ server: "s", ...(selected ? { tools: selected } : {}) }],
    servers: [{ name: "s", version: 1, serverInfo: null, tools, overrides: {} }],
    builtinNames: [],
    takenAt: new Date(0),
  }).servers[0]!;
}

describe("diffSnapshotTools", () => {
  it("names tools added, removed and changed, with the fields that changed", () => {
    const server = snapshotOf([tool("a"), tool("b"), tool("c", { annotations: { readOnlyHint: true } })]);
    const diff = diffSnapshotTools(server, [
      tool("a"),
      tool("c", { description: "now different", inputSchema: { type: "object", properties: { q: { type: "number" } } }, annotations: { readOnlyHint: false } }),
      tool("d"),
    ]);
    expect(diff).toEqual({ added: ["d"], removed: ["b"], changed: [{ tool: "c", fields: ["description", "inputSchema", "annotations"] }] });
  });

  it("a tool listed at launch but not selected is not 'added'; an unchanged list has no changes", () => {
    const all = [tool("a"), tool("b")];
    const server = snapshotOf(all, ["a"]);
    expect(diffSnapshotTools(server, all)).toEqual({ added: [], removed: [], changed: [] });
    // A snapshot taken before the listed names were kept: the offered tools are all it knows.
    const { listedTools: _listed, ...older } = server;
    expect(diffSnapshotTools(older, all).added).toEqual(["b"]);
  });
});

describe("alertDetail", () => {
  it("reads a changed-tools alert, older rows ('missing') included; other kinds and bad evidence give null", () => {
    expect(
      alertDetail("mcp_tools_changed", { server: "s", added: ["d"], removed: ["b"], missing: ["b"], changed: [{ tool: "c", fields: ["inputSchema"] }] }),
    ).toEqual({
      kind: "mcp_tools_changed",
      server: "s",
      added: ["d"],
      removed: ["b"],
      changed: [{ tool: "c", fields: ["inputSchema"] }],
    });
    expect(alertDetail("mcp_tools_changed", { server: "s", added: [], missing: ["x"] })).toMatchObject({ removed: ["x"], changed: [] });
    expect(alertDetail("mcp_tools_changed", { nope: 1 })).toBeNull();
    expect(alertDetail("loop", { server: "s" })).toBeNull();
  });

  it("reads a server-exit alert", () => {
    const evidence = {
      server: "s",
      tool: "t",
      action: "retried",
      pid: 7,
      code: null,
      signal: "SIGKILL",
      at: "2026-01-01T00:00:00.000Z",
      class: {},
      error: "x",
    };
    expect(alertDetail("mcp_server_exited", evidence)).toEqual({
      kind: "mcp_server_exited",
      server: "s",
      tool: "t",
      action: "retried",
      pid: 7,
      code: null,
      signal: "SIGKILL",
      at: "2026-01-01T00:00:00.000Z",
    });
  });
});
