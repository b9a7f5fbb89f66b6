/**
 * `npm run bench:costs -- [--tasks 100000] [--calls-per-task 28] [--repeat 5] [--explain]`   (`--max` is the same flag)
 *
 * How fast the /costs rollups answer as the ledger grows (under 1 s at 10,000 tasks, usable
 * at 100,000; goal under 250 ms at 1,000,000 tasks). Seeds a realistic month into an
 * ephemeral embedded PostgreSQL with all migrations and routines (server/db/sql), in levels — 1,000,
 * 10,000, 100,000 (those below the size), then `--tasks` tasks (default 100,000; 100 to 1,000,000) —
 * and after each level times the queries the page and the API make. The size is reported
 * (`tasks`) and the 250 ms goal is judged at it (`goals.costsUnder250ms`: informational, it gates
 * nothing). At 1,000,000 tasks the seed holds about 30 M model calls and 60 M step rows: count on
 * hours of seeding and tens of GB of disk on the machines here; `--calls-per-task 4` thins the ledger
 * (the initial run's calls; resume and fork scale with it) to about 5 M calls, which the /costs
 * queries do not read (they read the rollup tables only), so the timing holds at the full density.
 *
 * The data (a bulk loader writing the rows the write paths write, in set-based SQL per batch of
 * 5,000 tasks, seeded `setseed(0.42)`): 4 profiles on 4 models; tasks launched over 30 days; outcomes
 * 70 % completed, 9 % failed (transient, budget, loop, stall, error, drift, saturation), 7 % dead end,
 * 5 % cancelled, 5 % waiting for a human (with an escalation), 4 % running; one initial run of 28
 * model calls per task, plus for every 7th task a resume (from a checkpoint at call 12: the 12 calls
 * after it become `discarded`, the resume makes 8 more) and for every 31st a fork (6 calls); call
 * causes ≈ 88 % productive, 5 % checkpoint, 4 % retry (a tenth of them unbilled 429s at $0), 2 %
 * replay, 1 % restart; ≈ 3 % of calls with estimated usage; one model step and one tool step row per
 * model call. About 30 model calls per task on average. The loader writes with triggers off
 * (`session_replication_role = replica`) and then builds the per-task summaries with the same
 * function the routines ship for repair (`longhaul_task_cost_rebuild()`, which also rebuilds the
 * /costs rollup tables cost_rollup and cost_steps), so the summary and rollup rows are what the
 * triggers would have written. Prices: gpt-4.1-mini's list prices ($0.40 / $0.10 cached / $1.60 per
 * million tokens).
 *
 * Timed per level (median of `--repeat` runs, after ANALYZE, caches warm): the page's rollup with no
 * filter, with a profile filter, by week over a 14-day range, with an outcome filter, and the task
 * totals of one page of 100 tasks. `costsQueryMs[level]` is the slowest of those medians.
 *
 * Then the price of keeping the rollup on the write path: 300 model calls inserted one per
 * transaction for spread-out tasks with all triggers on (ledger row → task_cost → cost_rollup), then
 * 300 with the rollup triggers off (`longhaul.cost_rollup = off`, the rebuild's switch):
 * `writeMsPerCall[level] = {withRollup, withoutRollup}`, means in ms. After the first batch the
 * trigger-kept rollup is checked against a rebuild (`rollupMatchesRebuild`: spend, tasks and calls
 * summed over cost_rollup agree to the 1e-8 dollar); after the second the rollup is rebuilt.
 *
 * Progress to stderr; last stdout line:
 * `{"tasks": …, "costsQueryMs": {"1000": …, "10000": …, "100000": …}, "detail": {...}, "writeMsPerCall": {...},
 *   "rollupMatchesRebuild": true, "goals": {"costsUnder250ms": {tasks, ms, holds}}, "seedMs": {...}, "rows": {...}}`
 * (rows.rollupRows: cost_rollup rows).
 * Exit 1 when the 10,000-task level takes 1 s or more, or the rollup disagrees with its rebuild.
 */
import { performance } from "node:perf_hooks";
import { createPrismaClient } from "../server/db/client.ts";
import { costRollup, explainCostRollup, taskCostTotals, costFiltersSchema } from "../server/features/costs/index.ts";
import { progress, runScript, startBenchDatabase } from "./lib/bench-stack.ts";
import { defineScript, type FlagsOf } from "./lib/script-args.ts";

