import { describe, expect, it } from "vitest";
import { classifyEvalFailure, JudgeUnavailableError, judgeVerdict, runEvalChecks, type EvalOutcome } from "../../server/domain/eval-checks.ts";
import {
  buildEvalReport,
  diffEvalRuns,
  EVAL_EXPORT_COLUMNS,
  evalCellsCsv,
  evalExportRows,
  wilsonInterval,
  type EvalReportCell,
} from "../../server/domain/eval-report.ts";
import { evalSuiteFileSchema } from "../../server/domain/eval-suite.ts";

function cell(over: Partial<EvalReportCell>): EvalReportCell {
  return {
    cellId: "c",
    caseKey: "a",
    profile: "p",
    repeat: 0,
    status: "passed",
    taskId: "t",
    taskStatus: "completed",
    failureClass: null,
    steps: 10,
    tokens: 100,
    costUsd: 0.01,
    judgeCostUsd: null,
    wasteUsd: 0,
    escalations: 0,
    durationMs: 1000,
    ...over,
  };
}

describe("eval report", () => {
  it("gives the figures worked by hand: pass rate, pass^k, cost per passing and per completed task", () => {
    // Profile p: case a passes 3/3, case b passes 1/3 (one completed with a wrong CSV, one hit its budget).
    const cells = [
      cell({ caseKey: "a", repeat: 0 }),
      cell({ caseKey: "a", repeat: 1, steps: 12 }),
      cell({ caseKey: "a", repeat: 2, steps: 14 }),
      cell({ caseKey: "b", repeat: 0, steps: 20, costUsd: 0.02 }),
      cell({ caseKey: "b", repeat: 1, status: "failed", failureClass: "check_failed", steps: 20, costUsd: 0.02 }),
      cell({
        caseKey: "b",
        repeat: 2,
        status: "failed",
        taskStatus: "waiting_for_human",
        failureClass: "budget",
        steps: 30,
        costUsd: 0.03,
        wasteUsd: 0.01,
        escalations: 1,
      }),
      cell({ profile: "q", status: "running", taskStatus: null }),
    ];
    const [p, q] = buildEvalReport({ cells, profiles: ["p", "q"], repeats: 3 });
    // 4 passes of 6; spend 0.01·3 + 0.02 + 0.02 + 0.03 = 0.10; 5 completed.
    expect(p).toMatchObject({ cells: 6, ended: 6, passed: 4, passRate: 0.6667, completionRate: 0.8333, passHatK: 0.5 });
    expect(p!.costUsd).toBe(0.1);
    expect(p!.costPerPassUsd).toBe(0.025);
    expect(p!.costPerCompletedUsd).toBe(0.02);
    expect(p!.wasteShare).toBe(0.1);
    expect(p!.stepsP50).toBe(17); // 10 12 14 20 20 30 → (14 + 20) / 2
    expect(p!.failureClasses).toEqual({ check_failed: 1, budget: 1 });
    expect(p!.escalationsPerTask).toBe(0.1667);
    expect(p!.passRateLow).toBeLessThan(0.6667);
    expect(p!.passRateHigh).toBeGreaterThan(0.6667);
    expect(q).toMatchObject({ cells: 1, ended: 0, passRate: null, passHatK: null, costPerPassUsd: null });
  });

  it("computes the Wilson interval (4 of 6 at 95 %: 0.300–0.903)", () => {
    const w = wilsonInterval(4, 6)!;
    expect(w.low).toBeCloseTo(0.3, 3);
    expect(w.high).toBeCloseTo(0.9032, 3);
    expect(wilsonInterval(0, 0)).toBeNull();
  });

  it("names regressions and improvements between two runs, and exports CSV without currency signs", () => {
    const base = [cell({ caseKey: "a" }), cell({ caseKey: "b", status: "failed" })];
    const current = [cell({ caseKey: "a", status: "failed" }), cell({ caseKey: "b" })];
    expect(diffEvalRuns({ base, current }).map((d) => `${d.caseKey}:${d.change}`)).toEqual(["a:regressed", "b:improved"]);
    const csv = evalCellsCsv(base);
    expect(csv.split("\r\n")[1]).toBe("c,a,p,0,passed,true,true,t,completed,,10,100,0.01,,0,0,1000");
    expect(csv).not.toContain("$");
  });

  it("leaves cells not judged out of the pass rate and pass^k, counts them apart, and exports them so", () => {
    const nj = { status: "failed", failureClass: "judge_unavailable" } as const;
    const cells = [
      cell({ caseKey: "a", repeat: 0 }),
      cell({ caseKey: "a", repeat: 1, ...nj }),
      cell({ caseKey: "b", repeat: 0 }),
      cell({ caseKey: "b", repeat: 1 }),
      cell({ caseKey: "c", repeat: 0, status: "failed", failureClass: "check_failed" }),
      cell({ caseKey: "c", repeat: 1, ...nj }),
    ];
    const [p] = buildEvalReport({ cells, profiles: ["p"], repeats: 2 });
    // 3 passes of 4 judged cells; case a and c have a repeat not judged, so only b counts for pass^k.
    expect(p).toMatchObject({
      ended: 6,
      judged: 4,
      notJudged: 2,
      passed: 3,
      passRate: 0.75,
      passHatK: 1,
      completionRate: 1,
      failureClasses: { check_failed: 1 },
    });
    expect(p!.passRateLow).toBe(Number(wilsonInterval(3, 4)!.low.toFixed(4)));
    expect(p!.costUsd).toBe(0.06); // spend counts every ended cell
    const rows = evalExportRows(cells);
    expect(rows.map((r) => [r.pass, r.judged])).toEqual([
      [true, true],
      [null, false],
      [true, true],
      [true, true],
      [false, true],
      [null, false],
    ]);
    expect(evalCellsCsv(cells).split("\r\n")[2]).toBe("c,a,p,1,failed,,false,t,completed,judge_unavailable,10,100,0.01,,0,0,1000");
    // Nothing judged: no pass rate at all (the CLI's gate fails on it).
    expect(buildEvalReport({ cells: [cell(nj)], profiles: ["p"], repeats: 1 })[0]).toMatchObject({ passRate: null, passRateLow: null, notJudged: 1 });
  });

  it("exports one row per cell with plain numbers, pass in words, and formulas neutralised", () => {
    const cells = [
      cell({ cellId: '=HYPERLINK("http://x")', caseKey: "+1+2", profile: "-2+3", taskId: "@SUM(A1)", costUsd: 0.1 + 0.2, wasteUsd: 1234567.5 }),
      cell({ cellId: "c2", status: "failed", failureClass: "check_failed", costUsd: 0.000000001, judgeCostUsd: 0.00012 }),
      cell({
        cellId: "c3",
        status: "running",
        taskStatus: null,
        steps: null,
        tokens: null,
        costUsd: null,
        wasteUsd: null,
        escalations: null,
        durationMs: null,
      }),
    ];
    const lines = evalCellsCsv(cells).split("\r\n");
    expect(lines[0]).toBe(
      "cellId,caseKey,profile,repeat,status,pass,judged,taskId,taskStatus,failureClass,steps,tokens,costUsd,judgeCostUsd,wasteUsd,escalations,durationMs",
    );
    // A text cell a spreadsheet would run as a formula gets an apostrophe (and quotes when it holds one).
    expect(lines[1]).toBe(`"'=HYPERLINK(""http://x"")",'+1+2,'-2+3,0,passed,true,true,'@SUM(A1),completed,,10,100,0.3,,1234567.5,0,1000`);
    expect(lines[2]).toBe("c2,a,p,0,failed,false,true,t,completed,check_failed,10,100,0,0.00012,0,0,1000");
    expect(lines[3]).toBe("c3,a,p,0,running,,,t,,,,,,,,,");
    expect(lines.slice(4)).toEqual([""]);
    // The JSON export is the same rows, numbers as numbers.
    const rows = evalExportRows(cells);
    expect(rows.map((r) => r.pass)).toEqual([true, false, null]);
    expect(Object.keys(rows[0]!)).toEqual([...EVAL_EXPORT_COLUMNS]);
    expect(rows[1]).toMatchObject({ costUsd: 0.000000001, judgeCostUsd: 0.00012, steps: 10 });
  });
});

