import { describe, expect, it } from "vitest";
import { createCaller } from "../../server/api/root.ts";
import { JUDGE_ATTEMPTS } from "../../server/db/eval-judge.ts";
import { applyEvalSuite, createEvalRun, readEvalRunReport } from "../../server/db/eval-repository.ts";
import { createProfile } from "../../server/db/profile-repository.ts";
import { EVAL_EXPORT_COLUMNS } from "../../server/domain/eval-report.ts";
import { startEvalRunInputSchema, type EvalSuiteFile } from "../../server/domain/eval-suite.ts";
import type { ScriptedServerStats } from "../../server/llm/scripted/server.ts";
import type { AgentStack } from "../support/agent-stack.ts";
import { waitFor } from "../support/executor-harness.ts";
import { useAgentStack } from "../support/fixtures.ts";
import { freePort } from "../support/ports.ts";
import { testPrincipal } from "../support/principals.ts";

// A judge that cannot answer, through the real eval path: the `eval-run` function in the app child,
// the cells' agent runs, the embedded executor, and the scripted model server as the judge's HTTP
// boundary — down (nothing listens at the judge's base URL), answering 500 (faults armed on the
// scripted server), or answering something that is neither PASS nor FAIL (a judge profile whose model
// is the scripted agent, which answers with tool calls). Such a cell is "not judged", not a wrong answer.

process.env.LONGHAUL_EVAL_TICK = "1s"; // inherited by the app child
let stack: AgentStack;
useAgentStack((started) => (stack = started));

const judgeCase = (name: string, judge: string): EvalSuiteFile["cases"][number] => ({
  name,
  launch: { demo: { kind: "license-audit", limit: 3 } },
  checks: [
    { kind: "artifact", name: "licenses.csv", expected: "license-audit" },
    { kind: "judge", profile: judge, rubric: "Does every package have a known license?" },
  ],
});

async function runSuite(file: EvalSuiteFile, concurrency = 1) {
  await applyEvalSuite({ prisma: stack.db, file });
  const { evalRunId } = await createEvalRun({
    prisma: stack.db,
    // One cell at a time by default, so the faults armed for the judge meet the judge calls in a known order.
    input: startEvalRunInputSchema.parse({ suite: file.name, profiles: ["scripted"], repeats: 1, concurrency }),
    actor: "eval-test",
  });
  await stack.sendEvent("longhaul/eval.started", { evalRunId }, `eval-started-${evalRunId}`);
  await waitFor(
    `eval run ${evalRunId} to complete`,
    async () => (await stack.db.evalRun.findUniqueOrThrow({ where: { id: evalRunId } })).status === "completed",
    300_000,
    200,
  );
  return { evalRunId, report: await readEvalRunReport({ prisma: stack.db, evalRunId }) };
}

async function stats(): Promise<ScriptedServerStats> {
  return (await (await fetch(`${stack.model.url}/control/stats`)).json()) as ScriptedServerStats;
}

const judgeProfile = (name: string, model: string, baseUrl: string) => ({
  name,
  provider: "openai",
  baseUrl,
  model,
  systemPrompt: "You grade the outcome of an agent's task against a rubric. Answer PASS or FAIL, a colon, and one sentence why.",
  inputPricePerMTok: 0.4,
  outputPricePerMTok: 1.6,
});

