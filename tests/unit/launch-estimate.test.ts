import { describe, expect, it } from "vitest";
import { estimateLaunch } from "../../server/domain/launch-estimate.ts";

// The estimate the launch form shows before Launch ("a launch shows what similar tasks cost
// before it starts"): a goal from the profile's completed goal tasks, a demo scaled per package.

describe("estimateLaunch", () => {
  it("says there is no history yet when nothing completed", () => {
    const e = estimateLaunch({ history: [], profile: "scripted", demo: { kind: "license-audit", limit: 1000 } });
    expect(e).toMatchObject({ basis: "none", method: "per-unit", samples: 0, costP50Usd: null, costP90Usd: null });
    expect(e.note).toBe("No history yet: no completed license-audit task of profile scripted.");
    expect(estimateLaunch({ history: [], profile: "p" }).note).toBe("No history yet: no completed goal task of profile p.");
  });

  it("scales a demo's cost and steps per package to the limit, naming the limits seen", () => {
    // $0.001, $0.002, $0.003 per package; 3 steps per package.
    const history = [
      { steps: 30, costUsd: 0.01, limit: 10 },
      { steps: 60, costUsd: 0.04, limit: 20 },
      { steps: 150, costUsd: 0.15, limit: 50 },
    ];
    const e = estimateLaunch({ history, profile: "scripted", demo: { kind: "license-audit", limit: 1000 } });
    expect(e).toMatchObject({ basis: "history", method: "per-unit", samples: 3, limits: { min: 10, max: 50 } });
    expect(e.costP50Usd).toBe(2);
    expect(e.costP90Usd).toBeCloseTo(2.8, 6); // percentile_cont: 0.002 + 0.8 × 0.001 per package
    expect(e.stepsP50).toBe(3000);
    expect(e.note).toBe(
      "From 3 completed license-audit tasks of profile scripted (10–50 packages each), scaled per package: median $0.0020 per package × 1,000 = $2.00 and 3,000 steps, p90 $2.80 and 3,000 steps.",
    );
  });

  it("gives a goal the median and p90 of the profile's goal tasks, ignoring demo rows", () => {
    const history = [
      { steps: 4, costUsd: 0.1, limit: null },
      { steps: 8, costUsd: 0.3, limit: null },
      { steps: 100, costUsd: 9, limit: 40 },
    ];
    const e = estimateLaunch({ history, profile: "gpt" });
    expect(e).toMatchObject({ basis: "history", method: "goal", samples: 2, costP50Usd: 0.2, stepsP50: 6, stepsP90: 7.6, limits: null });
    expect(e.note).toBe("From 2 completed tasks of profile gpt: median $0.20 and 6 steps, p90 $0.28 and 8 steps.");
  });

  it("says files for the MCP demo", () => {
    const e = estimateLaunch({ history: [{ steps: 9, costUsd: 0, limit: 3 }], profile: "mcp-audit", demo: { kind: "mcp-audit", limit: 6 } });
    expect(e.note).toContain("(3 files each), scaled per file");
    expect(e.stepsP50).toBe(18);
  });
});
