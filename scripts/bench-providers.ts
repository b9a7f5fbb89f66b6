/**
 * `npm run bench:providers -- [--packages 150] [--repeats 2] [--concurrency 6] [--checkpoint-every 0]`
 *
 * What the provider adapters and the effort dial are worth, offline, on the real pieces
 * (tests/support/agent-stack.ts: the app child serving agent-run and eval-run, the embedded executor
 * child, the scripted model server) over an ephemeral embedded PostgreSQL:
 *
 * - adapters: the license audit of `--packages` packages (the demo, this checkout's node_modules) on
 *   each provider adapter the seed has an offline profile for — `openai` (Chat Completions: the
 *   `scripted` profile), and `openai-responses` / `anthropic` when the seed has `scripted-responses` /
 *   `scripted-anthropic` — each with the recommended effort dial. Per adapter: whether the task
 *   completed, its spend (`costPerCompletedUsd`: all its spend ÷ completed tasks, null when none
 *   completed), the share of prompt tokens served from the provider's prompt cache (`cachedShare`,
 *   over every model call of the task, checkpoint summaries included), reasoning tokens, calls.
 * - effort: the example eval suite (examples/evals/license-audit.yaml) run with three copies of the
 *   `scripted` profile that differ only in their effort policy — a fixed high level, a fixed low level,
 *   and the recommended dial — × `--repeats`: pass rate, cost per passing task, cost per completed
 *   task and reasoning tokens per profile, from the eval report (the same ledger as /costs).
 *
 * Goals (`goals` in the output, all must hold for `pass`): each adapter's `cachedShare` ≥ 0.75; the
 * dial's cost per passing task below fixed-high's, with a pass rate no lower; fixed-low's pass rate
 * below both. Prices are the `scripted` profile's notional ones ($0.40 / $0.10 cached / $1.60 output
 * per million tokens; reasoning tokens are output tokens, as OpenAI and Anthropic bill them).
 *
 * Progress to stderr; last stdout line:
 * `{"adapters": {"openai": {"completed", "cachedShare", "costPerCompletedUsd", "reasoningTokens", "promptTokens", "cachedTokens", "calls", "steps", "wallMs"}, …},
 *   "effort": {"fixedHigh": {"passRate", "costPerPassUsd", "costPerCompletedUsd", "reasoningTokens", "cells"}, "fixedLow": {…}, "dial": {…}},
 *   "goals": {…}, "pass": true}`. Exit 1 when a goal fails.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parse as parseYaml } from "yaml";
import { createProfile, profileSnapshotSchema } from "../server/features/profiles/index.ts";
import { applyEvalSuite, createEvalRun, readEvalRunReport, evalSuiteFileSchema, startEvalRunInputSchema } from "../server/features/evals/index.ts";
import { startAgentStack, waitFor, type AgentStack } from "../tests/support/agent-stack.ts";
import { progress, round, runScript, startBenchDatabase } from "./lib/bench-stack.ts";
import { defineScript, type FlagsOf } from "./lib/script-args.ts";
import type { EffortPolicy } from "../lib/contracts/effort.ts";

const TAG = "bench:providers";
/** Goal: the share of prompt tokens served from cache on every adapter. */
const CACHED_SHARE_GOAL = 0.75;
/** Offline profile of each adapter (the seed's), by the adapter's provider name. */
const ADAPTER_PROFILES: Record<string, string> = { openai: "scripted", "openai-responses": "scripted-responses", anthropic: "scripted-anthropic" };
const POLICIES: Record<"fixedHigh" | "fixedLow" | "dial", Partial<EffortPolicy>> = {
  fixedHigh: { default: "high", rules: {} },
  fixedLow: { default: "low", rules: {} },
  dial: { default: "medium" },
};
const SUITE_FILE = path.resolve(import.meta.dirname, "..", "examples", "evals", "license-audit.yaml");

/**
 * A copy of seeded profile `from` named `name`, with effort policy `effort` (validated by the profile
 * schema) and, when given, another interval checkpoint (`checkpointEverySteps`).
 */
async function copyProfile(stack: AgentStack, from: string, name: string, effort: Partial<EffortPolicy>, checkpointEverySteps?: number): Promise<void> {
  const row = await stack.db.agentProfile.findUniqueOrThrow({ where: { name: from } });
  const version = await stack.db.agentProfileVersion.findUniqueOrThrow({ where: { profileId_version: { profileId: row.id, version: row.version } } });
  const spec = profileSnapshotSchema.parse(version.snapshot);
  await createProfile({
    prisma: stack.db,
    spec: {
      ...spec,
      name,
      description: `${TAG}: ${from} with effort ${JSON.stringify(effort)}`,
      effort,
      ...(checkpointEverySteps ? { checkpointEverySteps } : {}),
    },
  });
}

