import { describe, expect, it } from "vitest";
import { specOf, valuesOf } from "../../components/admin/profile-form-values.ts";
import { diffProfileSpecs, profileSpecSchema } from "../../server/domain/profile-spec.ts";

// The admin profile form saved without a change must give back the stored content exactly, so the
// server sees no change and makes no version (and a profile applied from a file does not drift from it).

describe("the profile form's round trip", () => {
  // As `profiles apply` stores a YAML block prompt (`systemPrompt: |`): its final newline kept; tools in the file's order.
  const stored = profileSpecSchema.parse({
    name: "team",
    model: "gpt-4.1-mini",
    baseUrl: "https://api.example.com/v1",
    apiKeyEnv: "TEAM_KEY",
    tools: ["record_fact", "finish", "read_file"],
    systemPrompt: "You are careful.\n\n  Indented line kept.\n",
    costBudgetUsd: 0.5,
    headers: { "X-Team": "ops" },
  });

  it("changes nothing when nothing was edited: the prompt byte for byte, the tools in their order", () => {
    const sent = profileSpecSchema.parse(specOf(valuesOf(stored), stored));
    expect(sent.systemPrompt).toBe(stored.systemPrompt);
    expect(sent.tools).toEqual(stored.tools);
    expect(diffProfileSpecs(stored, sent)).toEqual([]);
  });

  it("a tool ticked anew goes after the stored ones; an edited prompt is sent as written", () => {
    const values = { ...valuesOf(stored), tools: [...stored.tools, "list_files"], systemPrompt: "New prompt.\n" };
    const sent = profileSpecSchema.parse(specOf(values, stored));
    expect(sent.tools).toEqual(["record_fact", "finish", "read_file", "list_files"]);
    expect(diffProfileSpecs(stored, sent).map((c) => c.field)).toEqual(["tools", "systemPrompt"]);
  });
});
