import { describe, expect, it } from "vitest";
import { costTaskOutput, costTasksOutput } from "../../server/api/output-schemas-cost.ts";
import { escalationListOutput } from "../../server/api/output-schemas-escalation.ts";

const totals = {
  taskId: "t1",
  usd: 0.5,
  productiveUsd: 0.4,
  overheadUsd: 0.05,
  wasteUsd: 0.05,
  estimatedUsd: 0,
  estimatedCalls: 0,
  calls: 7,
  tokens: 1200,
  steps: 6,
  priceVersion: "genai-prices@0.1.8",
  priceVersions: ["genai-prices@0.1.8"],
};

const byCause = { productive: 0.4, retry: 0.05, replay: 0, checkpoint: 0.05, compaction: 0, discarded: 0, restart: 0 };

const run = {
  runId: "r1",
  runCause: "launch",
  status: "completed",
  startedAt: new Date("2026-12-03T10:00:00Z"),
  calls: 7,
  promptTokens: 1000,
  cachedTokens: 200,
  completionTokens: 200,
  reasoningTokens: 0,
  cacheWriteTokens: 0,
  usd: 0.5,
  byCause,
  estimatedUsd: 0,
  estimatedCalls: 0,
  unbilledCalls: 0,
  priceVersions: ["genai-prices@0.1.8"],
};

const row = {
  id: "e1",
  taskId: "t1",
  runId: "r1",
  goal: "audit",
  taskStatus: "waiting_for_human",
  reason: "loop",
  message: "the same call three times",
  status: "open",
  decision: null,
  decidedBy: null,
  decidedAt: null,
  applyInMs: 0,
  claimedBy: null,
  claimedAt: null,
  assigneeRole: "handler",
  dueAt: new Date("2026-12-03T11:00:00Z"),
  overdue: false,
  createdAt: new Date("2026-12-03T10:00:00Z"),
  costUsd: 0.01,
  taskCostUsd: 0.5,
  notifications: 1,
};

function issuesOf(result: { success: boolean; error?: { issues: { code: string; path: PropertyKey[]; keys?: string[] }[] } }) {
  return (result.error?.issues ?? []).map((i) => ({ code: i.code, path: i.path.join("."), keys: i.keys ?? [] }));
}

describe("strict output schemas of the documented cost and escalation procedures", () => {
  it("accept the documented shapes", () => {
    expect(costTasksOutput.safeParse([totals]).success).toBe(true);
    expect(costTaskOutput.safeParse({ runs: [run], totals }).success).toBe(true);
    expect(escalationListOutput.safeParse([row]).success).toBe(true);
  });

  it("refuse a field the contract does not name, and say which", () => {
    expect(issuesOf(costTasksOutput.safeParse([{ ...totals, secretInternal: 1 }]))).toEqual([
      { code: "unrecognized_keys", path: "0", keys: ["secretInternal"] },
    ]);
    expect(issuesOf(costTaskOutput.safeParse({ runs: [{ ...run, byCause: { ...byCause, mystery: 1 } }], totals }))).toEqual([
      { code: "unrecognized_keys", path: "runs.0.byCause", keys: ["mystery"] },
    ]);
    expect(issuesOf(escalationListOutput.safeParse([{ ...row, evidence: {} }]))).toEqual([{ code: "unrecognized_keys", path: "0", keys: ["evidence"] }]);
  });

  it("refuse a missing cause, a negative count and a money string", () => {
    const { restart: _restart, ...fewerCauses } = byCause;
    expect(issuesOf(costTaskOutput.safeParse({ runs: [{ ...run, byCause: fewerCauses }], totals })).map((i) => i.path)).toEqual(["runs.0.byCause.restart"]);
    expect(issuesOf(costTasksOutput.safeParse([{ ...totals, calls: -1 }])).map((i) => i.path)).toEqual(["0.calls"]);
    expect(issuesOf(escalationListOutput.safeParse([{ ...row, costUsd: "$0.01" }])).map((i) => i.path)).toEqual(["0.costUsd"]);
  });
});
