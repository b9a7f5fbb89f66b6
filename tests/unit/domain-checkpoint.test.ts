import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../server/llm/types.ts";
import { countTokens } from "../../server/llm/tokens.ts";
import type { CompletedStepSummary } from "../../server/domain/agent-context.ts";
import {
  refusalCompactionLimit,
  checkpointReasonAfterTurn,
  compactCompletedSteps,
  describeToolStep,
  diffWorkingSets,
  fitSummaryRequest,
  isSaturated,
  parseCheckpointAnswer,
  WHOLE_JSON_MAX,
} from "../../server/domain/checkpoint.ts";

describe("checkpointReasonAfterTurn", () => {
  const base = { requested: false, phaseCompleted: false, lastModelCostUsd: 0.001, expensiveStepUsd: null, stepsSinceCheckpoint: 3, every: 40 };
  it.each([
    [{}, null],
    [{ stepsSinceCheckpoint: 39 }, null],
    [{ stepsSinceCheckpoint: 40 }, "interval"],
    [{ expensiveStepUsd: 0.01 }, null],
    [{ expensiveStepUsd: 0.0005 }, "expensive_step"],
    [{ phaseCompleted: true, stepsSinceCheckpoint: 40 }, "phase_complete"],
    [{ requested: true, phaseCompleted: true }, "on_request"],
    [{ every: 0, stepsSinceCheckpoint: 1000 }, null],
  ] as const)("%o → %s", (over, expected) => {
    expect(checkpointReasonAfterTurn({ ...base, ...over })).toBe(expected);
  });
});

describe("refusalCompactionLimit", () => {
  it.each([
    ["the stated limit × ratio", { statedLimitTokens: 8_192 }, 6_553],
    ["no statement: the profile's window", { statedLimitTokens: null }, 16_000],
    ["a stated limit over the window: the window", { statedLimitTokens: 128_000 }, 16_000],
    ["a limit stated before, none now", { statedLimitTokens: null, knownLimitTokens: 8_192 }, 6_553],
    ["the provider counts 25% more than the loop", { statedLimitTokens: 8_000, localPromptTokens: 8_000, providerPromptTokens: 10_000 }, 5_120],
    ["the provider counts less: no scaling up", { statedLimitTokens: 8_000, localPromptTokens: 10_000, providerPromptTokens: 8_000 }, 6_400],
  ] as const)("%s", (_n, over, expected) => {
    expect(refusalCompactionLimit({ contextWindow: 20_000, ratio: 0.8, ...over })).toBe(expected);
  });
});

describe("isSaturated", () => {
  it("fires at the ratio of the window, not before", () => {
    expect(isSaturated({ promptTokens: 6999, contextWindow: 10000, ratio: 0.7 })).toBe(false);
    expect(isSaturated({ promptTokens: 7000, contextWindow: 10000, ratio: 0.7 })).toBe(true);
  });
});

describe("compactCompletedSteps", () => {
  const steps = (n: number, from = 0): CompletedStepSummary[] =>
    Array.from({ length: n }, (_, i) => ({ stepId: `tool-${from + i}-0`, tool: i % 2 ? "record_fact" : "read_file", summary: `entry ${from + i}` }));

  it("keeps short lists as they are", () => {
    expect(compactCompletedSteps(steps(5), 10)).toEqual(steps(5));
  });

  it("folds older entries into one counted line and keeps the newest whole", () => {
    const out = compactCompletedSteps(steps(25), 10);
    expect(out).toHaveLength(11);
    expect(out[0]).toEqual({ stepId: "earlier", summary: "15 earlier steps: read_file ×8, record_fact ×7; their results are in the working set" });
    expect(out.slice(1)).toEqual(steps(25).slice(15));
  });

  it("accumulates folds across checkpoints and never folds side effects", () => {
    const effect = { stepId: "effect:t:r:tool-3-0", tool: "send_email", summary: "send_email already committed" };
    const first = compactCompletedSteps([...steps(12), effect], 10);
    const second = compactCompletedSteps([...first, ...steps(12, 100)], 10);
    expect(second[0]!.summary).toMatch(/^14 earlier steps: read_file ×7, record_fact ×7;/);
    expect(second).toContainEqual(effect);
    expect(second.filter((s) => s.stepId === "earlier")).toHaveLength(1);
  });
});

