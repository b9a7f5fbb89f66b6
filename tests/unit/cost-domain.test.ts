import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { correctedEarlierCause, costSideOf, COST_CAUSES } from "../../server/domain/cost-causes.ts";
import {
  costFiltersSchema,
  failureClassOf,
  outcomeOf,
  OUTCOME_CSV_HEADER,
  TASK_CSV_HEADER,
  taskCostCsv,
  pricesDiffer,
  reportedFailureClass,
  outcomeTableCells,
  outcomeTableCsv,
  percentileOfHistogram,
  priceVersionsOf,
  type OutcomeRow,
} from "../../server/domain/cost-rollup.ts";
import { PRICE_PACKAGE_VERSION, PRICE_TABLE_VERSION, priceModelCall } from "../../server/domain/cost.ts";
import { parseSince } from "../../scripts/lib/cli-costs.ts";

const NO_OVERRIDE = { inputPerMTok: null, cachedPerMTok: null, outputPerMTok: null };

describe("cost pricing", () => {
  it("names the installed price package's version", () => {
    const require = createRequire(import.meta.url);
    const pkgDir = dirname(require.resolve("@pydantic/genai-prices"));
    const pkg = JSON.parse(readFileSync(join(pkgDir, "..", "package.json"), "utf8")) as { version: string };
    expect(PRICE_PACKAGE_VERSION).toBe(pkg.version);
  });

  it("prices cached tokens as cached with the package and with a profile override", () => {
    const uncached = priceModelCall({
      model: "gpt-4o",
      usage: { promptTokens: 10_000, cachedTokens: 0, completionTokens: 0 },
      billed: true,
      prices: NO_OVERRIDE,
      profileName: "p",
    });
    const cached = priceModelCall({
      model: "gpt-4o",
      usage: { promptTokens: 10_000, cachedTokens: 8_000, completionTokens: 0 },
      billed: true,
      prices: NO_OVERRIDE,
      profileName: "p",
    });
    expect(uncached.priceVersion).toBe(PRICE_TABLE_VERSION);
    expect(uncached.usd).toBeGreaterThan(0);
    expect(cached.usd).toBeLessThan(uncached.usd);
    const own = priceModelCall({
      model: "x",
      usage: { promptTokens: 1000, cachedTokens: 400, completionTokens: 100 },
      billed: true,
      prices: { inputPerMTok: 10, cachedPerMTok: 1, outputPerMTok: 30 },
      profileName: "mine",
    });
    // 600 × $10/M + 400 × $1/M + 100 × $30/M
    expect(own.usd).toBeCloseTo(0.006 + 0.0004 + 0.003, 12);
    expect(own.priceVersion).toBe("profile:mine");
  });

  it("an unbilled attempt costs 0 whatever its tokens", () => {
    const r = priceModelCall({
      model: "gpt-4o",
      usage: { promptTokens: 50_000, cachedTokens: 0, completionTokens: 0 },
      billed: false,
      prices: NO_OVERRIDE,
      profileName: "p",
    });
    expect(r.usd).toBe(0);
  });
});

describe("cost causes", () => {
  it("a re-executed step turns the earlier kept attempt into retry (higher attempt) or restart (same attempt)", () => {
    expect(correctedEarlierCause({ earlier: "productive", earlierAttempt: 0, currentAttempt: 1 })).toBe("retry");
    expect(correctedEarlierCause({ earlier: "checkpoint", earlierAttempt: 2, currentAttempt: 2 })).toBe("restart");
    expect(correctedEarlierCause({ earlier: "discarded", earlierAttempt: 0, currentAttempt: 1 })).toBeNull();
    expect(COST_CAUSES.map(costSideOf)).toEqual(["productive", "waste", "waste", "overhead", "overhead", "waste", "waste"]);
  });
});

