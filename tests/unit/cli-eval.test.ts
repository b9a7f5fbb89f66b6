import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { evalGateFailures } from "../../scripts/lib/cli-eval.ts";
import type { EvalProfileReport } from "../../server/domain/eval-report.ts";
import { childNodeArgs } from "../support/child-bundles.ts";

const profile = (name: string, passRate: number | null, notJudged = 0) =>
  ({ profile: name, passRate, notJudged, ended: 4, judged: 4 - notJudged }) as EvalProfileReport;

describe("eval gates", () => {
  it("fails --min-pass-rate for each profile below it, and a profile with nothing ended", () => {
    const report = { report: [profile("a", 1), profile("b", 0.5), profile("c", null)], diff: null };
    expect(evalGateFailures(report, { minPassRate: 0.9 }).map((f) => f.message)).toEqual(["b: pass rate 0.5 < 0.9", "c: pass rate n/a < 0.9"]);
    expect(evalGateFailures(report, { minPassRate: 0.5 }).map((f) => f.gate)).toEqual(["min-pass-rate"]);
    expect(evalGateFailures(report, {})).toEqual([]);
  });

  it("fails --min-pass-rate closed for a profile with cells not judged, saying how many", () => {
    const report = { report: [profile("a", 1, 1)], diff: null };
    expect(evalGateFailures(report, { minPassRate: 0.9 }).map((f) => f.message)).toEqual([
      "a: 1 of 4 cells not judged (the judge could not answer); the pass rate 1 covers the 3 judged",
    ]);
  });

  it("fails --no-regression-from for each case × profile that passes less often", () => {
    const report = {
      report: [],
      diff: [
        { caseKey: "x", profile: "a", base: 1, current: 0.5, change: "regressed" as const },
        { caseKey: "y", profile: "a", base: 0, current: 1, change: "improved" as const },
      ],
    };
    expect(evalGateFailures(report, { noRegression: true }).map((f) => f.message)).toEqual(["x × a: passed 1 of repeats before, 0.5 now"]);
  });

  it("refuses a gate without --wait as bad usage (exit 2), before calling the API", () => {
    const r = spawnSync(
      process.execPath,
      [...childNodeArgs("scripts/cli.ts"), "eval", "run", "license-audit", "--profiles", "scripted", "--min-pass-rate", "0.9"],
      {
        encoding: "utf8",
        env: { ...process.env, LONGHAUL_URL: "http://127.0.0.1:9", LONGHAUL_TOKEN: "x" },
      },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("gates need --wait");
    expect(JSON.parse(r.stdout.trim().split("\n").at(-1)!)).toHaveProperty("error");
  });
});