describe("describeToolStep", () => {
  it("carries short arguments and results whole", () => {
    expect(describeToolStep("send_email", '{"to":"a@b.c","subject":"s","body":"b"}', { ok: true, output: { messageId: "m-1", deduplicated: false } })).toBe(
      'send_email {"to":"a@b.c","subject":"s","body":"b"} → {"messageId":"m-1","deduplicated":false}',
    );
  });

  it("describes long documents instead of cutting them: no value is truncated mid-way", () => {
    const content = "x".repeat(5000);
    const line = describeToolStep("read_file", '{"path":"node_modules/a/package.json"}', {
      ok: true,
      output: { path: "node_modules/a/package.json", content, totalBytes: 5000, nextOffset: null },
    });
    expect(line).toBe(
      'read_file {"path":"node_modules/a/package.json"} → {path: "node_modules/a/package.json", content: <5000 chars>, totalBytes: 5000, nextOffset: null}',
    );
    expect(line.length).toBeLessThan(WHOLE_JSON_MAX * 2);
  });

  it("reports errors by code and keeps malformed arguments as text", () => {
    expect(describeToolStep("read_file", '{"path": ', { ok: false, error: { code: "invalid_json", message: "…" } })).toBe(
      'read_file {"path":  → error invalid_json',
    );
  });
});

describe("parseCheckpointAnswer (untrusted model output)", () => {
  it("accepts the JSON asked for, also inside a code fence", () => {
    expect(parseCheckpointAnswer('```json\n{"summary":"s","openQuestion":"q","phase":"p"}\n```', 3)).toEqual({
      summary: "s",
      openQuestion: "q",
      phase: "p",
      fromModel: true,
    });
  });
  it("falls back to a deterministic summary for anything else", () => {
    expect(parseCheckpointAnswer("I am done!", 3)).toEqual({ summary: "3 facts established.", openQuestion: null, phase: null, fromModel: false });
    expect(parseCheckpointAnswer('{"summary": 42}', 1).fromModel).toBe(false);
  });
});

describe("diffWorkingSets", () => {
  it("lists added, changed (nested) and removed keys, sorted", () => {
    const before = { a: 1, b: { license: "MIT", version: "1.0.0" }, c: "gone" };
    const after = { a: 1, b: { license: "MIT", version: "1.0.1" }, d: [1] };
    expect(diffWorkingSets(before, after)).toEqual([
      { key: "b", kind: "changed", before: before.b, after: after.b },
      { key: "c", kind: "removed", before: "gone" },
      { key: "d", kind: "added", after: [1] },
    ]);
  });
  it("is empty for equal sets whatever the key order", () => {
    expect(diffWorkingSets({ x: { p: 1, q: 2 }, y: 2 }, { y: 2, x: { q: 2, p: 1 } })).toEqual([]);
  });
});

describe("fitSummaryRequest", () => {
  const request: ChatMessage = { role: "user", content: "<checkpoint_request>summarise</checkpoint_request>" };
  const state: ChatMessage[] = [
    { role: "system", content: "You are an agent." },
    { role: "user", content: '<goal>audit</goal><working_set>{"a":1}</working_set>' },
  ];
  /** A transcript: system + goal, then `turns` × (assistant with one tool call, its tool result of ~`size` words). */
  const transcript = (turns: number, size: number): ChatMessage[] => [
    { role: "system", content: "You are an agent." },
    { role: "user", content: "<goal>audit</goal>" },
    ...Array.from({ length: turns }, (_, i): ChatMessage[] => [
      {
        role: "assistant",
        content: `turn ${i}`,
        tool_calls: [{ id: `c${i}`, type: "function", function: { name: "read_file", arguments: `{"path":"f${i}"}` } }],
      },
      { role: "tool", tool_call_id: `c${i}`, content: `result ${i} `.repeat(size) },
    ]).flat(),
  ];
  const count = (m: ChatMessage[]) => countTokens(m);

  it("sends the whole transcript when it fits", () => {
    const t = transcript(3, 10);
    expect(fitSummaryRequest({ transcript: t, state, request, budgetTokens: 10_000, count })).toEqual([...t, request]);
  });

  it("otherwise sends the state plus the longest whole tail that fits, never starting at a tool result", () => {
    const t = transcript(20, 200);
    const budget = Math.floor(count([...t, request]) / 3);
    const fitted = fitSummaryRequest({ transcript: t, state, request, budgetTokens: budget, count })!;
    expect(count(fitted)).toBeLessThanOrEqual(budget);
    expect(fitted.slice(0, 2)).toEqual(state);
    expect(fitted.at(-1)).toEqual(request);
    const tail = fitted.slice(2, -1);
    expect(tail.length).toBeGreaterThan(0);
    expect(tail[0]!.role).toBe("assistant");
    // a suffix of the transcript, whole messages
    expect(t.slice(t.length - tail.length)).toEqual(tail);
    // and the longest: one more turn would not fit
    const longer = t.slice(t.length - tail.length - 2);
    expect(count([...state, ...longer, request])).toBeGreaterThan(budget);
  });

  it("returns null when even the state and the request do not fit", () => {
    expect(fitSummaryRequest({ transcript: transcript(5, 200), state, request, budgetTokens: count([...state, request]) - 1, count })).toBeNull();
  });
});
