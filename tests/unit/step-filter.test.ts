import { describe, expect, it } from "vitest";
import { absoluteUtc, shortId } from "../../components/tasks/format.ts";
import {
  buildSegments,
  foldRepeats,
  isFiltering,
  parseStepFilter,
  stepMatches,
  timelineItems,
  writeStepFilter,
  type FilterableStep,
} from "../../components/tasks/step-filter.ts";
import { waterfallData } from "../../components/tasks/waterfall.tsx";
import { runOverviewData } from "../../components/tasks/run-overview.tsx";

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

  it("a list of the newest steps numbers its segments and positions as the whole list does", () => {
    // The whole list's tail from model-1 on: the server says 3 steps come before it, in segment 2 (from an interval checkpoint), which started before.
    const tail = steps.slice(3);
    const window = { before: 3, firstSegment: { n: 2, fromReason: "interval", partial: false } };
    const whole = buildSegments(steps);
    const part = buildSegments(tail, window);
    expect(part.map((s) => [s.key, s.fromReason, s.steps.length])).toEqual(whole.slice(1).map((s) => [s.key, s.fromReason, s.steps.length]));
    const items = (segs: typeof whole, before?: number) =>
      timelineItems(segs, { runId: null, collapsed: new Set(), matches: () => true, filtering: false, runCount: 2, before })
        .filter((i) => i.type === "step")
        .map((i) => (i.type === "step" ? `${i.step.stepId}@${i.position}` : ""));
    expect(items(part, window.before)).toEqual(items(whole).slice(3));
    // A list that starts mid-segment says so on that segment.
    expect(buildSegments(steps.slice(4), { before: 4, firstSegment: { n: 2, fromReason: "interval", partial: true } })[0]).toMatchObject({
      key: "r1#2",
      partial: true,
    });
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

describe("foldRepeats: identical repeats on the timeline", () => {
  const loop = () => {
    const steps = [step("r", "model-0"), step("r", "tool-0-0", { argsKey: "aaa", summary: "read_file(README.md)" })];
    for (let n = 1; n <= 4; n++)
      steps.push(step("r", `model-${n}`), step("r", `tool-${n}-0`, { tool: "list_files", argsKey: "bbb", summary: "list_files(.)" }));
    steps.push(step("r", "model-5"), step("r", "tool-5-0", { tool: "list_files", argsKey: "ccc", summary: "list_files(src)" }));
    return steps;
  };

  it("folds 2+ consecutive turns making the same call with the same arguments into one ×N entry", () => {
    const parts = foldRepeats(loop().map((s, i) => ({ step: s, position: i + 1 })));
    expect(parts.map((p) => (p.type === "one" ? p.step.stepId : `×${p.fold.times}`))).toEqual(["model-0", "tool-0-0", "×4", "model-5", "tool-5-0"]);
    const fold = parts.find((p) => p.type === "fold")!;
    if (fold.type !== "fold") throw new Error("no fold");
    expect(fold.fold).toMatchObject({ key: "fold:r:model-1", times: 4, tools: ["list_files"], summary: "list_files(.)" });
    expect(fold.fold.steps.map((s) => s.stepId)).toEqual(["model-1", "tool-1-0", "model-2", "tool-2-0", "model-3", "tool-3-0", "model-4", "tool-4-0"]);
    expect(fold.fold.positions).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("never folds different arguments, turns without tool calls, or a single turn", () => {
    const steps = [
      step("r", "model-0"),
      step("r", "tool-0-0", { argsKey: "a" }),
      step("r", "model-1"),
      step("r", "tool-1-0", { argsKey: "b" }),
      step("r", "model-2"),
      step("r", "model-3"),
    ];
    expect(foldRepeats(steps.map((s, i) => ({ step: s, position: i + 1 }))).every((p) => p.type === "one")).toBe(true);
  });

  it("timelineItems shows a fold row, its steps only when expanded, and no folds while filtering", () => {
    const segs = buildSegments(loop());
    const base = { runId: null, collapsed: new Set<string>(), matches: () => true, filtering: false, runCount: 1 };
    const folded = timelineItems(segs, base);
    expect(folded.filter((i) => i.type === "fold")).toHaveLength(1);
    expect(folded.filter((i) => i.type === "step")).toHaveLength(4);
    const open = timelineItems(segs, { ...base, expandedFolds: new Set(["fold:r:model-1"]) });
    expect(open.filter((i) => i.type === "step")).toHaveLength(12);
    expect(open.filter((i) => i.type === "step" && i.inFold)).toHaveLength(8);
    const filtered = timelineItems(segs, { ...base, filtering: true, matches: (s) => s.kind === "tool" });
    expect(filtered.some((i) => i.type === "fold")).toBe(false);
    expect(filtered.filter((i) => i.type === "step")).toHaveLength(6);
  });
});

describe("runOverviewData: the whole run's time in columns", () => {
  it("marks busy time, failures, retries and segment starts; waits stay empty", () => {
    const t = Date.UTC(2026, 11, 1, 9, 0, 0);
    const at = (s: number) => new Date(t + s * 1000);
    const mk = (stepId: string, from: number, to: number, patch: Partial<FilterableStep> = {}) => ({
      ...step("r", stepId),
      startedAt: at(from),
      endedAt: at(to),
      durationMs: (to - from) * 1000,
      ...patch,
    });
    // 0–10 s busy, a 70 s wait, then a failed step and a retried one; a checkpoint cuts the segment at 10 s.
    const steps = [
      mk("model-0", 0, 5),
      mk("checkpoint-1", 5, 10, { kind: "checkpoint", checkpointReason: "interval" }),
      mk("model-1", 80, 90, { status: "failed" }),
      mk("tool-1-0", 90, 100, { attempts: 3 }),
    ];
    const data = runOverviewData(buildSegments(steps), 10, Date.now())!;
    expect(data.t1 - data.t0).toBe(100_000);
    expect(data.bins.map((b) => Math.round(b.busy * 10) / 10)).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 1, 1]);
    expect(data.bins[8]).toMatchObject({ failed: true, firstKey: "r:model-1" });
    expect(data.bins[9]).toMatchObject({ retried: true, firstKey: "r:tool-1-0" });
    expect(data.bins[0]!.firstKey).toBe("r:model-0");
    expect(data.marks.map((m) => [m.label, m.at])).toEqual([
      ["1", 0],
      ["2", 0.8],
    ]);
  });
});
