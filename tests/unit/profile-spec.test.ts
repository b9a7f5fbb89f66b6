import { describe, expect, it } from "vitest";
import { BUILTIN_TOOL_NAMES } from "../../lib/contracts/profile.ts";
import { diffProfileSpecs, profileSnapshotSchema, profileSpecSchema } from "../../server/domain/profile-spec.ts";
import { readProfileDocument } from "../../server/db/profile-repository.ts";
import { builtinToolNames } from "../../server/tools/registry.ts";

// The profile schema: defaults, limits named by field, secrets refused, the field diff
// that makes `profiles apply` idempotent, and the document shapes a file may have. Pure.

const messages = (input: unknown) => {
  const r = profileSpecSchema.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => i.message);
};

describe("profileSpecSchema", () => {
  it("fills the AgentProfile column defaults and normalises the base URL", () => {
    const p = profileSpecSchema.parse({ name: "local", model: "llama3.1", baseUrl: "http://127.0.0.1:11434/v1/" });
    expect(p).toMatchObject({
      provider: "openai",
      baseUrl: "http://127.0.0.1:11434/v1",
      stepBudget: 200,
      contextWindow: 128_000,
      tools: [],
      headers: {},
      mcpServers: [],
    });
  });
  it("names the field and its limit for each problem", () => {
    expect(messages({ name: "Bad Name", model: "" })).toEqual(
      expect.arrayContaining([expect.stringMatching(/^name: 1–63/), expect.stringMatching(/^model: required/)]),
    );
    expect(messages({ name: "a", model: "m", stepBudget: 0, saturationRatio: 2, costBudgetUsd: -0.5 })).toEqual(
      expect.arrayContaining(["stepBudget: at least 1", "saturationRatio: at most 0.95", "costBudgetUsd: must not be negative"]),
    );
    expect(messages({ name: "a", model: "m", baseUrl: "file:///etc/passwd" })).toEqual(["baseUrl: must be an http(s) URL (e.g. http://127.0.0.1:11434/v1)"]);
    expect(messages({ name: "a", model: "m", tools: ["nope"] })[0]).toMatch(/^tools: unknown tool "nope"; built-in tools: list_files/);
    expect(messages({ name: "a", model: "m", egressHttpAllow: ["not a url"] })[0]).toMatch(/^egressHttpAllow: /);
    expect(messages({ name: "a", model: "m", colour: "red" })[0]).toContain("colour");
  });
  it("takes API keys only by variable name, and secret headers only as ${VAR}", () => {
    expect(messages({ name: "a", model: "m", apiKeyEnv: "sk-abc123" })[0]).toMatch(/^apiKeyEnv: the NAME/);
    expect(messages({ name: "a", model: "m", apiKeyEnv: "MY_KEY" })).toEqual([]);
    expect(messages({ name: "a", model: "m", headers: { Authorization: "Bearer sk-abc" } })[0]).toMatch(/^headers\.Authorization: a secret is never stored/);
    expect(messages({ name: "a", model: "m", headers: { Authorization: "Bearer ${MY_TOKEN}", "X-Team": "research" } })).toEqual([]);
  });
  it("lists exactly the registry's built-in tools", () => {
    expect([...BUILTIN_TOOL_NAMES].sort()).toEqual([...builtinToolNames].sort());
  });
});

describe("diffProfileSpecs", () => {
  const a = profileSpecSchema.parse({ name: "a", model: "m", tools: ["read_file"], headers: { X: "1", Y: "2" }, inputPricePerMTok: 0.4 });
  it("is empty for the same content, whatever the key order or float noise", () => {
    const b = profileSpecSchema.parse({ headers: { Y: "2", X: "1" }, inputPricePerMTok: 0.4000000001, tools: ["read_file"], model: "m", name: "a" });
    expect(diffProfileSpecs(a, b)).toEqual([]);
  });
  it("lists each changed field with both values; a new profile lists what differs from the defaults", () => {
    expect(diffProfileSpecs(a, { ...a, stepBudget: 10, tools: ["read_file", "finish"] })).toEqual([
      { field: "tools", from: ["read_file"], to: ["read_file", "finish"] },
      { field: "stepBudget", from: 200, to: 10 },
    ]);
    expect(diffProfileSpecs(null, a).map((c) => c.field)).toEqual(["model", "headers", "tools", "inputPricePerMTok"]);
  });
  it("reads a stored snapshot back with defaults for columns it lacks", () => {
    expect(profileSnapshotSchema.parse({ name: "old", model: "m", tools: ["x"], costBudgetUsd: 1.5 })).toMatchObject({
      provider: "openai",
      headers: {},
      costBudgetUsd: 1.5,
      tools: ["x"],
    });
  });
});