/** Figures of the model calls of `taskIds` (all runs, all causes). */
async function callFigures(stack: AgentStack, taskIds: string[]) {
  const [row] = await stack.db.$queryRaw<{ prompt: bigint; cached: bigint; reasoning: bigint; usd: string; calls: bigint }[]>`
    SELECT coalesce(sum(m."promptTokens"), 0) AS prompt, coalesce(sum(m."cachedTokens"), 0) AS cached,
           coalesce(sum(m."reasoningTokens"), 0) AS reasoning, coalesce(sum(m."costUsd"), 0)::text AS usd, count(*) AS calls
    FROM model_call m JOIN run r ON r.id = m."runId" WHERE r."taskId" = ANY(${taskIds}::text[])`;
  const prompt = Number(row?.prompt ?? 0);
  return {
    promptTokens: prompt,
    cachedTokens: Number(row?.cached ?? 0),
    cachedShare: prompt ? round(Number(row?.cached ?? 0) / prompt, 4) : 0,
    reasoningTokens: Number(row?.reasoning ?? 0),
    usd: Number(row?.usd ?? 0),
    calls: Number(row?.calls ?? 0),
  };
}

/** One license audit of `packages` packages on `profile`, to its end; its figures. */
async function auditOn(stack: AgentStack, profile: string, packages: number) {
  const t0 = performance.now();
  const { taskId } = await stack.launch({ input: { demo: { kind: "license-audit", limit: packages }, profile }, actor: TAG });
  let status = "";
  await waitFor(
    `the ${profile} audit to end`,
    async () => {
      status = (await stack.db.task.findUniqueOrThrow({ where: { id: taskId }, select: { status: true } })).status;
      return ["completed", "failed", "dead_end", "cancelled", "waiting_for_human"].includes(status);
    },
    3_600_000,
    500,
  );
  const figures = await callFigures(stack, [taskId]);
  const steps = await stack.db.step.count({ where: { run: { taskId } } });
  const completed = status === "completed";
  return {
    status,
    completed,
    cachedShare: figures.cachedShare,
    costPerCompletedUsd: completed ? round(figures.usd, 6) : null,
    spendUsd: round(figures.usd, 6),
    reasoningTokens: figures.reasoningTokens,
    promptTokens: figures.promptTokens,
    cachedTokens: figures.cachedTokens,
    calls: figures.calls,
    steps,
    wallMs: Math.round(performance.now() - t0),
  };
}

const SCRIPT = defineScript({
  program: "npm run bench:providers --",
  summary: "Per provider adapter, a license audit's cached share, cost and reasoning tokens; the effort dial against fixed high and low on the example suite.",
  flags: {
    packages: { type: "string", value: "<n>", description: "packages of each adapter's license audit", int: { min: 5, max: 400 }, default: 150 },
    repeats: { type: "string", value: "<n>", description: "repeats of the effort eval suite", int: { min: 1, max: 10 }, default: 2 },
    concurrency: { type: "string", value: "<n>", description: "eval cells running at once", int: { min: 1, max: 24 }, default: 6 },
    "checkpoint-every": {
      type: "string",
      value: "<n>",
      description: "the adapters' interval checkpoint in steps (0: the seeded profile's)",
      int: { min: 0, max: 10_000 },
      default: 0,
    },
  },
  notes: ["See the docstring of scripts/bench-providers.ts for the goals."],
  examples: ["npm run bench:providers", "npm run bench:providers -- --packages 40 --repeats 1"],
});