const TAG = "bench:costs";
/** Largest size `--tasks` accepts ("bench:costs reports 1,000,000 tasks"). */
const MAX_TASKS = 1_000_000;
/** The /costs goal at the largest size, ms. */
const GOAL_MS = 250;
const BATCH = 5_000;
const MONTH_START = "2026-11-01";
const PROFILES = [
  { id: "bench-p-mini", name: "bench-mini", model: "gpt-4.1-mini" },
  { id: "bench-p-nano", name: "bench-nano", model: "gpt-4.1-nano" },
  { id: "bench-p-4o", name: "bench-4o", model: "gpt-4o-mini" },
  { id: "bench-p-scripted", name: "bench-scripted", model: "scripted" },
];

/** SQL that seeds tasks [lo, hi) with their runs, checkpoints, steps, model calls and escalations. */
function seedBatchSql(lo: number, hi: number, callsPerRun: number): string[] {
  // The resume starts from the checkpoint after call `cp` (12 of 28 by default): the initial run's calls after it are discarded.
  const cp = Math.max(1, Math.round((callsPerRun * 12) / 28));
  const resumeCalls = Math.max(1, Math.round((callsPerRun * 8) / 28));
  const forkCalls = Math.max(1, Math.round((callsPerRun * 6) / 28));
  const profiles = `ARRAY[${PROFILES.map((p) => `'${p.id}'`).join(",")}]`;
  return [
    `CREATE TEMP TABLE bt ON COMMIT DROP AS
       SELECT i, 'bt_' || lpad(i::text, 7, '0') AS id, (${profiles})[1 + (i % 4)] AS profile, random() AS u,
              '${MONTH_START}'::timestamp + (random() * interval '30 days') AS at
       FROM generate_series(${lo}, ${hi - 1}) AS i`,
    `INSERT INTO task (id, goal, "profileId", status, "stepBudget", workspace, "createdAt", "updatedAt", "startedAt", "endedAt")
       SELECT id, 'bench task ' || i, profile,
              CASE WHEN u < 0.70 THEN 'completed' WHEN u < 0.79 THEN 'failed' WHEN u < 0.86 THEN 'dead_end' WHEN u < 0.91 THEN 'cancelled'
                   WHEN u < 0.96 THEN 'waiting_for_human' ELSE 'running' END,
              200, '/tmp', at, at, at, at + interval '40 minutes'
       FROM bt`,
    `INSERT INTO run (id, "taskId", cause, status, "endReason", "startedAt", "endedAt")
       SELECT id || '-r1', id, 'initial',
              CASE WHEN u < 0.70 THEN 'completed' WHEN u < 0.79 THEN 'failed' WHEN u < 0.86 THEN 'dead_end' WHEN u < 0.91 THEN 'cancelled'
                   WHEN u < 0.96 THEN 'escalated' ELSE 'running' END,
              CASE WHEN u >= 0.70 AND u < 0.79 THEN (ARRAY['transient','budget_exhausted','loop','stall','error','drift','saturation'])[1 + (i % 7)]
                   WHEN u >= 0.86 AND u < 0.91 THEN 'cancelled_by_user'
                   WHEN u >= 0.91 AND u < 0.96 THEN (ARRAY['loop','stall','budget_exhausted'])[1 + (i % 3)] END,
              at, at + interval '30 minutes'
       FROM bt`,
    `INSERT INTO checkpoint (id, "taskId", "runId", seq, reason, "afterStepId", "nextTurn", "nextIndex", goal, "workingSet", "completedSteps", "budgetsUsed", "sideEffects", "createdAt")
       SELECT id || '-cp1', id, id || '-r1', 1, 'interval', 'model-${cp}', ${cp + 1}, ${2 * cp + 2}, 'bench task ' || i, '{}', '[]', '{}', '[]', at + interval '${cp} minutes 30 seconds'
       FROM bt WHERE i % 7 = 0`,
    `INSERT INTO run (id, "taskId", cause, status, "fromCheckpointId", "startedAt", "endedAt")
       SELECT id || '-r2', id, 'resume', 'completed', id || '-cp1', at + interval '31 minutes', at + interval '40 minutes' FROM bt WHERE i % 7 = 0
       UNION ALL
       SELECT id || '-r3', id, 'fork', 'completed', NULL, at + interval '41 minutes', at + interval '45 minutes' FROM bt WHERE i % 31 = 0`,
    `CREATE TEMP TABLE bc ON COMMIT DROP AS
       SELECT b.i, b.id AS task, r.id AS run, r.cause AS run_cause, g, b.at, random() AS v, random() AS w,
              (1500 + g * 400 + floor(random() * 800))::int AS prompt, (80 + floor(random() * 300))::int AS completion
       FROM bt b JOIN run r ON r."taskId" = b.id
       CROSS JOIN LATERAL generate_series(1, CASE r.cause WHEN 'initial' THEN ${callsPerRun} WHEN 'resume' THEN ${resumeCalls} ELSE ${forkCalls} END) AS g`,
    `INSERT INTO step ("id", "runId", "index", "stepId", kind, status, attempts, "promptTokens", "completionTokens", "startedAt", "endedAt")
       SELECT run || ':m' || g, run, 2 * g, 'model-' || g, 'model', 'completed', 1, prompt, completion, at, at FROM bc
       UNION ALL
       SELECT run || ':t' || g, run, 2 * g + 1, 'tool-' || g || '-0', 'tool', 'completed', 1, 0, 0, at, at FROM bc`,
    `INSERT INTO model_call (id, "runId", "stepId", attempt, model, "promptTokens", "cachedTokens", "completionTokens", estimated, status, "httpStatus", billed,
                             cause, "latencyMs", "costUsd", "priceVersion", "createdAt")
       SELECT run || ':c' || g, run, 'model-' || g, 0, (SELECT p.model FROM agent_profile p JOIN task t ON t."profileId" = p.id WHERE t.id = task),
              CASE WHEN unbilled THEN 0 ELSE prompt END, cached, CASE WHEN unbilled THEN 0 ELSE completion END, w < 0.03,
              CASE WHEN cause = 'retry' THEN 'error' ELSE 'ok' END, CASE WHEN unbilled THEN 429 ELSE 200 END, NOT unbilled, cause, 900,
              CASE WHEN unbilled THEN 0 ELSE round(((prompt - cached) * 0.40 + cached * 0.10 + completion * 1.60) / 1000000.0, 8) END,
              'genai-prices@0.1.8', at + (CASE run_cause WHEN 'initial' THEN 0 WHEN 'resume' THEN 31 ELSE 41 END + g) * interval '1 minute'
       FROM (
         SELECT bc.*, (floor(prompt * 0.6))::int AS cached,
                CASE WHEN run_cause = 'initial' AND i % 7 = 0 AND g > ${cp} THEN 'discarded'
                     WHEN v < 0.05 THEN 'checkpoint' WHEN v < 0.09 THEN 'retry' WHEN v < 0.11 THEN 'replay' WHEN v < 0.12 THEN 'restart'
                     ELSE 'productive' END AS cause,
                (v >= 0.05 AND v < 0.054) AS unbilled
         FROM bc
       ) x`,
    `INSERT INTO escalation (id, "taskId", "runId", "stepId", reason, message, "dueAt", status, "createdAt")
       SELECT id || '-e1', id, id || '-r1', 'model-${callsPerRun}', 'loop', 'bench', at + interval '1 hour', CASE WHEN u >= 0.91 AND u < 0.96 THEN 'open' ELSE 'applied' END, at
       FROM bt WHERE (u >= 0.91 AND u < 0.96) OR i % 10 = 3`,
  ];
}