describe("readProfileDocument", () => {
  it("takes one profile, a list, or {profiles, mcpServers}, YAML or JSON", () => {
    expect(readProfileDocument({ text: "name: a\nmodel: m\n" }).profiles).toHaveLength(1);
    expect(readProfileDocument({ text: '[{"name":"a","model":"m"},{"name":"b","model":"m"}]' }).profiles).toHaveLength(2);
    expect(readProfileDocument({ text: "profiles: []\nmcpServers: [{name: x}]\n" })).toEqual({ profiles: [], mcpServers: [{ name: "x" }] });
    expect(() => readProfileDocument({ text: "just text" })).toThrow(/document: must be a profile/);
    expect(() => readProfileDocument({ text: "a: [" })).toThrow(/not valid YAML or JSON/);
  });
});

describe("escalation routing names roles that exist", () => {
  it("routes escalations to handlers unless the profile says otherwise (to roles that decide them)", () => {
    expect(profileSpecSchema.parse({ name: "p", model: "m" }).escalationRole).toBe("handler");
    expect(profileSpecSchema.parse({ name: "p", model: "m", escalationRole: "operator" }).escalationRole).toBe("operator");
  });

  it("accepts the roles of lib/contracts/roles.ts for escalationRole and each escalationChain entry", () => {
    expect(messages({ name: "p", model: "m", escalationRole: "handler", escalationChain: ["admin", "manager"] })).toEqual([]);
  });
  it("refuses a role no one can be given, naming the field and the roles to use", () => {
    expect(messages({ name: "p", model: "m", escalationRole: "team-lead" })).toEqual([
      'escalationRole: "team-lead" is not a role; use one of operator, handler, manager, admin',
    ]);
    expect(messages({ name: "p", model: "m", escalationChain: ["admin", "team-lead"] })).toEqual([
      'escalationChain[]: "team-lead" is not a role; use one of operator, handler, manager, admin, or user:<display name>',
    ]);
    expect(messages({ name: "p", model: "m", escalationRole: "" })).toEqual(['escalationRole: "" is not a role; use one of operator, handler, manager, admin']);
  });

  it("takes named users in the chain as user:<display name> (that they exist is checked at save), not as the first role", () => {
    expect(profileSpecSchema.parse({ name: "p", model: "m", escalationChain: ["admin", "user:Dana Reyes"] }).escalationChain).toEqual([
      "admin",
      "user:Dana Reyes",
    ]);
    expect(messages({ name: "p", model: "m", escalationChain: ["user:  "] })).toEqual([`escalationChain[]: "user:" must be followed by a user's display name`]);
    expect(messages({ name: "p", model: "m", escalationRole: "user:Dana" })).toEqual([
      'escalationRole: "user:Dana" is not a role; use one of operator, handler, manager, admin',
    ]);
  });
});

describe("the effort policy", () => {
  const effortOf = (effort: unknown) => profileSpecSchema.parse({ name: "p", model: "m", effort }).effort;

  it("is off by default; {} is the recommended dial at medium; rules {} is a fixed level", () => {
    expect(profileSpecSchema.parse({ name: "p", model: "m" }).effort).toBeNull();
    expect(effortOf({})).toEqual({
      default: "medium",
      rules: { after_human: "high", after_failure: "high", planning: "high", side_effect: "high", checkpoint: "high", mechanical: "low" },
      models: {},
    });
    expect(effortOf({ default: "high", rules: {} })).toEqual({ default: "high", rules: {}, models: {} });
    expect(effortOf({ default: "low", rules: { planning: "high" }, models: { low: "gpt-5-mini" } })).toEqual({
      default: "low",
      rules: { planning: "high" },
      models: { low: "gpt-5-mini" },
    });
  });

  it.each([
    [{ default: "max" }, "effort.default: one of low, medium, high"],
    [
      { rules: { planing: "high" } },
      "effort.rules: unknown situation(s) planing; situations: after_human, after_failure, planning, side_effect, checkpoint, mechanical",
    ],
    [{ rules: { planning: "very" } }, "effort.rules.planning: one of low, medium, high"],
    [{ models: { xhigh: "o3" } }, "effort.models: unknown level(s) xhigh; levels: low, medium, high"],
    [{ models: { low: " " } }, "effort.models.low: a model name, or leave the level out"],
    [{ level: "low" }, "effort: unknown field(s) level; fields: default, rules, models"],
  ])("refuses %j naming the field", (effort, message) => {
    expect(messages({ name: "p", model: "m", effort })).toContain(message);
  });

  it("is one field of the diff, and a snapshot without it (older versions) reads back as none", () => {
    const before = profileSpecSchema.parse({ name: "p", model: "m" });
    const after = profileSpecSchema.parse({ name: "p", model: "m", effort: { default: "low", rules: {} } });
    expect(diffProfileSpecs(before, after)).toEqual([{ field: "effort", from: null, to: { default: "low", rules: {}, models: {} } }]);
    expect(diffProfileSpecs(after, profileSpecSchema.parse({ name: "p", model: "m", effort: { default: "low", rules: {} } }))).toEqual([]);
    expect(profileSnapshotSchema.parse({ name: "p", model: "m" }).effort).toBeNull();
  });
});