describe("cost rollup vocabulary", () => {
  it("maps statuses and end reasons to outcomes and failure classes", () => {
    expect(["completed", "waiting_for_human", "queued", "dead_end"].map((s) => outcomeOf(s))).toEqual(["completed", "waiting", "running", "dead_end"]);
    // Task.outcome splits a completed task; it means nothing for a task that has not completed (a resumed one keeps a stale value).
    expect(outcomeOf("completed", "completed_with_gaps")).toBe("completed_with_gaps");
    expect(outcomeOf("completed", "completed")).toBe("completed");
    expect(outcomeOf("running", "completed_with_gaps")).toBe("running");
    expect(failureClassOf("failed", "budget_exhausted")).toBe("budget");
    expect(failureClassOf("failed", "transient")).toBe("transient");
    expect(failureClassOf("waiting_for_human", "tool_failure")).toBe("tool_failure");
    expect(failureClassOf("dead_end", null)).toBe("dead_end");
    expect(failureClassOf("cancelled", "cancelled_by_user")).toBeNull();
    // A cancel by a batch or an escalation decision ends the run otherwise: still no failure class "error".
    expect(reportedFailureClass("cancelled", "error")).toBeNull();
    expect(reportedFailureClass("cancelled", "budget_exhausted")).toBeNull();
    expect(reportedFailureClass("failed", "budget_exhausted")).toBe("budget");
    expect(failureClassOf("completed", "transient")).toBeNull();
  });

  it("rejects bad filters naming the field", () => {
    const bad = costFiltersSchema.safeParse({ from: "2026-13-40" });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(["from"]);
    const reversed = costFiltersSchema.safeParse({ from: "2026-11-10", to: "2026-11-01" });
    expect(reversed.error?.issues[0]?.message).toMatch(/from must be on or before to/);
  });

  it("the CSV holds exactly the table's cells, quoted where needed", () => {
    const rows: OutcomeRow[] = [
      {
        profile: "a, b",
        model: "m",
        launched: 4,
        completed: 1,
        stepsPerCompleted: 12,
        escalationsPerTask: 0.25,
        usd: 0.5,
        costPerCompletedUsd: 0.5,
        estimatedUsd: 0,
        priceVersions: ["genai-prices@0.1.8"],
      },
      {
        profile: "z",
        model: "m2",
        launched: 2,
        completed: 0,
        stepsPerCompleted: null,
        escalationsPerTask: 0,
        usd: 0.01,
        costPerCompletedUsd: null,
        estimatedUsd: 0.01,
        priceVersions: ["genai-prices@0.1.8", "profile:z"],
      },
    ];
    const cells = outcomeTableCells(rows);
    expect(cells).toEqual([
      ["a, b", "m", "4", "1", "25%", "12.0", "0.25", "$0.5000", "$0.5000", "genai-prices@0.1.8", "no"],
      ["z", "m2", "2", "0", "0%", "—", "0.00", "$0.0100*", "—", "genai-prices@0.1.8 + profile:z", "yes"],
    ]);
    const lines = outcomeTableCsv(rows).trimEnd().split("\r\n");
    expect(lines).toHaveLength(3);
    // CSV is data: the same rows, plain numbers (no $ or %), empty where the table shows "—".
    expect(lines[0]).toBe(OUTCOME_CSV_HEADER.join(","));
    expect(lines[1]).toBe('"a, b",m,4,1,0.25,12,0.25,0.5,0.5,genai-prices@0.1.8,no');
    expect(lines[2]).toBe("z,m2,2,0,0,,0,0.01,,genai-prices@0.1.8 + profile:z,yes");
  });
});

describe("cli costs --since", () => {
  it("takes a date or a number of days", () => {
    expect(parseSince("2026-11-01")).toBe("2026-11-01");
    expect(parseSince("7d", new Date("2026-12-01T10:00:00Z"))).toBe("2026-11-24");
    expect(() => parseSince("yesterday")).toThrow(/--since: a date YYYY-MM-DD or a duration like 30d, got "yesterday"/);
    expect(() => parseSince("0d")).toThrow(/between 1 and 3650/);
  });

  it("percentiles of a histogram follow percentile_cont (linear between ranks)", () => {
    // Values 2, 3, 3, 4, 10 (N = 5): median at position 2 → 3; p90 at 3.6 → 4 + 0.6·(10 − 4) = 7.6;
    // p25 at 1 → 3; p0 → 2; p100 → 10.
    const bins = [
      { value: 10, count: 1 },
      { value: 3, count: 2 },
      { value: 2, count: 1 },
      { value: 4, count: 1 },
      { value: 99, count: 0 },
    ];
    expect(percentileOfHistogram(bins, 0.5)).toBe(3);
    expect(percentileOfHistogram(bins, 0.9)).toBeCloseTo(7.6, 10);
    expect(percentileOfHistogram(bins, 0.25)).toBe(3);
    expect(percentileOfHistogram(bins, 0)).toBe(2);
    expect(percentileOfHistogram(bins, 1)).toBe(10);
    expect(percentileOfHistogram([{ value: 7, count: 1 }], 0.9)).toBe(7);
    expect(percentileOfHistogram([], 0.5)).toBeNull();
    expect(() => percentileOfHistogram(bins, 1.5)).toThrow(/p: must be between 0 and 1/);
  });

  it("price tables of rollup keys are split, deduplicated and sorted", () => {
    expect(priceVersionsOf(["profile:b + genai-prices@0.1.8", "", null, "genai-prices@0.1.8"])).toEqual(["genai-prices@0.1.8", "profile:b"]);
    expect(priceVersionsOf([])).toEqual([]);
  });
});

