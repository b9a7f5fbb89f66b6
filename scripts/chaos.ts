/**
 * `npm run chaos -- [--tasks 4] [--kills 6] [--seed 1] [--min-limit 15] [--max-limit 30]
 *                   [--min-gap-ms 1500] [--max-gap-ms 6000] [--deadline-s 600]`
 * `npm run chaos -- --stack …`: chaos against the stack `npm start` runs (scripts/chaos-stack.ts).
 *
 * Harness mode (without `--stack`). Its "app" is NOT the Next.js web app: it is
 * tests/support/serve-functions.ts, a bare `inngest/node` server serving Longhaul's real functions;
 * PostgreSQL and the model server are never killed here, and the only side effect is `send_email`,
 * whose outbox row commits in the same transaction as its ledger row (so "no duplicate" mostly holds
 * by construction). `--stack` is the test of what users run.
 *
 * Chaos test of durability with real signals. Starts, on free loopback ports, an ephemeral embedded
 * PostgreSQL (temp dir, migrations applied), the scripted model server (in process), the app process
 * serving Longhaul's real Inngest functions (tests/support/serve-functions.ts) and the embedded
 * executor (server/executor/main.ts), both as child processes via the integration harness
 * (tests/support/agent-stack.ts). Launches `--tasks` license-audit demo tasks, package limits drawn
 * from [min-limit, max-limit], then, while they run, `kill -9`s (SIGKILL) the executor or the app
 * `--kills` times in total — half of them each, in an order and at moments drawn from a seeded RNG
 * (`--seed`; gaps uniform in [min-gap-ms, max-gap-ms]) — restarting the killed process after a
 * pause of 0–500 ms. Kills stop early
 * when every task has ended. Then waits for every task to end (`--deadline-s`) and hands what the
 * database holds to the exactly-once oracle both chaos modes share (scripts/lib/exactly-once.ts), which
 * returns one line per violation (task, effect, count seen vs expected) and these counts:
 *
 * - completed: tasks whose status is `completed`;
 * - csvCorrect: tasks whose latest `licenses.csv` equals `expectedLicenseCsv(workspace, limit)`;
 * - duplicateSideEffects: outbox rows beyond one per task, plus side-effect ledger rows (not answered
 *   deduplicated) beyond one per (task, tool, fingerprint) — the same effect committed twice under
 *   different keys (a ledger key cannot hold two rows: it is unique);
 * - missingEmails: completed tasks with no outbox row;
 * - reexecutedSteps: Σ(attempts − 1) over the tasks' Step rows — step bodies run again because a kill
 *   interrupted them (reported, not a failure).
 *
 * Pass: at least one kill of each of the two targets (a run that ended before them proves nothing)
 * and no violation (every task completed, every CSV exact, no duplicate side effect, no missing
 * email). Progress goes to
 * stderr; the LAST stdout line is one compact JSON object:
 * `{mode: "harness", app: "tests/support/serve-functions.ts …", tasks, completed, duplicateSideEffects,
 *   reexecutedSteps, csvCorrect, kills, killsByTarget, durationMs, pass, violations: [line…], …}`.
 * Exit code 0 on pass, 1 otherwise. Everything started is stopped at the end.
 */
import { performance } from "node:perf_hooks";
import { expectedLicenseCsv } from "../server/tools/demo/license-audit.ts";
import { startAgentStack, WORKSPACE, type AgentStack } from "../tests/support/agent-stack.ts";
import { progress, round, runScript, seededRandom, sleep, startBenchDatabase } from "./lib/bench-stack.ts";
import { defineScript, type FlagsOf } from "./lib/script-args.ts";
import { chaosFlagProblems, chaosFlags } from "./lib/chaos-flags.ts";
import { runStackChaos, STACK_CHAOS } from "./chaos-stack.ts";
import { SETTLED_TASK_STATUSES } from "../lib/contracts/status.ts";
import { judgeExactlyOnce, type ChaosEvidence, type ObservedTask } from "./lib/exactly-once.ts";

const TAG = "chaos";
/** What the harness mode's "app" is, said in its output. */
const HARNESS_APP = "tests/support/serve-functions.ts (a bare inngest/node server serving the real functions; not the Next.js web app)";
const SETTLED: ReadonlySet<string> = new Set(SETTLED_TASK_STATUSES);

interface LaunchedTask {
  taskId: string;
  runId: string;
  limit: number;
}

async function taskStatuses(stack: AgentStack, tasks: LaunchedTask[]): Promise<Map<string, string>> {
  const rows = await stack.db.task.findMany({ where: { id: { in: tasks.map((t) => t.taskId) } }, select: { id: true, status: true } });
  return new Map(rows.map((r) => [r.id, r.status]));
}