describe("eval checks", () => {
  const outcome: EvalOutcome = {
    status: "completed",
    result: { summary: "done", packages: 5 },
    facts: { "license:a": "MIT" },
    artifacts: { "licenses.csv": "name,license\na,MIT\n" },
    outbox: [{ to: "x@example.com", subject: "s", body: "b" }],
  };
  const ports = { expectedDemoCsv: () => Promise.resolve("name,license\na,MIT\n"), judge: () => Promise.reject(new Error("no judge")) };

  it("runs every check, with an implicit status = completed, and says what each saw", async () => {
    const results = await runEvalChecks({
      checks: [
        { kind: "cel", expression: 'size(outbox) == 1 && facts["license:a"] == "MIT"' },
        { kind: "cel", expression: "result.missing == 1" },
        { kind: "artifact", name: "licenses.csv", expected: "license-audit" },
        { kind: "artifact", name: "licenses.csv", equals: "name,license\na,GPL\n" },
        { kind: "artifact", name: "nope.csv", contains: "x" },
        { kind: "judge", profile: "j", rubric: "ok?" },
      ],
      outcome,
      ports,
    });
    expect(results.map((r) => r.pass)).toEqual([true, true, false, true, false, false, false]);
    expect(results[2]!.detail).toMatch(/^error: /);
    expect(results[4]!.detail).toBe('line 2: expected "a,GPL", got "a,MIT"');
    expect(results[6]!.detail).toMatch(/judge unavailable: no judge/);
  });

  it("classes a judge that gave no verdict apart from a wrong answer", async () => {
    const down = {
      expectedDemoCsv: ports.expectedDemoCsv,
      judge: () => Promise.reject(new JudgeUnavailableError("[network] connection refused (3 attempts)", { attempts: 3, costUsd: 0.0002 })),
    };
    const judged = await runEvalChecks({ checks: [{ kind: "judge", profile: "j", rubric: "ok?" }], outcome, ports: down });
    expect(judged[1]).toMatchObject({
      kind: "judge",
      pass: false,
      unavailable: true,
      costUsd: 0.0002,
      detail: "judge unavailable: [network] connection refused (3 attempts)",
    });
    // Every other check passed: the judge's outage is the cell's class, not check_failed.
    expect(classifyEvalFailure({ results: judged, taskStatus: "completed", endReason: null, escalationReason: null })).toBe("judge_unavailable");
    // A check that did give a verdict and failed decides: the agent's answer was wrong whatever the judge.
    const wrong = await runEvalChecks({
      checks: [
        { kind: "cel", expression: "size(outbox) == 2" },
        { kind: "judge", profile: "j", rubric: "ok?" },
      ],
      outcome,
      ports: down,
    });
    expect(classifyEvalFailure({ results: wrong, taskStatus: "completed", endReason: null, escalationReason: null })).toBe("check_failed");
    // A task that ended otherwise is classed by how it ended, judge or not.
    const failedTask = await runEvalChecks({
      checks: [{ kind: "judge", profile: "j", rubric: "ok?" }],
      outcome: { ...outcome, status: "failed" },
      ports: down,
    });
    expect(classifyEvalFailure({ results: failedTask, taskStatus: "failed", endReason: "transient", escalationReason: null })).toBe("transient");
    // A judge that answered FAIL is a wrong answer.
    const fails = { expectedDemoCsv: ports.expectedDemoCsv, judge: () => Promise.resolve({ pass: false, answer: "FAIL: no", costUsd: 0.0001 }) };
    const no = await runEvalChecks({ checks: [{ kind: "judge", profile: "j", rubric: "ok?" }], outcome, ports: fails });
    expect(no[1]!.unavailable).toBeUndefined();
    expect(classifyEvalFailure({ results: no, taskStatus: "completed", endReason: null, escalationReason: null })).toBe("check_failed");
  });

  it("reads a verdict only from a reply that starts with PASS or FAIL", () => {
    expect(["PASS: fine", "pass", " **FAIL**: wrong", "FAIL"].map(judgeVerdict)).toEqual(["pass", "pass", "fail", "fail"]);
    expect(["", "I think it passes", "PASSABLE", "Verdict: PASS", "{}"].map(judgeVerdict)).toEqual([null, null, null, null, null]);
  });

  it("classifies failures: check_failed when the status was right, else the escalation or end reason", () => {
    const fail = [{ kind: "status" as const, label: "", pass: false, detail: "" }];
    const checkFail = [
      { kind: "status" as const, label: "", pass: true, detail: "" },
      { kind: "cel" as const, label: "", pass: false, detail: "" },
    ];
    expect(classifyEvalFailure({ results: checkFail, taskStatus: "completed", endReason: null, escalationReason: null })).toBe("check_failed");
    expect(classifyEvalFailure({ results: fail, taskStatus: "waiting_for_human", endReason: null, escalationReason: "budget" })).toBe("budget");
    expect(classifyEvalFailure({ results: fail, taskStatus: "failed", endReason: "budget_exhausted", escalationReason: null })).toBe("budget");
    expect(classifyEvalFailure({ results: fail, taskStatus: "dead_end", endReason: null, escalationReason: null })).toBe("dead_end");
    expect(classifyEvalFailure({ results: checkFail.slice(0, 1), taskStatus: "completed", endReason: null, escalationReason: null })).toBeNull();
  });

  it("refuses a suite file with a duplicate case name, naming it", () => {
    const r = evalSuiteFileSchema.safeParse({
      name: "s",
      cases: [0, 1].map(() => ({ name: "x", launch: { goal: "g" }, checks: [{ kind: "status", equals: "completed" }] })),
    });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain('\\"x\\" appears twice');
  });
});