async function main(flags: FlagsOf<typeof SCRIPT>): Promise<number> {
  const { packages, repeats, concurrency } = flags;
  // The adapters' interval checkpoint (0 = the seeded profile's): each cut restarts the prompt from the
  // checkpoint, the main limit on the cached share (docs/BENCHMARKS.md).
  const checkpointEvery = flags["checkpoint-every"];
  process.env.LONGHAUL_EVAL_TICK = "1s"; // inherited by the app child
  const database = await startBenchDatabase({ name: "bench_providers", tag: TAG });
  const stack = await startAgentStack({ databaseUrl: database.url });
  try {
    // The effort part: the example suite with three effort policies on the same model.
    const names = { fixedHigh: "bench-effort-fixed-high", fixedLow: "bench-effort-fixed-low", dial: "bench-effort-dial" } as const;
    for (const [key, name] of Object.entries(names)) await copyProfile(stack, "scripted", name, POLICIES[key as keyof typeof names]);
    const file = evalSuiteFileSchema.parse(parseYaml(readFileSync(SUITE_FILE, "utf8")));
    await applyEvalSuite({ prisma: stack.db, file });
    const { evalRunId, cells } = await createEvalRun({
      prisma: stack.db,
      input: startEvalRunInputSchema.parse({ suite: file.name, profiles: Object.values(names), repeats, concurrency }),
      actor: TAG,
    });
    progress(TAG, `eval run ${evalRunId}: ${cells} cells (${file.name} × ${Object.values(names).join(", ")} × ${repeats})`);

    // The adapters part, at the same time: one audit per adapter that has an offline profile, with the dial.
    const adapters = Object.entries(ADAPTER_PROFILES).filter(([, p]) => p);
    const present = new Set((await stack.db.agentProfile.findMany({ select: { name: true } })).map((p) => p.name));
    const audits = adapters
      .filter(([, p]) => present.has(p))
      .map(async ([adapter, from]) => {
        const name = `bench-adapter-${adapter}`;
        await copyProfile(stack, from, name, POLICIES.dial, checkpointEvery || undefined);
        progress(TAG, `${adapter}: auditing ${packages} packages on ${name}`);
        const figures = await auditOn(stack, name, packages);
        progress(TAG, `${adapter}: ${figures.status} in ${Math.round(figures.wallMs / 1000)} s, cached share ${figures.cachedShare}`);
        return [adapter, figures] as const;
      });
    for (const [adapter, from] of adapters) if (!present.has(from)) progress(TAG, `${adapter}: no offline profile ${from} in the seed; skipped`);

    await stack.sendEvent("longhaul/eval.started", { evalRunId }, `eval-started-${evalRunId}`);
    const t0 = performance.now();
    await waitFor(
      "the eval run to complete",
      async () => (await stack.db.evalRun.findUniqueOrThrow({ where: { id: evalRunId } })).status === "completed",
      3_600_000,
      500,
    );
    progress(TAG, `eval run done in ${Math.round((performance.now() - t0) / 1000)} s`);
    const report = await readEvalRunReport({ prisma: stack.db, evalRunId });
    const effort = Object.fromEntries(
      await Promise.all(
        Object.entries(names).map(async ([key, name]) => {
          const p = report.report.find((r) => r.profile === name)!;
          const tasks = report.cells.filter((c) => c.profile === name && c.taskId).map((c) => c.taskId!);
          const figures = await callFigures(stack, tasks);
          return [
            key,
            {
              passRate: p.passRate,
              costPerPassUsd: p.costPerPassUsd,
              costPerCompletedUsd: p.costPerCompletedUsd,
              reasoningTokens: figures.reasoningTokens,
              cachedShare: figures.cachedShare,
              cells: p.cells,
            },
          ] as const;
        }),
      ),
    ) as Record<
      keyof typeof names,
      {
        passRate: number | null;
        costPerPassUsd: number | null;
        costPerCompletedUsd: number | null;
        reasoningTokens: number;
        cachedShare: number;
        cells: number;
      }
    >;
    const adapterFigures = Object.fromEntries(await Promise.all(audits));

    const high = effort.fixedHigh;
    const low = effort.fixedLow;
    const dial = effort.dial;
    const goals = {
      cachedShare: Object.fromEntries(
        Object.entries(adapterFigures).map(([a, f]) => [
          a,
          { value: f.cachedShare, goal: CACHED_SHARE_GOAL, holds: f.completed && f.cachedShare >= CACHED_SHARE_GOAL },
        ]),
      ),
      dialCheaperPerPass: {
        dial: dial.costPerPassUsd,
        fixedHigh: high.costPerPassUsd,
        holds: dial.costPerPassUsd !== null && high.costPerPassUsd !== null && dial.costPerPassUsd < high.costPerPassUsd,
      },
      dialPassRateNoLower: { dial: dial.passRate, fixedHigh: high.passRate, holds: (dial.passRate ?? 0) >= (high.passRate ?? 0) },
      fixedLowPassRateBelowBoth: {
        fixedLow: low.passRate,
        holds: (low.passRate ?? 0) < (high.passRate ?? 0) && (low.passRate ?? 0) < (dial.passRate ?? 0),
      },
    };
    const pass =
      Object.values(goals.cachedShare).every((g) => g.holds) &&
      Object.keys(adapterFigures).length > 0 &&
      goals.dialCheaperPerPass.holds &&
      goals.dialPassRateNoLower.holds &&
      goals.fixedLowPassRateBelowBoth.holds;
    console.log(JSON.stringify({ packages, repeats, checkpointEvery: checkpointEvery || null, adapters: adapterFigures, effort, goals, pass }));
    return pass ? 0 : 1;
  } finally {
    await stack.stop();
    await database.stop();
  }
}

runScript(SCRIPT, main);