describe("the per-task CSV", () => {
  it("is one row per task: ISO launch time, outcome and failure class by the table's rules, plain numbers, formulas neutralised", () => {
    const csv = taskCostCsv([
      {
        taskId: "task_1",
        launchedAt: new Date("2026-12-02T05:14:00.250Z"),
        profile: "=cmd",
        model: "scripted",
        status: "cancelled",
        lastEndReason: "error",
        steps: 12,
        tokens: 34_567,
        costUsd: 0.0123456789,
        wasteUsd: 0,
      },
      {
        taskId: "task_2",
        launchedAt: new Date("2026-12-02T06:00:00Z"),
        profile: "p",
        model: "m",
        status: "failed",
        lastEndReason: "budget_exhausted",
        steps: 3,
        tokens: 0,
        cachedTokens: 1024,
        cacheWriteTokens: 2048,
        reasoningTokens: 64,
        costUsd: 1.5,
        wasteUsd: 0.25,
        template: "weekly-audit",
        evalCase: "audits/audit-8",
        checkpointSteps: 2,
        humanSteps: 1,
      },
    ]);
    const lines = csv.trimEnd().split("\r\n");
    expect(lines[0]).toBe(TASK_CSV_HEADER.join(","));
    expect(lines[0]).toBe(
      "Task id,Launched at (UTC),Profile,Model,Outcome,Failure class,Budget steps (model + tool),Tokens billed (every model call),Cost (USD),Waste (USD),Template,Eval case,Checkpoint steps,Human steps,Cached prompt tokens,Cache write tokens,Reasoning tokens",
    );
    expect(lines[1]).toBe("task_1,2026-12-02T05:14:00Z,'=cmd,scripted,cancelled,,12,34567,0.01234568,0,,,0,0,0,0,0");
    expect(lines[2]).toBe("task_2,2026-12-02T06:00:00Z,p,m,failed,budget,3,0,1.5,0.25,weekly-audit,audits/audit-8,2,1,1024,2048,64");
    expect(csv).not.toMatch(/[$%]/);
  });
});

describe("mixed price tables only when the prices differ", () => {
  type P = { inputPerMTok: number | null; cachedPerMTok: number | null; outputPerMTok: number | null };
  const same: P = { inputPerMTok: 1, cachedPerMTok: null, outputPerMTok: 2 };
  const prices = new Map<string, P>([
    ["a", same],
    ["b", { inputPerMTok: 1, cachedPerMTok: 1, outputPerMTok: 2 }],
    ["c", { inputPerMTok: 3, cachedPerMTok: null, outputPerMTok: 2 }],
  ]);
  it("two profiles' own tables at the same prices are one price", () => {
    expect(pricesDiffer(["profile:a", "profile:b"], prices)).toBe(false);
    expect(pricesDiffer(["profile:a", "profile:a (model not listed)"], prices)).toBe(false);
    expect(pricesDiffer(["genai-prices@0.1.8"], prices)).toBe(false);
  });
  it("differing prices, or the package's table beside a profile's, are mixed", () => {
    expect(pricesDiffer(["profile:a", "profile:c"], prices)).toBe(true);
    expect(pricesDiffer(["genai-prices@0.1.8", "profile:a"], prices)).toBe(true);
    expect(pricesDiffer(["profile:a", "profile:gone"], prices)).toBe(true);
  });
});