describe("budgets from history", () => {
  it("suggests ceil(p90 × 1.25) of passing runs, and says so when there is no history", async () => {
    const { suggestBudgets } = await import("../../server/domain/budget-from-history.ts");
    const history = [10, 12, 14, 16, 40].map((steps) => ({ steps, tokens: steps * 1000, costUsd: steps / 1000 }));
    const s = suggestBudgets({ history, fallback: { stepBudget: 400, tokenBudget: null, costBudgetUsd: null } });
    // p90 of 10 12 14 16 40 = 16 + 0.6 × 24 = 30.4 → ceil(38) = 38
    expect(s).toMatchObject({ basis: "history", samples: 5, stepsP50: 14, stepsP90: 30.4, stepBudget: 38, tokenBudget: 38_000, costBudgetUsd: 0.038 });
    expect(s.note).toBe("similar tasks took median 14 steps, p90 30.4 (5 passing runs); suggested ceiling p90 × 1.25");
    const none = suggestBudgets({ history: history.slice(0, 2), fallback: { stepBudget: 400, tokenBudget: null, costBudgetUsd: null } });
    expect(none).toMatchObject({ basis: "default", stepBudget: 400 });
    expect(none.note).toMatch(/^no history yet \(2 passing runs, 3 needed\)/);
  });
});
