import { describe, expect, it } from "vitest";
import { EXECUTOR_MAX_STEP_OUTPUT_BYTES, jsonBytes, MAX_FACT_VALUE_BYTES, MAX_LAUNCH_FACTS_BYTES, plausibleId } from "../../lib/contracts/limits.ts";
import { MAX_STEP_OUTPUT_BYTES } from "../../server/executor/engine/context.ts";
import { FACT_VALUE_MAX_BYTES } from "../../server/tools/record-fact.ts";

// lib/contracts/limits.ts is the one home of the size limits; the executor (its own process, another
// owner) still declares its step-output limit itself, so this pins the two together until it imports it.

describe("shared limits", () => {
  it("the executor's step-output limit is the contract's, and a launch's facts fit well inside it", () => {
    expect(MAX_STEP_OUTPUT_BYTES).toBe(EXECUTOR_MAX_STEP_OUTPUT_BYTES);
    expect(MAX_LAUNCH_FACTS_BYTES * 4).toBe(EXECUTOR_MAX_STEP_OUTPUT_BYTES);
  });

  it("record_fact takes the same value limit as launches and fact edits", () => {
    expect(FACT_VALUE_MAX_BYTES).toBe(MAX_FACT_VALUE_BYTES);
  });

  it("jsonBytes counts UTF-8 bytes of the JSON text; 0 for what JSON cannot hold", () => {
    expect(jsonBytes({ a: "é" })).toBe(10);
    expect(jsonBytes(undefined)).toBe(0);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(jsonBytes(cyclic)).toBe(0);
  });
});

describe("plausibleId (/tasks/<over-long id> answers 404 at once)", () => {
  it("takes what idField takes and nothing else", () => {
    expect(plausibleId("task_01jx")).toBe(true);
    expect(plausibleId("x".repeat(100))).toBe(true);
    expect(plausibleId("x".repeat(101))).toBe(false);
    expect(plausibleId("x".repeat(10_000))).toBe(false);
    expect(plausibleId("no such task/é")).toBe(false);
    expect(plausibleId("  ")).toBe(false);
  });
});