describe("eval judge outage", () => {
  it("classes a judge that is down, answers 500 or answers garbage as judge_unavailable, apart from the pass rate", async () => {
    const nobody = `http://127.0.0.1:${await freePort()}/v1`;
    await createProfile({ prisma: stack.db, spec: judgeProfile("it-judge-down", "scripted-judge", nobody) });
    await createProfile({ prisma: stack.db, spec: judgeProfile("it-judge-garbage", "scripted", stack.model.baseUrl) });
    // Every attempt of the judge of the second case answers 500 (the seeded scripted-judge profile).
    await stack.armFaults({ kind: "500", model: "scripted-judge", count: JUDGE_ATTEMPTS });
    const before = await stats();

    const { evalRunId, report: r } = await runSuite(
      {
        name: "it-judge-outage",
        description: "",
        cases: [judgeCase("down", "it-judge-down"), judgeCase("status-500", "scripted-judge"), judgeCase("garbage", "it-judge-garbage")],
      },
      // At once: only the status-500 case's judge reaches the model server as `scripted-judge`, so
      // the armed 500s meet its calls whatever the order; the three judges' back-offs overlap.
      3,
    );

    // The agent did the work right (the artifact check passed, the task completed): only the judge failed.
    expect(r.cells.map((c) => [c.caseKey, c.taskStatus, c.status, c.failureClass])).toEqual([
      ["down", "completed", "failed", "judge_unavailable"],
      ["status-500", "completed", "failed", "judge_unavailable"],
      ["garbage", "completed", "failed", "judge_unavailable"],
    ]);
    const judgeResult = (key: string) => r.cells.find((c) => c.caseKey === key)!.checkResults.find((x) => x.kind === "judge")!;
    expect(r.cells.every((c) => c.checkResults.find((x) => x.kind === "artifact")?.pass)).toBe(true);
    expect(judgeResult("down")).toMatchObject({
      pass: false,
      unavailable: true,
      detail: expect.stringMatching(/^judge unavailable: \[network\].*\(3 attempts\)$/) as unknown,
    });
    expect(judgeResult("status-500")).toMatchObject({
      pass: false,
      unavailable: true,
      detail: expect.stringMatching(/^judge unavailable: \[server\] HTTP 500/) as unknown,
    });
    expect(judgeResult("garbage")).toMatchObject({
      pass: false,
      unavailable: true,
      detail: expect.stringMatching(/^judge unavailable: unusable reply/) as unknown,
    });
    // The garbage judge's replies were billed: its spend counts though it gave no verdict.
    expect(r.cells.find((c) => c.caseKey === "garbage")!.judgeCostUsd).toBeGreaterThan(0);
    // Retries were made, and bounded: the 500s were served on every attempt and no more.
    const after = await stats();
    expect((after.faultsServed["500"] ?? 0) - (before.faultsServed["500"] ?? 0)).toBe(JUDGE_ATTEMPTS);
    expect((after.byModel["scripted"] ?? 0) - (before.byModel["scripted"] ?? 0)).toBeGreaterThanOrEqual(JUDGE_ATTEMPTS);

    // The report counts them apart: not judged, no pass rate (nothing was judged), no failure class.
    expect(r.report[0]).toMatchObject({ profile: "scripted", ended: 3, judged: 0, notJudged: 3, passed: 0, passRate: null, failureClasses: {} });

    // The export says so too: judged false, pass empty, the class named.
    const api = createCaller({ prisma: stack.db, actor: "eval-test", principal: testPrincipal("eval-test") });
    const [header, ...lines] = (await api.eval.export({ evalRunId, format: "csv" })).content.split("\r\n");
    expect(header!.split(",")).toEqual([...EVAL_EXPORT_COLUMNS]);
    const rows = lines.filter(Boolean).map((l) => Object.fromEntries(l.split(",").map((v, i) => [EVAL_EXPORT_COLUMNS[i]!, v])));
    expect(rows.map((row) => [row.pass, row.judged, row.failureClass])).toEqual([
      ["", "false", "judge_unavailable"],
      ["", "false", "judge_unavailable"],
      ["", "false", "judge_unavailable"],
    ]);
    const json = JSON.parse((await api.eval.export({ evalRunId, format: "json" })).content) as { pass: unknown; judged: unknown }[];
    expect(json.map((row) => [row.pass, row.judged])).toEqual([
      [null, false],
      [null, false],
      [null, false],
    ]);
  }, 420_000);

  it("retries a judge's passing 500 and judges the cell", async () => {
    await stack.armFaults({ kind: "500", model: "scripted-judge", count: 1 });
    const before = await stats();
    const { report: r } = await runSuite({ name: "it-judge-blip", description: "", cases: [judgeCase("blip", "scripted-judge")] });
    expect(r.cells.map((c) => [c.status, c.failureClass])).toEqual([["passed", null]]);
    expect(r.cells[0]!.checkResults.find((x) => x.kind === "judge")).toMatchObject({ pass: true, detail: expect.stringMatching(/^PASS/) as unknown });
    const after = await stats();
    expect((after.faultsServed["500"] ?? 0) - (before.faultsServed["500"] ?? 0)).toBe(1);
    expect(r.report[0]).toMatchObject({ judged: 1, notJudged: 0, passRate: 1 });
  }, 300_000);
});
