import { describe, expect, it } from "vitest";
import { specOf, valuesOf } from "../../components/admin/profile-form-values.ts";
import { mcpAuditGoal, parseMcpAuditGoal } from "../../lib/contracts/demo.ts";

// The names an admin gives MCP servers reach the agent: the mcp-audit goal carries the two
// server names, and the profile form keeps which servers a profile picks (and their tool subsets).

describe("mcpAuditGoal / parseMcpAuditGoal", () => {
  it("defaults to the seed's files and memory servers", () => {
    expect(parseMcpAuditGoal(mcpAuditGoal(20))).toEqual({ limit: 20, filesServer: "files", memoryServer: "memory" });
  });
  it("names the servers a team registered", () => {
    expect(parseMcpAuditGoal(mcpAuditGoal(6, { memory: "team-memory", files: "notes" }))).toEqual({
      limit: 6,
      filesServer: "notes",
      memoryServer: "team-memory",
    });
  });
  it("is null for another goal", () => {
    expect(parseMcpAuditGoal("Find out what this project is.")).toBeNull();
  });
});

describe("profile form MCP servers", () => {
  const base = { name: "p", model: "m", provider: "scripted", mcpServers: [{ server: "files" }, { server: "memory", tools: ["create_entities"] }] };
  it("reads the picked servers", () => {
    expect(valuesOf(base).mcpServers).toEqual(["files", "memory"]);
    expect(valuesOf(null).mcpServers).toEqual([]);
  });
  it("keeps a picked server's tool subset, adds and drops servers", () => {
    const values = { ...valuesOf(base), mcpServers: ["memory", "team"] };
    expect(specOf(values, base).mcpServers).toEqual([{ server: "memory", tools: ["create_entities"] }, { server: "team" }]);
  });
});