const SCRIPT = defineScript({
  program: "npm run bench:costs --",
  summary: "How fast the /costs rollups answer as the ledger grows (levels of 1,000, 10,000, 100,000 tasks, then --tasks).",
  flags: {
    tasks: { type: "string", value: "<n>", description: "tasks the last level seeds", int: { min: 100, max: MAX_TASKS } },
    max: {
      type: "string",
      value: "<n>",
      description: "the same as --tasks (its first name; --tasks wins when both are given)",
      int: { min: 100, max: MAX_TASKS },
    },
    "calls-per-task": {
      type: "string",
      value: "<n>",
      description: "model calls of each task's initial run (4 makes 1,000,000 tasks seedable)",
      int: { min: 1, max: 100 },
      default: 28,
    },
    repeat: { type: "string", value: "<n>", description: "timed runs per query (the median is reported)", int: { min: 1, max: 50 }, default: 5 },
    explain: { type: "boolean", description: "print the rollup query's plan at each level (stderr)" },
  },
  notes: ["Without --tasks or --max the last level is 100,000 tasks. See the docstring of scripts/bench-costs.ts for the data and the figures."],
  examples: ["npm run bench:costs -- --tasks 1000000 --calls-per-task 4"],
});

async function main(flags: FlagsOf<typeof SCRIPT>): Promise<number> {
  // --tasks, or --max (its first name); the size the last level seeds.
  const max = flags.tasks ?? flags.max ?? 100_000;
  const repeat = flags.repeat;
  // Model calls of each task's initial run (its resume and fork scale with it). /costs reads only the
  // rollup tables, whose size does not depend on it; a thinner ledger makes 1,000,000 tasks seedable
  // here (28 → ~30 M calls and 60 M step rows; 4 → ~5 M and 10 M). Reported as `ledger`.
  const callsPerRun = flags["calls-per-task"];
  const levels = [1_000, 10_000, 100_000, max].filter((n, i, all) => n <= max && all.indexOf(n) === i).sort((a, b) => a - b);
  const db = await startBenchDatabase({ name: "bench_costs", tag: TAG });
  const prisma = createPrismaClient(db.url, { max: 2 });
  const costsQueryMs: Record<string, number> = {};
  const detail: Record<string, Record<string, number>> = {};
  const seedMs: Record<string, number> = {};
  const rows: Record<string, Record<string, number>> = {};
  const writeMsPerCall: Record<string, { withRollup: number; withoutRollup: number }> = {};
  let rollupMatchesRebuild = true;
  try {
    for (const p of PROFILES) {
      await prisma.agentProfile.create({ data: { id: p.id, name: p.name, model: p.model, tools: [] } });
    }
    let seeded = 0;
    for (const level of levels) {
      const t0 = performance.now();
      while (seeded < level) {
        const hi = Math.min(level, seeded + BATCH);
        await prisma.$transaction(
          async (tx) => {
            await tx.$executeRawUnsafe(`SET LOCAL session_replication_role = replica`);
            await tx.$executeRawUnsafe(`SELECT setseed(${(0.42 + seeded / 1e7).toFixed(7)})`);
            for (const sql of seedBatchSql(seeded, hi, callsPerRun)) await tx.$executeRawUnsafe(sql);
          },
          { timeout: 600_000, maxWait: 60_000 },
        );
        seeded = hi;
        progress(TAG, `seeded ${seeded} tasks`);
      }
      await prisma.$queryRawUnsafe(`SELECT longhaul_task_cost_rebuild()`);
      await prisma.$executeRawUnsafe(`ANALYZE`);
      seedMs[level] = Math.round(performance.now() - t0);
      const [count] = await prisma.$queryRawUnsafe<{ calls: bigint; steps: bigint; summaries: bigint; rollup: bigint }[]>(
        `SELECT (SELECT count(*) FROM model_call) AS calls, (SELECT count(*) FROM step) AS steps, (SELECT count(*) FROM task_cost) AS summaries,
                (SELECT count(*) FROM cost_rollup) AS rollup`,
      );
      rows[level] = {
        tasks: level,
        modelCalls: Number(count?.calls),
        steps: Number(count?.steps),
        summaries: Number(count?.summaries),
        rollupRows: Number(count?.rollup),
      };
      progress(TAG, `level ${level}: ${rows[level].modelCalls} model calls, ${rows[level].steps} steps, seeded in ${seedMs[level]} ms`);

      const page = (await prisma.task.findMany({ orderBy: { createdAt: "desc" }, take: 100, select: { id: true } })).map((t) => t.id);
      const queries: Record<string, () => Promise<unknown>> = {
        all: () => costRollup({ prisma, filters: costFiltersSchema.parse({}) }),
        profile: () => costRollup({ prisma, filters: costFiltersSchema.parse({ profile: "bench-mini" }) }),
        weekRange: () => costRollup({ prisma, filters: costFiltersSchema.parse({ from: "2026-11-09", to: "2026-11-22", bucket: "week" }) }),
        outcome: () => costRollup({ prisma, filters: costFiltersSchema.parse({ outcome: "failed" }) }),
        taskTotals100: () => taskCostTotals({ prisma, taskIds: page }),
      };
      const medians: Record<string, number> = {};
      for (const [name, q] of Object.entries(queries)) {
        await q(); // warm
        const times: number[] = [];
        for (let k = 0; k < repeat; k++) {
          const s = performance.now();
          await q();
          times.push(performance.now() - s);
        }
        times.sort((a, b) => a - b);
        medians[name] = Math.round(times[Math.floor(times.length / 2)]! * 10) / 10;
      }
      if (flags.explain) progress(TAG, `plan at ${level}:\n${await explainCostRollup({ prisma, filters: costFiltersSchema.parse({}) })}`);
      const headline = (await costRollup({ prisma, filters: costFiltersSchema.parse({}) })).headline;
      progress(
        TAG,
        `level ${level}: ${JSON.stringify(medians)} ms · cost per completed task $${headline.costPerCompletedUsd?.toFixed(4)} · waste ${Math.round((headline.wasteShare ?? 0) * 100)}%`,
      );
      detail[level] = medians;
      costsQueryMs[level] = Math.max(...Object.values(medians));

      // The write path: one ledger row per transaction, as recordModelCall writes them, with the
      // rollup triggers on (ledger row → task_cost → cost_rollup) and, for comparison, off.
      const WRITES = 300;
      const writeCalls = async (rollup: "on" | "off") => {
        const w0 = performance.now();
        for (let k = 0; k < WRITES; k++) {
          const task = `bt_${String((k * 7919) % level).padStart(7, "0")}`;
          await prisma.$transaction([
            prisma.$queryRawUnsafe(`SELECT set_config('longhaul.cost_rollup', $1, true)`, rollup),
            prisma.$executeRawUnsafe(
              `INSERT INTO model_call (id, "runId", "stepId", attempt, model, "promptTokens", "cachedTokens", "completionTokens", status, "httpStatus", billed,
                                       cause, "latencyMs", "costUsd", "priceVersion")
               VALUES ($1, $2, 'model-99', 0, 'gpt-4.1-mini', 2000, 1200, 200, 'ok', 200, true, 'productive', 900, 0.00072, 'genai-prices@0.1.8')`,
              `w${level}-${rollup}-${k}`,
              `${task}-r1`,
            ),
          ]);
        }
        return Math.round(((performance.now() - w0) / WRITES) * 100) / 100;
      };
      const sums = () =>
        prisma.$queryRawUnsafe<{ usd: string; tasks: bigint; calls: bigint }[]>(
          `SELECT sum("costUsd")::text AS usd, sum(tasks) AS tasks, sum(calls) AS calls FROM cost_rollup`,
        );
      const withRollup = await writeCalls("on");
      const [kept] = await sums();
      await prisma.$queryRawUnsafe(`SELECT longhaul_task_cost_rebuild()`);
      const [rebuilt] = await sums();
      const agrees = Math.abs(Number(kept?.usd) - Number(rebuilt?.usd)) < 1e-8 && kept?.tasks === rebuilt?.tasks && kept?.calls === rebuilt?.calls;
      rollupMatchesRebuild &&= agrees;
      const withoutRollup = await writeCalls("off");
      await prisma.$queryRawUnsafe(`SELECT longhaul_task_cost_rebuild()`);
      writeMsPerCall[level] = { withRollup, withoutRollup };
      progress(
        TAG,
        `level ${level}: ${withRollup} ms per model call with the rollup triggers, ${withoutRollup} ms without; rollup ${agrees ? "equals" : "DIFFERS FROM"} its rebuild`,
      );
    }
  } finally {
    await prisma.$disconnect();
    await db.stop();
  }
  const atMax = costsQueryMs[String(max)] ?? null;
  const goals = { costsUnder250ms: { tasks: max, ms: atMax, max: GOAL_MS, holds: atMax !== null && atMax < GOAL_MS } };
  console.log(
    JSON.stringify({ tasks: max, ledger: { callsPerTask: callsPerRun }, costsQueryMs, detail, writeMsPerCall, rollupMatchesRebuild, goals, seedMs, rows }),
  );
  return (costsQueryMs["10000"] !== undefined && costsQueryMs["10000"] >= 1000) || !rollupMatchesRebuild ? 1 : 0;
}

runScript(SCRIPT, main);
