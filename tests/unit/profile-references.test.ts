import { describe, expect, it } from "vitest";
import { diffFields } from "../../server/domain/field-diff.ts";
import { unresolvedProfileReferences, unresolvedServerReferences, type McpServerReferences } from "../../server/domain/profile-references.ts";

// What a profile or an MCP server refers to outside its own text, and which references do not
// resolve: the warnings of `profiles apply` and the refusals of a launch.

const set = new Set(["TEAM_KEY", "TOKEN"]);
const isSet = (name: string) => set.has(name);
const memory: McpServerReferences = { name: "memory", transport: { type: "stdio", env: {} }, listedTools: ["read_graph", "create_entities"] };
const servers = new Map([["memory", memory]]);
const profile = { name: "team", provider: "openai", apiKeyEnv: "TEAM_KEY", headers: {}, mcpServers: [] };

describe("unresolved references", () => {
  it("names an unset key variable and each unset variable of a header", () => {
    const refs = unresolvedProfileReferences(
      { ...profile, apiKeyEnv: "MISSING", headers: { Authorization: "Bearer ${TOKEN}", "X-Org": "${ORG} ${TEAM_KEY}" } },
      { isSet, servers },
    );
    expect(refs.map((r) => [r.field, r.kind, r.name])).toEqual([
      ["apiKeyEnv", "variable", "MISSING"],
      ["headers.X-Org", "variable", "ORG"],
    ]);
    expect(refs[0]!.message).toBe('profile "team": apiKeyEnv: the environment variable MISSING is not set where Longhaul runs');
  });

  it("says nothing of a scripted profile's key fields: they are never sent", () => {
    expect(unresolvedProfileReferences({ ...profile, provider: "scripted", apiKeyEnv: "MISSING", headers: { A: "${NOPE}" } }, { isSet, servers })).toEqual([]);
  });

  it("names a subset tool the server did not list, and checks nothing against a server never listed", () => {
    const mcpServers = [
      { server: "memory", tools: ["read_graph", "drop_all"] },
      { server: "never-started", tools: ["x"] },
    ];
    const refs = unresolvedProfileReferences({ ...profile, mcpServers }, { isSet, servers });
    expect(refs.map((r) => r.message)).toEqual([
      'profile "team": mcpServers[0].tools: the MCP server "memory" does not offer the tool "drop_all" (it offers create_entities, read_graph)',
    ]);
  });

  it("names each fromEnv of a server that is not set, by its transport path", () => {
    const http: McpServerReferences = {
      name: "tracker",
      transport: { type: "http", headers: { Authorization: { fromEnv: "TRACKER_TOKEN" }, "X-Mode": { value: "ro" } } },
      listedTools: null,
    };
    expect(unresolvedServerReferences(http, isSet).map((r) => [r.entry, r.field, r.name])).toEqual([
      ['MCP server "tracker"', "transport.headers.Authorization", "TRACKER_TOKEN"],
    ]);
    expect(unresolvedServerReferences({ ...http, transport: { type: "stdio", env: { T: { fromEnv: "TOKEN" } } } }, isSet)).toEqual([]);
  });
});

describe("field diff by path", () => {
  it("compares nested objects field by field and arrays whole; a new entry lists every field", () => {
    const from = { transport: { type: "stdio", args: ["a.js"], env: { MODE: { value: "ro" } } }, startTimeoutMs: 30_000 };
    const to = { transport: { type: "stdio", args: ["b.js"], env: { MODE: { value: "ro" }, TOKEN: { fromEnv: "T" } } }, startTimeoutMs: 30_000 };
    expect(diffFields(from, to)).toEqual([
      { field: "transport.args", from: ["a.js"], to: ["b.js"] },
      { field: "transport.env.TOKEN.fromEnv", from: null, to: "T" },
    ]);
    expect(diffFields(null, { a: 1, b: { c: [1] } })).toEqual([
      { field: "a", from: null, to: 1 },
      { field: "b.c", from: null, to: [1] },
    ]);
    expect(diffFields(from, structuredClone(from))).toEqual([]);
  });
});