async function allEnded(stack: AgentStack, tasks: LaunchedTask[]): Promise<boolean> {
  const statuses = await taskStatuses(stack, tasks);
  return tasks.every((t) => SETTLED.has(statuses.get(t.taskId) ?? ""));
}

/**
 * What the run left in the database, for the exactly-once oracle: each task's status and latest
 * `licenses.csv` (against `expectedLicenseCsv`), its outbox rows and its side-effect ledger rows.
 */
async function gatherEvidence(stack: AgentStack, tasks: LaunchedTask[], statuses: Map<string, string>): Promise<ChaosEvidence> {
  const taskIds = tasks.map((t) => t.taskId);
  const observed: ObservedTask[] = [];
  for (const t of tasks) {
    const artifact = await stack.db.artifact.findFirst({
      where: { taskId: t.taskId, name: "licenses.csv" },
      orderBy: { createdAt: "desc" },
      select: { content: true },
    });
    const csv = { actual: artifact?.content ?? null, expected: await expectedLicenseCsv(WORKSPACE, t.limit) };
    observed.push({ kind: "license-audit", taskId: t.taskId, status: statuses.get(t.taskId) ?? "missing", csv });
  }
  const outbox = await stack.db.outboxMessage.findMany({ where: { taskId: { in: taskIds } }, select: { taskId: true } });
  const ledger = await stack.db.sideEffect.findMany({
    where: { taskId: { in: taskIds } },
    select: { taskId: true, tool: true, fingerprint: true, idempotencyKey: true, result: true },
  });
  return {
    tasks: observed,
    outbox,
    ledger: ledger.map((r) => ({ ...r, deduplicated: isDeduplicated(r.result) })),
  };
}

/** Whether a ledger row's recorded result says it was answered from an earlier one (`deduplicated: true`). */
function isDeduplicated(result: unknown): boolean {
  return typeof result === "object" && result !== null && (result as { deduplicated?: unknown }).deduplicated === true;
}

/** Kills `which` with SIGKILL and starts it again; returns how long it was down (ms). */
async function killAndRestart(stack: AgentStack, which: "app" | "executor", pauseMs: number): Promise<number> {
  const t0 = performance.now();
  const code = await stack.kill(which, "SIGKILL");
  progress(TAG, `kill -9 ${which} (exit ${code === null ? "signal" : code})`);
  await sleep(pauseMs);
  if (which === "app") await stack.startApp();
  else await stack.startExecutor();
  const down = performance.now() - t0;
  progress(TAG, `${which} restarted after ${Math.round(down)} ms`);
  return down;
}

/** The flags of the harness mode; `--stack` switches to the stack mode and its flags (STACK_CHAOS). */
const HARNESS_CHAOS = defineScript({
  program: "npm run chaos --",
  summary: `Chaos of the harness: kill -9 the executor and the "app", ${HARNESS_APP}, while license-audit tasks run; every task completes, every effect once.`,
  flags: {
    stack: { type: "boolean", description: "chaos against the stack npm start runs instead (its flags: npm run chaos -- --stack --help)" },
    ...chaosFlags({ kills: 6, minLimit: 15, maxLimit: 30, minGapMs: 1_500, deadlineS: { min: 10, max: 3_600, default: 600 } }),
  },
  notes: ["See the docstring of scripts/chaos.ts for the checks; --stack is the test of what users run."],
  examples: ["npm run chaos -- --tasks 4 --kills 6", "npm run chaos -- --stack"],
  check: chaosFlagProblems,
});

