/**
 * `npm run bench:eval -- [--cases 5] [--repeats 10] [--concurrency 10]`
 *
 * A 100-cell eval run offline, to show evals hold at that size: the suite of `--cases` small cases (license
 * audits of 3 to 2 + cases packages, and one README look) × the profiles `scripted` and
 * `scripted-sloppy` × `--repeats`, on the real pieces (tests/support/agent-stack.ts: the app child
 * serving eval-run and agent-run, the embedded executor child, the scripted model server) over an
 * ephemeral embedded PostgreSQL. Eval tick 500 ms.
 *
 * Measured: wall time from the start event to the eval run's completion, cells per minute, and the
 * orchestration cost per cell — the `eval-run` function's executor steps (ticks and sleeps) and the
 * wall time its tick steps took, divided by the cells.
 *
 * Progress to stderr; last stdout line:
 * `{"cells", "wallMs", "cellsPerMinute", "evalRunSteps", "evalRunStepsPerCell", "tickMsPerCell", "passRate": {profile: rate}}`.
 * Exit 1 when a cell did not end or the two profiles do not differ.
 */
import { performance } from "node:perf_hooks";
import { applyEvalSuite, createEvalRun, readEvalRunReport, startEvalRunInputSchema, type EvalSuiteFile } from "../server/features/evals/index.ts";
import { startAgentStack, waitFor } from "../tests/support/agent-stack.ts";
import { progress, round, runScript, startBenchDatabase } from "./lib/bench-stack.ts";
import { defineScript, type FlagsOf } from "./lib/script-args.ts";

const TAG = "bench:eval";

const SCRIPT = defineScript({
  program: "npm run bench:eval --",
  summary: "A 100-cell eval run offline on the real pieces: wall time, cells per minute, orchestration cost per cell.",
  flags: {
    cases: { type: "string", value: "<n>", description: "cases of the suite", int: { min: 1, max: 50 }, default: 5 },
    repeats: { type: "string", value: "<n>", description: "repeats of each case and profile", int: { min: 1, max: 20 }, default: 10 },
    concurrency: { type: "string", value: "<n>", description: "cells running at once", int: { min: 1, max: 50 }, default: 10 },
  },
  notes: ["Cells = --cases × 2 profiles (scripted, scripted-sloppy) × --repeats. See the docstring of scripts/bench-eval.ts."],
  examples: ["npm run bench:eval", "npm run bench:eval -- --cases 2 --repeats 2"],
});

async function main({ cases, repeats, concurrency }: FlagsOf<typeof SCRIPT>): Promise<number> {
  process.env.LONGHAUL_EVAL_TICK = "1s"; // inherited by the app child
  const database = await startBenchDatabase({ name: "bench_eval", tag: TAG });
  const stack = await startAgentStack({ databaseUrl: database.url });
  try {
    const file: EvalSuiteFile = {
      name: "bench",
      description: "",
      cases: Array.from({ length: cases }, (_, i) =>
        i === cases - 1 && cases > 1
          ? {
              name: "readme",
              launch: { goal: "Find out what this project is from the README in the workspace, record what it is as a fact, then finish." },
              checks: [{ kind: "cel" as const, expression: '"workspace:readme" in facts' }],
            }
          : {
              name: `audit-${3 + i * 2}`,
              launch: { demo: { kind: "license-audit" as const, limit: 3 + i * 2 } },
              checks: [{ kind: "artifact" as const, name: "licenses.csv", expected: "license-audit" as const }],
            },
      ),
    };
    await applyEvalSuite({ prisma: stack.db, file });
    const { evalRunId, cells } = await createEvalRun({
      prisma: stack.db,
      input: startEvalRunInputSchema.parse({ suite: "bench", profiles: ["scripted", "scripted-sloppy"], repeats, concurrency }),
      actor: "bench",
    });
    progress(TAG, `eval run ${evalRunId}: ${cells} cells, concurrency ${concurrency}`);
    const t0 = performance.now();
    await stack.sendEvent("longhaul/eval.started", { evalRunId }, `eval-started-${evalRunId}`);
    let last = -1;
    await waitFor(
      "the eval run to complete",
      async () => {
        const ended = await stack.db.evalCell.count({ where: { evalRunId, status: { in: ["passed", "failed", "cancelled"] } } });
        if (ended !== last && ended % 10 === 0) progress(TAG, `${ended}/${cells} cells ended after ${Math.round((performance.now() - t0) / 1000)} s`);
        last = ended;
        return (await stack.db.evalRun.findUniqueOrThrow({ where: { id: evalRunId } })).status === "completed";
      },
      3_600_000,
      250,
    );
    const wallMs = performance.now() - t0;
    const report = await readEvalRunReport({ prisma: stack.db, evalRunId });
    const runs = await stack.db.executorRun.findMany({ where: { functionId: { contains: "eval-run" } }, select: { id: true } });
    const steps = await stack.db.executorStepResult.findMany({
      where: { runId: { in: runs.map((r) => r.id) } },
      select: { name: true, createdAt: true },
      orderBy: { createdAt: "asc" },
    });
    // A tick's wall time: from the step result before it (the sleep that woke it) to its own result.
    let tickMs = 0;
    for (let i = 1; i < steps.length; i++) if (steps[i]!.name.startsWith("tick-")) tickMs += steps[i]!.createdAt.getTime() - steps[i - 1]!.createdAt.getTime();
    const passRate = Object.fromEntries(report.report.map((p) => [p.profile, p.passRate]));
    const out = {
      cells,
      wallMs: Math.round(wallMs),
      cellsPerMinute: round((cells / wallMs) * 60_000, 2),
      evalRunSteps: steps.length,
      evalRunStepsPerCell: round(steps.length / cells, 2),
      tickMsPerCell: round(tickMs / cells, 1),
      passRate,
    };
    console.log(JSON.stringify(out));
    const allEnded = report.report.every((p) => p.ended === p.cells);
    return allEnded && passRate.scripted !== passRate["scripted-sloppy"] ? 0 : 1;
  } finally {
    await stack.stop();
    await database.stop();
  }
}

runScript(SCRIPT, main);
