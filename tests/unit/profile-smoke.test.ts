import { describe, expect, it } from "vitest";
import { decideSmokeTurn, exampleArguments } from "../../server/llm/scripted/smoke.ts";
import { selectSmokeTools, smokeLaunchPlan, smokeProfileSpec, smokeReport, type SmokeSpec } from "../../server/domain/profile-smoke.ts";
import { profileSnapshotSchema } from "../../server/domain/profile-spec.ts";
import type { McpToolSnapshot } from "../../server/domain/mcp-tool-snapshot.ts";

// The profile smoke test's pure parts: arguments from a tool's input schema, the offline agent's
// turns, which tools a smoke test offers, the profile it runs with, and the per-tool report.

describe("exampleArguments", () => {
  it("fills required properties with values that honour type, enum, const, format, bounds, lengths, nesting and $ref", () => {
    const args = exampleArguments({
      type: "object",
      properties: {
        path: { type: "string" },
        optional: { type: "string" },
        mode: { type: "string", enum: ["fast", "slow"] },
        count: { type: "integer", minimum: 3, maximum: 9 },
        above: { type: "integer", exclusiveMinimum: 5 },
        when: { type: "string", format: "date-time" },
        email: { type: "string", format: "email" },
        name: { type: "string", minLength: 12 },
        code: { type: "string", maxLength: 2 },
        fixed: { const: 7 },
        entities: { type: "array", minItems: 2, items: { type: "object", properties: { id: { $ref: "#/$defs/id" } }, required: ["id"] } },
      },
      required: ["path", "mode", "count", "above", "when", "email", "name", "code", "fixed", "entities"],
      $defs: { id: { type: "string", format: "uuid" } },
    });
    expect(Object.keys(args)).not.toContain("optional");
    expect(args).toMatchObject({ path: expect.any(String), mode: "fast", count: 3, above: 6, fixed: 7, email: expect.stringMatching(/@/) });
    expect(Number.isNaN(Date.parse(args.when as string))).toBe(false);
    expect((args.name as string).length).toBeGreaterThanOrEqual(12);
    expect((args.code as string).length).toBeLessThanOrEqual(2);
    expect(args.entities).toHaveLength(2);
    expect((args.entities as { id: string }[])[0]!.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("never throws: no schema, a broken one, a non-object one give an object", () => {
    expect(exampleArguments(undefined)).toEqual({});
    expect(exampleArguments({ type: "object", properties: { a: { $ref: "#/nowhere" } }, required: ["a"] })).toEqual(expect.any(Object));
    expect(exampleArguments({ type: "string" })).toEqual({});
  });
});

describe("decideSmokeTurn", () => {
  const tools = [
    { name: "s__a", inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } },
    { name: "finish", inputSchema: {} },
    { name: "record_fact", inputSchema: {} },
    { name: "s__b", inputSchema: { type: "object" } },
  ];

  it("calls each offered tool once in order (control tools left out), records each outcome, then finishes", () => {
    expect(decideSmokeTurn({ tools, calls: [], facts: {} }).toolCalls).toEqual([{ name: "s__a", arguments: { q: "string" } }]);
    const afterA = decideSmokeTurn({ tools, calls: [{ name: "s__a", error: null }], facts: {} });
    expect(afterA.toolCalls).toEqual([
      { name: "record_fact", arguments: { key: "smoke:s__a", value: { outcome: "answered" } } },
      { name: "s__b", arguments: {} },
    ]);
    const calls = [
      { name: "s__a", error: null },
      { name: "record_fact", error: null },
      { name: "s__b", error: { code: "tool_error", message: "bad path" } },
    ];
    const facts = { "smoke:s__a": { outcome: "answered" } };
    expect(decideSmokeTurn({ tools, calls, facts }).toolCalls).toEqual([
      { name: "record_fact", arguments: { key: "smoke:s__b", value: { outcome: "tool_error", message: "bad path" } } },
    ]);
    const done = decideSmokeTurn({ tools, calls, facts: { ...facts, "smoke:s__b": { outcome: "tool_error" } } });
    expect(done.toolCalls).toHaveLength(1);
    expect(done.toolCalls[0]!.name).toBe("finish");
    expect(done.toolCalls[0]!.arguments.result).toMatch(/called each of 2 tools once; 1 answered, 1 did not\.\ns__a: answered\ns__b: tool_error \(bad path\)/);
  });

  it("with no tool to call, finishes at once", () => {
    expect(decideSmokeTurn({ tools: [{ name: "finish" }], calls: [], facts: {} }).toolCalls[0]).toMatchObject({ name: "finish" });
  });
});

const cls = (readOnly: boolean, openWorld = false) => ({ readOnly, idempotent: false, destructive: false, openWorld });
const snapshot: McpToolSnapshot = {
  takenAt: "2026-01-01T00:00:00.000Z",
  servers: [
    {
      name: "s",
      version: 1,
      serverInfo: null,
      toolsHash: "h",
      tools: (
        [
          ["read", cls(true)],
          ["write", cls(false)],
          ["fetch", cls(true, true)],
        ] as const
      ).map(([tool, c]) => ({
        name: `s__${tool}`,
        server: "s",
        tool,
        description: tool,
        inputSchema: { type: "object" },
        class: c,
        classSource: {},
        idempotencyArgument: null,
      })),
    },
  ],
};

describe("which tools a smoke test offers", () => {
  it("read-only closed-world ones by default, the others skipped with why; all with includeSideEffects", () => {
    const plain = selectSmokeTools(snapshot, false);
    expect(plain.snapshot.servers[0]!.tools.map((t) => t.tool)).toEqual(["read"]);
    expect(plain.tools.map((t) => [t.tool, t.skipped ?? "tested"])).toEqual([
      ["read", "tested"],
      ["write", expect.stringMatching(/^side effect/)],
      ["fetch", expect.stringMatching(/^open-world/)],
    ]);
    expect(selectSmokeTools(snapshot, true).snapshot.servers[0]!.tools).toHaveLength(3);
  });

  it("a profile without MCP tools, or with none callable by default, is refused naming the way out", () => {
    expect(() => smokeLaunchPlan({ snapshot: null, includeSideEffects: false, profile: "p", profileModel: "m" })).toThrow(/selects no MCP tools/);
    const writes = { ...snapshot, servers: [{ ...snapshot.servers[0]!, tools: snapshot.servers[0]!.tools.slice(1, 2) }] };
    expect(() => smokeLaunchPlan({ snapshot: writes, includeSideEffects: false, profile: "p", profileModel: "m" })).toThrow(/--include-side-effects/);
    expect(smokeLaunchPlan({ snapshot: writes, includeSideEffects: true, profile: "p", profileModel: "m" })).toMatchObject({
      stepBudget: 14,
      smoke: { profileModel: "m" },
    });
  });
});

describe("the profile a smoke task runs with", () => {
  it("is the profile's, on the offline smoke model: no base URL, key, headers or price; its own policy kept", () => {
    const spec = profileSnapshotSchema.parse({
      name: "real",
      provider: "openai",
      model: "gpt-4.1",
      baseUrl: "https://api.example.com/v1",
      apiKeyEnv: "TEAM_KEY",
      headers: { "x-team": "a" },
      inputPricePerMTok: 2,
      egressHttpAllow: ["https://ok.example"],
      requireApproval: true,
      mcpServers: [{ server: "s" }],
    });
    expect(smokeProfileSpec(spec)).toMatchObject({
      provider: "scripted",
      model: "scripted-smoke",
      baseUrl: null,
      apiKeyEnv: null,
      headers: {},
      tools: ["record_fact", "finish"],
      inputPricePerMTok: 0,
      egressHttpAllow: ["https://ok.example"],
      requireApproval: true,
      mcpServers: [{ server: "s" }],
    });
  });
});

describe("smokeReport", () => {
  it("per tool: called, error, refused, skipped or not called, with the first finished step's latency", () => {
    const spec: SmokeSpec = {
      model: "scripted-smoke",
      includeSideEffects: false,
      profileModel: "m",
      tools: [
        { name: "s__a", server: "s", tool: "a", class: cls(true) },
        { name: "s__b", server: "s", tool: "b", class: cls(true) },
        { name: "s__c", server: "s", tool: "c", class: cls(true, true) },
        { name: "s__d", server: "s", tool: "d", class: cls(false), skipped: "side effect" },
        { name: "s__e", server: "s", tool: "e", class: cls(true) },
      ],
    };
    const step = (tool: string, status: string, error: string | null, durationMs: number | null) => ({
      runId: "r",
      stepId: `tool-${tool}`,
      tool,
      status,
      error,
      durationMs,
    });
    const rows = smokeReport(spec, [
      step("s__a", "completed", null, 12),
      step("s__b", "failed", "[tool_error] s__b failed: ENOENT", 5),
      step("s__c", "failed", "[approval_required] secret in arguments", 1),
      step("s__e", "running", null, null),
    ]);
    expect(rows.map((r) => [r.tool, r.outcome, r.latencyMs])).toEqual([
      ["a", "called", 12],
      ["b", "error", 5],
      ["c", "refused", 1],
      ["d", "skipped", null],
      ["e", "not_called", null],
    ]);
    expect(rows[1]!.detail).toMatch(/ENOENT/);
    expect(rows[3]!.detail).toBe("side effect");
  });
});
