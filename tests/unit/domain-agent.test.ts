import { describe, expect, it } from "vitest";
import { assistantMessage, buildInitialMessages, toolResultMessage } from "../../server/domain/agent-context.ts";
import { modelCallCostUsd } from "../../server/domain/cost.ts";
import { describeCeiling } from "../../lib/contracts/ceiling.ts";
import { reachedCeiling } from "../../server/domain/step-budget.ts";

describe("buildInitialMessages", () => {
  it("carries the goal verbatim and the working set as JSON, and nothing of a transcript", () => {
    const goal = 'Audit <everything> & "quote" — verbatim\nsecond line';
    const msgs = buildInitialMessages({ systemPrompt: "sys", goal, workingSet: { "license:a": { name: "a" } } });
    expect(msgs).toHaveLength(2);
    expect(msgs[0]).toEqual({ role: "system", content: "sys" });
    const user = msgs[1]!.content as string;
    expect(user).toContain(`<goal>${goal}</goal>`);
    expect(JSON.parse(/<working_set>(.*)<\/working_set>/s.exec(user)![1]!)).toEqual({ "license:a": { name: "a" } });
    expect(user).not.toContain("<completed_steps>");
    expect(user).not.toContain("<guidance>");
  });

  it("renders state and tool results the same whatever key order they arrive in", () => {
    const a = buildInitialMessages({ systemPrompt: "", goal: "g", workingSet: { b: { y: 1, x: 2 }, a: 1 }, completedSteps: [{ summary: "s", stepId: "t" }] });
    const b = buildInitialMessages({ systemPrompt: "", goal: "g", workingSet: { a: 1, b: { x: 2, y: 1 } }, completedSteps: [{ stepId: "t", summary: "s" }] });
    expect(a).toEqual(b);
    expect(toolResultMessage("c1", { ok: true, output: { z: [{ q: 1, p: NaN }], a: "\ud800" } }).content).toBe('{"a":"\\ud800","z":[{"p":null,"q":1}]}');
    expect(toolResultMessage("c1", { ok: true, output: { z: 1, a: 2 } })).toEqual(toolResultMessage("c1", { ok: true, output: { a: 2, z: 1 } }));
  });

  it("adds completed steps, open question and guidance when resuming", () => {
    const msgs = buildInitialMessages({
      systemPrompt: "",
      goal: "g",
      workingSet: {},
      completedSteps: [{ stepId: "tool-1-0", tool: "send_email", summary: "sent" }],
      openQuestion: "which package next?",
      guidance: "skip dev dependencies",
    });
    const user = msgs[1]!.content as string;
    // Keys sorted (promptJson): the same text whether the steps came from memory or from jsonb.
    expect(user).toContain('<completed_steps>[{"stepId":"tool-1-0","summary":"sent","tool":"send_email"}]</completed_steps>');
    expect(user).toContain("<open_question>which package next?</open_question>");
    expect(user).toContain("<guidance>skip dev dependencies</guidance>");
    expect(msgs[0]!.content).not.toBe("");
  });

  it("puts tool calls and tool results on the wire in the OpenAI shape", () => {
    expect(assistantMessage(null, [{ id: "c1", name: "read_file", arguments: '{"path":"a"}' }])).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"a"}' } }],
    });
    expect(assistantMessage("done", [])).toEqual({ role: "assistant", content: "done" });
    expect(toolResultMessage("c1", { ok: false, error: { code: "not_found", message: "x" } })).toEqual({
      role: "tool",
      tool_call_id: "c1",
      content: '{"error":{"code":"not_found","message":"x"}}',
    });
  });
});

describe("reachedCeiling", () => {
  it.each([
    { stepsUsed: 0, stepBudget: 1, tokensUsed: 0, tokenBudget: null, expected: null },
    { stepsUsed: 9, stepBudget: 10, tokensUsed: 999, tokenBudget: 1000, expected: null },
    { stepsUsed: 10, stepBudget: 10, tokensUsed: 0, tokenBudget: null, expected: "steps" },
    { stepsUsed: 11, stepBudget: 10, tokensUsed: 5000, tokenBudget: 1000, expected: "steps" },
    { stepsUsed: 3, stepBudget: 10, tokensUsed: 1000, tokenBudget: 1000, expected: "tokens" },
    { stepsUsed: 3, stepBudget: 10, tokensUsed: 10, tokenBudget: null, costUsd: 0.0099, costBudgetUsd: 0.01, expected: null },
    { stepsUsed: 3, stepBudget: 10, tokensUsed: 10, tokenBudget: null, costUsd: 0.01, costBudgetUsd: 0.01, expected: "cost" },
    { stepsUsed: 3, stepBudget: 10, tokensUsed: 10, tokenBudget: null, costUsd: 5, costBudgetUsd: null, expected: null },
    { stepsUsed: 3, stepBudget: 10, tokensUsed: 10, tokenBudget: null, costUsd: 5, costBudgetUsd: 0, expected: null },
    { stepsUsed: 10, stepBudget: 10, tokensUsed: 10, tokenBudget: null, costUsd: 5, costBudgetUsd: 1, expected: "steps" },
  ])("steps $stepsUsed/$stepBudget, tokens $tokensUsed/$tokenBudget, $$costUsd/$costBudgetUsd → $expected", ({ expected, ...input }) => {
    expect(reachedCeiling(input)?.kind ?? null).toBe(expected);
  });

  it("describes a dollar ceiling in dollars and the others in units", () => {
    expect(describeCeiling(reachedCeiling({ stepsUsed: 0, stepBudget: 10, tokensUsed: 0, tokenBudget: null, costUsd: 0.01234, costBudgetUsd: 0.01 })!)).toBe(
      "dollar budget is reached: $0.0123 of $0.0100",
    );
    expect(describeCeiling(reachedCeiling({ stepsUsed: 24, stepBudget: 24, tokensUsed: 0, tokenBudget: null })!)).toBe("steps budget is reached: 24 of 24");
    expect(describeCeiling({ kind: "cost", used: 0.0000123, limit: 0.000004 })).toBe("dollar budget is reached: $0.000012 of $0.000004");
  });
});

describe("modelCallCostUsd", () => {
  const usage = { promptTokens: 1_000_000, cachedTokens: 200_000, completionTokens: 1_000_000 };

  it("uses the profile's prices when set: uncached input, cached input and output each at their price", () => {
    const { usd, priced } = modelCallCostUsd({ model: "scripted", usage, prices: { inputPerMTok: 0.4, cachedPerMTok: 0.1, outputPerMTok: 1.6 } });
    expect(priced).toBe(true);
    expect(usd).toBeCloseTo(0.8 * 0.4 + 0.2 * 0.1 + 1.6, 10);
  });

  it("charges cached tokens at the input price when the profile has no cached price", () => {
    const { usd } = modelCallCostUsd({ model: "x", usage, prices: { inputPerMTok: 1, cachedPerMTok: null, outputPerMTok: 0 } });
    expect(usd).toBeCloseTo(1, 10);
  });

  it("falls back to the maintained price table for known models, and says so when a model is unknown", () => {
    const known = modelCallCostUsd({ model: "gpt-4.1-mini", usage, prices: { inputPerMTok: null, cachedPerMTok: null, outputPerMTok: null } });
    expect(known.priced).toBe(true);
    expect(known.usd).toBeGreaterThan(0);
    const unknown = modelCallCostUsd({ model: "no-such-model-xyz", usage, prices: { inputPerMTok: null, cachedPerMTok: null, outputPerMTok: null } });
    expect(unknown).toEqual({ usd: 0, priced: false });
  });
});