async function main(flags: FlagsOf<typeof HARNESS_CHAOS>): Promise<number> {
  const { tasks: taskCount, kills: plannedKills, seed } = flags;
  const [minLimit, maxLimit, minGap, maxGap] = [flags["min-limit"], flags["max-limit"], flags["min-gap-ms"], flags["max-gap-ms"]];
  const deadlineMs = flags["deadline-s"] * 1_000;
  const rng = seededRandom(seed);
  const t0 = performance.now();

  const database = await startBenchDatabase({ name: "longhaul_chaos", tag: TAG });
  let stack: AgentStack | undefined;
  try {
    progress(TAG, "starting the model server, the app and the executor");
    stack = await startAgentStack({ databaseUrl: database.url });

    const tasks: LaunchedTask[] = [];
    for (let i = 0; i < taskCount; i++) {
      const limit = minLimit + Math.floor(rng() * (maxLimit - minLimit + 1));
      const ids = await stack.launchDemo({ limit });
      tasks.push({ ...ids, limit });
      progress(TAG, `launched ${ids.taskId} (limit ${limit})`);
    }

    // Half the kills hit the executor, half the app (one more executor kill when odd), in a seeded order.
    const targets = Array.from({ length: plannedKills }, (_, i): "app" | "executor" => (i % 2 === 0 ? "executor" : "app"));
    for (let i = targets.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [targets[i], targets[j]] = [targets[j]!, targets[i]!];
    }
    const killLog: { target: "app" | "executor"; atMs: number; downMs: number }[] = [];
    while (killLog.length < plannedKills && performance.now() - t0 < deadlineMs) {
      await sleep(minGap + rng() * (maxGap - minGap));
      if (await allEnded(stack, tasks)) {
        progress(TAG, `every task ended after ${killLog.length} of ${plannedKills} kills`);
        break;
      }
      const target = targets[killLog.length]!;
      const pause = Math.floor(rng() * 500);
      const atMs = Math.round(performance.now() - t0);
      const downMs = await killAndRestart(stack, target, pause);
      killLog.push({ target, atMs, downMs: Math.round(downMs) });
    }

    progress(TAG, "waiting for every task to end");
    for (;;) {
      if (await allEnded(stack, tasks)) {
        // A failed run may auto-resume (the task's status follows its latest run): settle, look again.
        await sleep(2_000);
        if (await allEnded(stack, tasks)) break;
      }
      if (performance.now() - t0 > deadlineMs) {
        progress(TAG, `deadline of ${deadlineMs / 1000} s reached`);
        break;
      }
      await sleep(500);
    }

    const db = stack.db;
    const taskIds = tasks.map((t) => t.taskId);
    const statuses = await taskStatuses(stack, tasks);
    const runs = await db.run.findMany({ where: { taskId: { in: taskIds } }, select: { id: true, taskId: true } });
    const steps = await db.step.findMany({ where: { runId: { in: runs.map((r) => r.id) } }, select: { attempts: true, stepId: true, runId: true } });
    const reexecutedSteps = steps.reduce((acc, s) => acc + Math.max(0, s.attempts - 1), 0);
    const verdict = judgeExactlyOnce(await gatherEvidence(stack, tasks, statuses));
    for (const t of verdict.tasks) {
      const taskRuns = new Set(runs.filter((r) => r.taskId === t.taskId).map((r) => r.id));
      const reexecuted = steps.filter((s) => taskRuns.has(s.runId)).reduce((acc, s) => acc + Math.max(0, s.attempts - 1), 0);
      const limit = tasks.find((l) => l.taskId === t.taskId)?.limit;
      progress(TAG, `${t.taskId} limit ${limit}: ${t.status}, csv ${t.csvExact ? "exact" : "WRONG"}, ${t.emails} email(s), ${reexecuted} re-executed step(s)`);
    }
    const reexecutedByStep = steps.filter((s) => s.attempts > 1).map((s) => `${s.stepId}×${s.attempts}`);
    if (reexecutedByStep.length) progress(TAG, `re-executed: ${reexecutedByStep.join(", ")}`);
    for (const v of verdict.violations) progress(TAG, v.line);

    const { completed, csvCorrect, duplicateSideEffects, missingEmails } = verdict.counts;
    const killsByTarget = { app: killLog.filter((k) => k.target === "app").length, executor: killLog.filter((k) => k.target === "executor").length };
    const everyTargetKilled = killsByTarget.app > 0 && killsByTarget.executor > 0;
    const pass = everyTargetKilled && verdict.violations.length === 0;
    if (!everyTargetKilled) progress(TAG, `not every target was killed (${JSON.stringify(killsByTarget)}): more --kills, shorter gaps or longer tasks`);
    const result = {
      mode: "harness",
      app: HARNESS_APP,
      tasks: taskCount,
      completed,
      duplicateSideEffects,
      reexecutedSteps,
      csvCorrect,
      kills: killLog.length,
      durationMs: Math.round(performance.now() - t0),
      pass,
      seed,
      killsPlanned: plannedKills,
      killsByTarget,
      everyTargetKilled,
      meanDownMs: killLog.length ? round(killLog.reduce((a, k) => a + k.downMs, 0) / killLog.length, 0) : 0,
      missingEmails,
      limits: tasks.map((t) => t.limit),
      statuses: verdict.tasks.map((t) => t.status),
      violations: verdict.violations.map((v) => v.line),
    };
    progress(TAG, pass ? "PASS" : "FAIL");
    const leftAlive = await stack.stop();
    stack = undefined;
    if (leftAlive.length) progress(TAG, `still alive after stop: ${leftAlive.map((c) => `${c.name}:${c.child.pid}`).join(", ")}`);
    console.log(JSON.stringify(result));
    return pass ? 0 : 1;
  } finally {
    if (stack) await stack.stop();
    await database.stop();
  }
}

// `--stack` picks the mode; each mode's spec (both declare --stack) then parses the whole line.
if (process.argv.slice(2).includes("--stack")) runScript(STACK_CHAOS, runStackChaos);
else runScript(HARNESS_CHAOS, main);
