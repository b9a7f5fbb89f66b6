import { describe, expect, it } from "vitest";
import { absoluteUtc, shortId } from "../../components/tasks/format.ts";
import {
  buildSegments,
  isFiltering,
  parseStepFilter,
  stepMatches,
  timelineItems,
  writeStepFilter,
  type FilterableStep,
} from "../../components/tasks/step-filter.ts";
import { waterfallData } from "../../components/tasks/waterfall.tsx";

let clock = Date.UTC(2026, 11, 1, 8, 0, 0);
function step(runId: string, stepId: string, patch: Partial<FilterableStep & { durationMs: number | null }> = {}) {
  const startedAt = new Date(clock);
  clock += 1_000;
  const endedAt = new Date(clock);
  clock += 100;
  const kind = stepId.startsWith("model") ? "model" : stepId.startsWith("tool") ? "tool" : stepId.startsWith("checkpoint") ? "checkpoint" : "human";
  return {
    runId,
    stepId,
    index: 0,
    kind,
    tool: kind === "tool" ? "read_file" : null,
    status: "completed",
    summary: "",
    attempts: 1,
    costUsd: kind === "model" ? 0.01 : 0,
    checkpointReason: null,
    startedAt,
    endedAt,
    error: null,
    promptTokens: 0,
    cachedTokens: 0,
    completionTokens: 0,
    durationMs: 1_000,
    ...patch,
  };
}

describe("step filter (URL ↔ filter, matching)", () => {
  it("reads and writes the URL params, ignoring unknown kinds", () => {
    const f = parseStepFilter(new URLSearchParams("kind=tool,bogus,model&tool=read_file&failed=1&retried=1&q=%20ENOENT%20&step=x"));
    expect(f).toEqual({ kinds: ["tool", "model"], tool: "read_file", failed: true, retried: true, dedup: false, text: "ENOENT" });
    expect(isFiltering(f)).toBe(true);
    const written = writeStepFilter(new URLSearchParams("step=x&kind=human"), { ...f, kinds: [], failed: false });
    expect(written.get("kind")).toBeNull();
    expect(written.get("failed")).toBeNull();
    expect(written.get("retried")).toBe("1");
    expect(written.get("step")).toBe("x");
    expect(isFiltering(parseStepFilter(new URLSearchParams("")))).toBe(false);
  });

  it("every active part must hold; text search passes only the server's matches", () => {
    const failedTool = step("r1", "tool-1-0", { status: "failed" });
    const retriedModel = step("r1", "model-2", { attempts: 3 });
    const dedup = step("r1", "tool-3-0", { summary: "send_email(a@b.c) · deduplicated: the ledger returned the original result", tool: "send_email" });
    const f = parseStepFilter(new URLSearchParams("failed=1"));
    expect([failedTool, retriedModel, dedup].filter((s) => stepMatches(s, f, null)).map((s) => s.stepId)).toEqual(["tool-1-0"]);
    const retried = parseStepFilter(new URLSearchParams("retried=1&kind=model"));
    expect([failedTool, retriedModel, dedup].filter((s) => stepMatches(s, retried, null)).map((s) => s.stepId)).toEqual(["model-2"]);
    expect([failedTool, retriedModel, dedup].filter((s) => stepMatches(s, parseStepFilter(new URLSearchParams("dedup=1")), null)).map((s) => s.stepId)).toEqual(
      ["tool-3-0"],
    );
    expect(
      [failedTool, retriedModel, dedup].filter((s) => stepMatches(s, parseStepFilter(new URLSearchParams("tool=send_email")), null)).map((s) => s.stepId),
    ).toEqual(["tool-3-0"]);
    const text = parseStepFilter(new URLSearchParams("q=enoent"));
    expect(stepMatches(failedTool, text, null)).toBe(false); // search still loading
    expect(stepMatches(failedTool, text, new Set(["r1:tool-1-0"]))).toBe(true);
    expect(stepMatches(dedup, text, new Set(["r1:tool-1-0"]))).toBe(false);
  });
});

describe("segments and timeline rows", () => {
  const steps = [
    step("r1", "model-0"),
    step("r1", "tool-0-0"),
    step("r1", "checkpoint-1", { checkpointReason: "interval" }),
    step("r1", "model-1"),
    step("r1", "checkpoint-1-0", { checkpointReason: "before_risky" }),
    step("r1", "tool-1-0", { status: "failed" }),
    step("r2", "model-2", { attempts: 2 }),
  ];

  it("cuts a run after cutting checkpoints only, and at every new run", () => {
    const segs = buildSegments(steps);
    expect(segs.map((s) => [s.key, s.fromReason, s.steps.length, s.failed, s.retried])).toEqual([
      ["r1#1", null, 3, 0, 0],
      ["r1#2", "interval", 3, 1, 0],
      ["r2#1", null, 1, 0, 1],
    ]);
    expect(segs[0]!.costUsd).toBeCloseTo(0.01);
  });

  it("lists run headers, segment headers and steps; filters drop empty segments; collapsed segments hide their steps; one run only", () => {
    const segs = buildSegments(steps);
    const all = timelineItems(segs, { runId: null, collapsed: new Set(), matches: () => true, filtering: false, runCount: 2 });
    expect(all.map((i) => i.type)).toEqual(["run", "segment", "step", "step", "step", "segment", "step", "step", "step", "run", "segment", "step"]);
    const failed = timelineItems(segs, { runId: null, collapsed: new Set(), matches: (s) => s.status === "failed", filtering: true, runCount: 2 });
    expect(failed.map((i) => (i.type === "step" ? `${i.step.stepId}@${i.position}` : i.type))).toEqual(["run", "segment", "tool-1-0@6"]);
    const collapsed = timelineItems(segs, { runId: null, collapsed: new Set(["r1#1"]), matches: () => true, filtering: false, runCount: 2 });
    expect(collapsed.filter((i) => i.type === "step")).toHaveLength(4);
    const run2 = timelineItems(segs, { runId: "r2", collapsed: new Set(), matches: () => true, filtering: false, runCount: 2 });
    expect(run2.map((i) => (i.type === "step" ? `${i.step.stepId}@${i.position}` : i.type))).toEqual(["segment", "model-2@7"]);
  });
});

describe("waterfall data", () => {
  it("puts each step at its offset from the first, paints waits ≥ 250 ms between steps as gaps", () => {
    const t = Date.UTC(2026, 11, 1, 8, 0, 0);
    const a = step("r", "model-0", { startedAt: new Date(t), endedAt: new Date(t + 2_000) });
    const b = step("r", "tool-0-0", { startedAt: new Date(t + 2_100), endedAt: new Date(t + 2_600) });
    const c = step("r", "model-1", { startedAt: new Date(t + 62_600), endedAt: new Date(t + 63_600), attempts: 3 });
    const d = waterfallData([a, b, c], t + 100_000);
    expect(d.map((x) => [x.label, x.base, x.gap, x.dur])).toEqual([
      ["model-0", 0, 0, 2],
      ["tool-0-0", 2.1, 0, 0.5],
      ["model-1 ×3", 2.6, 60, 1],
    ]);
    expect(d[2]!.gapMs).toBe(60_000);
  });
});

describe("formats", () => {
  it("writes times as unambiguous UTC and ids by their tail", () => {
    expect(absoluteUtc(new Date(Date.UTC(2026, 11, 1, 8, 19, 6)))).toBe("2026-12-01 08:19:06 UTC");
    expect(absoluteUtc(null)).toBe("—");
    expect(shortId("task_01kb2x7p2qk9d")).toBe("x7p2qk9d");
  });
});
