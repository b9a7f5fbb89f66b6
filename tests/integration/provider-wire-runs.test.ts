import { describe, expect, it } from "vitest";
import { createCaller } from "../../server/api/root.ts";
import { taskCostCsv } from "../../server/domain/cost-rollup.ts";
import { taskCostRows } from "../../server/db/cost-queries.ts";
import { parseContextLimit } from "../../server/llm/errors.ts";
import { expectedLicenseCsv } from "../../server/tools/demo/license-audit.ts";
import { loadRunEvidence, WORKSPACE, type AgentStack } from "../support/agent-stack.ts";
import { createTestProfile, disarmFaults, launchDemoWithProfile } from "../support/checkpoint-helpers.ts";
import { useAgentStack } from "../support/fixtures.ts";
import { testPrincipal } from "../support/principals.ts";

// The license-audit demo end to end through the Responses and Messages adapters (real app, executor,
// PostgreSQL, and the scripted model server speaking each wire format): the run completes with the
// right CSV; the prompt cache serves most of each prompt; Anthropic's cache writes are recorded per
// call, step and task and priced apart; reasoning items / thinking blocks go back within a segment.

const LIMIT = 12;
let stack: AgentStack;
useAgentStack((started) => (stack = started));

const api = () => createCaller({ prisma: stack.db, actor: "wire-test", principal: testPrincipal("wire-test") });
const stats = async () => (await (await fetch(`${stack.model.url}/control/stats`)).json()) as { reasoningReturned: number; byRoute: Record<string, number> };

async function auditThrough(provider: "scripted-responses" | "scripted-anthropic") {
  const profile = await createTestProfile(stack.db, provider, {
    provider,
    ...(provider === "scripted-anthropic" ? { cachedPricePerMTok: "0.04", cacheWritePricePerMTok: "0.50" } : {}),
  });
  const before = await stats();
  const { taskId, runId } = await launchDemoWithProfile(stack, { limit: LIMIT, profile });
  expect(await stack.waitForTaskStatus(taskId, undefined, 180_000)).toBe("completed");
  const ev = await loadRunEvidence(stack.db, { taskId, runId });
  expect(ev.csv).toBe(await expectedLicenseCsv(WORKSPACE, LIMIT));
  const calls = await stack.db.modelCall.findMany({ where: { run: { taskId }, status: "ok" }, orderBy: { createdAt: "asc" } });
  const after = await stats();
  return { taskId, runId, profile, calls, ev, served: after.byRoute, returned: after.reasoningReturned - before.reasoningReturned };
}

describe("the demo through the other adapters", () => {
  it("Responses: completes, most of each prompt from the cache, every turn's reasoning item sent back", async () => {
    const { calls, served, returned } = await auditThrough("scripted-responses");
    expect(served.responses ?? 0).toBeGreaterThanOrEqual(calls.length);
    const prompt = calls.reduce((n, c) => n + c.promptTokens, 0);
    const cached = calls.reduce((n, c) => n + c.cachedTokens, 0);
    expect(cached / prompt).toBeGreaterThan(0.5);
    expect(calls.every((c) => c.reasoningTokens > 0)).toBe(true);
    // Each turn after the first in a segment sends the earlier turns' reasoning items back.
    expect(returned).toBeGreaterThan(calls.length);
  });

  it("Messages: completes, cache reads and writes per call, priced apart, on the step, the task and its CSV row", async () => {
    const { taskId, calls, profile } = await auditThrough("scripted-anthropic");
    const prompt = calls.reduce((n, c) => n + c.promptTokens, 0);
    const cached = calls.reduce((n, c) => n + c.cachedTokens, 0);
    const written = calls.reduce((n, c) => n + (c.cacheWriteTokens ?? 0), 0);
    // Most of each prompt read back (the goal is three quarters): turns wider than Anthropic's
    // 20-block lookback and the checkpoint's summary request included (adapters/messages.ts).
    expect(cached / prompt).toBeGreaterThan(0.75);
    expect(written).toBeGreaterThan(0);
    expect(calls[0]!.cacheWriteTokens).toBeGreaterThan(0);
    // Priced from the profile: uncached input 0.40, reads 0.04, writes 0.50, output 1.60 per MTok.
    for (const c of calls) {
      const w = c.cacheWriteTokens ?? 0;
      const usd = ((c.promptTokens - c.cachedTokens - w) * 0.4 + c.cachedTokens * 0.04 + w * 0.5 + c.completionTokens * 1.6) / 1e6;
      expect(Number(c.costUsd)).toBeCloseTo(usd, 7);
      expect(c.priceVersion).toBe(`profile:${profile}`);
    }
    const step = await stack.db.step.findFirstOrThrow({ where: { run: { taskId }, stepId: "model-0" } });
    expect(step.cacheWriteTokens).toBe(calls[0]!.cacheWriteTokens);
    const split = await api().cost.task({ taskId });
    expect(split.runs.reduce((n, r) => n + r.cacheWriteTokens, 0)).toBe(written);
    const summary = await stack.db.taskCost.findUniqueOrThrow({ where: { taskId } });
    expect(Number(summary.cacheWriteTokens)).toBe(written);
    const rows = await taskCostRows({ prisma: stack.db, filters: { profile, bucket: "day" } });
    const csv = taskCostCsv(rows.filter((r) => r.taskId === taskId))
      .trimEnd()
      .split("\r\n");
    expect(csv[1]!.split(",").slice(-3)).toEqual([String(cached), String(written), String(calls.reduce((n, c) => n + c.reasoningTokens, 0))]);
  });

  it("Messages: a refusal in Anthropic's words mid-run compacts to the stated limit and the run completes", async () => {
    const probe = await auditThrough("scripted-anthropic");
    const prompts = probe.calls.filter((c) => c.cause === "productive").map((c) => c.promptTokens);
    // A limit the largest prompts exceed, with room under it (after compaction to 80 %) for the
    // demo's widest turn: one turn reads a batch of files (~5,000 tokens), and a limit below the
    // compacted state plus that turn ends the run with a saturation alert, as it should.
    const limit = Math.floor(Math.max(...prompts) * 0.8);
    await stack.armFaults({ kind: "context_length", maxPromptTokens: limit, route: "messages", count: 1_000 });
    try {
      const profile = await createTestProfile(stack.db, "anthropic-refusal", {
        provider: "scripted-anthropic",
        contextWindow: 100_000,
        saturationRatio: 0.8,
        checkpointEverySteps: 1_000,
        autoResumeMax: 0,
      });
      const { taskId, runId } = await launchDemoWithProfile(stack, { limit: LIMIT, profile });
      expect(await stack.waitForTaskStatus(taskId, undefined, 180_000)).toBe("completed");
      const refused = await stack.db.modelCall.findMany({ where: { runId, status: "error" }, select: { stepId: true, error: true } });
      expect(refused.length).toBeGreaterThanOrEqual(1);
      expect(refused[0]!.error).toContain("prompt is too long");
      expect(parseContextLimit(refused[0]!.error ?? "").limitTokens).toBe(limit);
      const ev = await loadRunEvidence(stack.db, { taskId, runId });
      expect(ev.steps.some((s) => s.stepId.startsWith("compact-") && s.status === "completed")).toBe(true);
    } finally {
      await disarmFaults(stack);
    }
  });
});
