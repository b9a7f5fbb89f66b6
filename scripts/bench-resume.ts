/**
 * `npm run bench:resume -- [--limit 50] [--live-runs 4] [--live-share 0.5] [--runs 2000] [--seed 1] [--simulate-only]`
 *
 * The arithmetic of long runs, in tokens: what a failure costs a task, on the license-audit demo with
 * the scripted model. Two parts, kept apart in the output:
 *
 * **Live (the gate, on by default).** Measured in the product, nothing simulated: on the real stack
 * (an ephemeral embedded PostgreSQL, the scripted model server, the app serving the real `agent-run`
 * function — tests/support/serve-functions.ts, a bare `inngest/node` server, not the Next.js app —
 * and the embedded executor, tests/support/agent-stack.ts, all on free loopback ports), one clean
 * demo run (`--limit` packages) gives the nominal cost: its tokens (prompt + completion, every model
 * call, checkpoint summaries included). Then `--live-runs` more demo runs with the seeded profile's
 * auto-resume on (the seeded `scripted` profile: autoResumeMax 2); in a seeded share (`--live-share`)
 * of them a run-ending failure is armed through the scripted model's control endpoint (429 × retries
 * + 1, outlasting the step's retries) once the task's tokens in the ledger (task_cost, all runs) pass a
 * seeded point between 20 % and 90 % of nominal; one more run is struck at 80 %. Each struck run
 * fails, and Longhaul resumes it from its last checkpoint (a new run of the same task). Tokens per
 * completed task come from the ledger. `live: {nominal, resume, resume80, ratio80, resumeRatio, runs,
 * struck, struck80}` (ratio80 = resume80 ÷ nominal; resumeRatio = resume ÷ nominal over the seeded
 * runs; struck80 = the 80 % run really failed and auto-resumed). Goal `liveResume80`: the run struck
 * at 80 % really failed and auto-resumed, and its ledger tokens are ≤ 1.05 × nominal (a
 * failed run loses no more than the call in flight, since every completed step is memoized).
 *
 * **Simulated (labelled `simulated`, informational, never gating).** Arithmetic over the clean run's
 * measured token profile — one entry per model call, in timeline order (Step.index), checkpoint
 * summary calls included — and its checkpoints (after how many model calls each was saved;
 * `Checkpoint.contextTokens`, the prompt tokens a run resumed from it starts with). With a seeded RNG,
 * `--runs` runs of that profile under a failure model:
 *    - every model call carries the same hazard h of a run-ending failure (the call's tokens are
 *      paid, its result lost), calibrated so that a share p of runs fails at least once:
 *      h = 1 − (1 − p)^(1/calls);
 *    - **restart** = recovering from zero: after a failure the same run — Longhaul's own profile,
 *      with its checkpoint summary calls and segment cuts — starts again from call 0 and pays
 *      everything again. It is not a system without checkpoints: the ratio answers "recover from a
 *      checkpoint versus from zero, for this run", not "do checkpoints pay for themselves";
 *    - **resume** = recovering from a checkpoint of the same run: after a failure at call i the run
 *      goes on from the last checkpoint saved before call i (one whose summary call had completed):
 *      it pays that checkpoint's `contextTokens` once, then the profile from the call after the
 *      checkpoint. With no checkpoint yet it restarts. Paying the context once more is conservative;
 *    - both strategies see the same failures: run r draws from its own RNG (seed, r), one draw per
 *      model call executed, so they fail at the same first call and diverge afterwards;
 *    - every simulated run completes eventually (no give-up), so tokens per completed task = mean
 *      tokens per simulated run.
 *    Scenarios: p = 15 % and p = 50 % of runs failing; `at80`: exactly one failure, when the run has
 *    spent 80 % of nominal tokens (restart = 1.8 × nominal); `at80WholeCall`: the same failure with
 *    that whole call billed, as in the hazard model. The at-80 % ratio depends on where 80 % falls
 *    between checkpoints. `resumeNoWorse` (informational) says whether resuming cost no more than
 *    restarting in every scenario — by construction it almost always holds, so it is not a goal.
 *
 * `--simulate-only` skips the live runs (a quick look at the arithmetic); then there is no gate and
 * `pass` is false with `gate: "none (--simulate-only)"`. (`--live`, the old switch, is accepted and
 * changes nothing.)
 *
 * Progress goes to stderr; the LAST stdout line is one compact JSON object:
 * `{live: {…}, goals: {liveResume80: {holds, ratio80, max, struck80}}, pass, gate, simulated: {note,
 * p15, p50, at80, ratio80, ratio15, at80WholeCall, hazard, failedRuns, resumeNoWorse}, limit, runs,
 * seed, calls, checkpoints, measuredMs}`. Exit 0 when `pass`, 1 otherwise.
 */
import { performance } from "node:perf_hooks";
import { AGENT_STEP_RETRIES } from "../server/inngest/functions/agent-run.ts";
import { startAgentStack, waitFor, type AgentStack } from "../tests/support/agent-stack.ts";
import { progress, round, runScript, seededRandom, startBenchDatabase } from "./lib/bench-stack.ts";
import { defineScript, type FlagsOf } from "./lib/script-args.ts";

const TAG = "bench:resume";

/** The measured run: tokens per model call in order, and where the checkpoints were. */
export interface TokenProfile {
  /** prompt + completion tokens of each model call, in timeline order. */
  calls: { stepId: string; cause: string; tokens: number }[];
  /** `afterCalls`: model calls completed when the checkpoint was saved; `contextTokens`: prompt tokens to resume from it. */
  checkpoints: { afterCalls: number; contextTokens: number; reason: string }[];
}

interface Scenario {
  nominal: number;
  restart: number;
  resume: number;
}

/** Runs the demo once through the real stack and reads its token profile and checkpoints. */
async function measureProfile(stack: AgentStack, limit: number): Promise<TokenProfile> {
  const { taskId, runId } = await stack.launchDemo({ limit });
  progress(TAG, `launched ${taskId} (limit ${limit}); waiting for it to end`);
  const status = await stack.waitForTaskStatus(taskId, undefined, 600_000);
  if (status !== "completed") throw new Error(`the measured run ended ${status}, not completed`);
  const db = stack.db;
  const runs = await db.run.count({ where: { taskId } });
  if (runs !== 1) throw new Error(`expected one run of the task, found ${runs}`);
  const steps = await db.step.findMany({ where: { runId }, select: { stepId: true, index: true } });
  const indexOf = new Map(steps.map((s) => [s.stepId, s.index]));
  const calls = (
    await db.modelCall.findMany({
      where: { runId },
      orderBy: { createdAt: "asc" },
      select: { stepId: true, cause: true, status: true, attempt: true, promptTokens: true, completionTokens: true },
    })
  )
    .map((c, order) => ({ ...c, order, index: indexOf.get(c.stepId) ?? Number.MAX_SAFE_INTEGER }))
    .sort((a, b) => a.index - b.index || a.order - b.order);
  const wasted = calls.filter((c) => c.status !== "ok" || !["productive", "checkpoint", "compaction"].includes(c.cause));
  if (wasted.length) progress(TAG, `note: ${wasted.length} non-productive call(s) in the measured run (kept in the profile)`);
  const checkpoints = await db.checkpoint.findMany({
    where: { runId },
    orderBy: { seq: "asc" },
    select: { nextIndex: true, contextTokens: true, reason: true },
  });
  return {
    calls: calls.map((c) => ({ stepId: c.stepId, cause: c.cause, tokens: c.promptTokens + c.completionTokens })),
    // The checkpoint step's index is nextIndex − 1; its summary call (if any) is included.
    checkpoints: checkpoints.map((cp) => ({
      afterCalls: calls.filter((c) => c.index <= cp.nextIndex - 1).length,
      contextTokens: cp.contextTokens,
      reason: cp.reason,
    })),
  };
}

/** The checkpoint a run failing during call `i` resumes from (the last with afterCalls ≤ i), or undefined. */
function checkpointBefore(profile: TokenProfile, i: number): TokenProfile["checkpoints"][number] | undefined {
  let found: TokenProfile["checkpoints"][number] | undefined;
  for (const cp of profile.checkpoints) if (cp.afterCalls <= i && (!found || cp.afterCalls >= found.afterCalls)) found = cp;
  return found;
}

/**
 * Tokens one simulated run pays until it completes, under `strategy`, with hazard `h` per model
 * call and `rand` as the failure source (one draw per call executed).
 */
function simulateRun(profile: TokenProfile, strategy: "restart" | "resume", h: number, rand: () => number): number {
  const n = profile.calls.length;
  let tokens = 0;
  let pos = 0;
  for (let guard = 0; guard < 1_000_000; guard++) {
    let failedAt = -1;
    for (let i = pos; i < n; i++) {
      tokens += profile.calls[i]!.tokens;
      if (rand() < h) {
        failedAt = i;
        break;
      }
    }
    if (failedAt < 0) return tokens;
    const cp = strategy === "resume" ? checkpointBefore(profile, failedAt) : undefined;
    if (cp) {
      tokens += cp.contextTokens;
      pos = cp.afterCalls;
    } else {
      pos = 0;
    }
  }
  throw new Error("a simulated run did not complete");
}

/** Mean tokens per completed task for share `p` of runs failing at least once, over `runs` seeded runs. */
function simulateShare(profile: TokenProfile, p: number, runs: number, seed: number): Scenario & { hazard: number; failedRuns: number } {
  const n = profile.calls.length;
  const h = 1 - (1 - p) ** (1 / n);
  const nominal = profile.calls.reduce((a, c) => a + c.tokens, 0);
  let restart = 0;
  let resume = 0;
  let failedRuns = 0;
  for (let r = 0; r < runs; r++) {
    const runSeed = (Math.imul(seed, 0x9e3779b1) + r) >>> 0;
    const a = simulateRun(profile, "restart", h, seededRandom(runSeed));
    restart += a;
    resume += simulateRun(profile, "resume", h, seededRandom(runSeed));
    if (a > nominal) failedRuns++;
  }
  return { nominal, restart: Math.round(restart / runs), resume: Math.round(resume / runs), hazard: h, failedRuns };
}

/**
 * Exactly one failure, when the run has spent `share` of nominal tokens (during the call at which the
 * cumulative tokens cross it). `billing`: "spent" pays exactly share × nominal before the failure
 * (restart = (1 + share) × nominal); "whole-call" pays the failing call in full, as the hazard model does.
 */
function failureAt(profile: TokenProfile, share: number, billing: "spent" | "whole-call"): Scenario & { failedCall: number; resumedAfterCalls: number } {
  const nominal = profile.calls.reduce((a, c) => a + c.tokens, 0);
  let cum = 0;
  let f = profile.calls.length - 1;
  for (let i = 0; i < profile.calls.length; i++) {
    cum += profile.calls[i]!.tokens;
    if (cum >= share * nominal) {
      f = i;
      break;
    }
  }
  const paid = billing === "spent" ? Math.round(share * nominal) : cum;
  const cp = checkpointBefore(profile, f);
  const after = cp ? profile.calls.slice(cp.afterCalls).reduce((a, c) => a + c.tokens, 0) : nominal;
  return { nominal, restart: paid + nominal, resume: paid + (cp?.contextTokens ?? 0) + after, failedCall: f, resumedAfterCalls: cp?.afterCalls ?? 0 };
}

interface LiveResult {
  nominal: number;
  resume: number;
  resume80: number;
  ratio80: number;
  resumeRatio: number;
  runs: number;
  struck: number;
  struck80: boolean;
}

/** The live goal: resume at 80 % ≤ 1.05 × nominal. */
const LIVE_RATIO80_MAX = 1.05;

/** Tokens (prompt + completion) of a task's model calls, all runs, from its ledger summary. */
async function ledgerTokens(stack: AgentStack, taskId: string): Promise<number> {
  const [row] = await stack.db.$queryRaw<
    { tokens: string | null }[]
  >`SELECT ("promptTokens" + "completionTokens")::text AS tokens FROM task_cost WHERE "taskId" = ${taskId}`;
  return Number(row?.tokens ?? 0);
}

/**
 * One live demo run: when `strikeAt` (share of nominal tokens) is given, arms a run-ending failure
 * once the task's ledger tokens pass it; waits for the task to complete (auto-resumed). Returns its
 * ledger tokens and whether a run actually failed (the task has more than one run).
 */
async function liveRun(
  stack: AgentStack,
  { limit, nominalTokens, strikeAt }: { limit: number; nominalTokens: number; strikeAt: number | null },
): Promise<{ tokens: number; struck: boolean }> {
  const { taskId } = await stack.launchDemo({ limit });
  if (strikeAt !== null) {
    await waitFor(
      `task ${taskId} to pass ${Math.round(strikeAt * 100)} % of nominal tokens`,
      async () => (await ledgerTokens(stack, taskId)) >= strikeAt * nominalTokens,
      600_000,
      20,
    );
    await stack.armFaults({ kind: "429", count: AGENT_STEP_RETRIES + 1, retryAfterSeconds: 0 });
  }
  // A transient failure ends the run failed and opens the auto-resume right after: the task is
  // "failed" for a moment. Done = completed, or ended with no auto-resume coming (another end
  // reason, or the profile's auto-resumes used up).
  const status = await waitFor(
    `task ${taskId} to complete (auto-resumed)`,
    async () => {
      const task = await stack.db.task.findUniqueOrThrow({ where: { id: taskId }, select: { status: true, profile: { select: { autoResumeMax: true } } } });
      if (task.status === "completed") return task.status;
      if (!["dead_end", "failed", "cancelled"].includes(task.status)) return undefined;
      const runs = await stack.db.run.findMany({ where: { taskId }, orderBy: { startedAt: "desc" }, select: { status: true, endReason: true, cause: true } });
      const autoResumes = runs.filter((r) => r.cause === "auto_resume").length;
      const last = runs[0];
      return last && last.status !== "running" && (last.endReason !== "transient" || autoResumes >= task.profile.autoResumeMax) ? task.status : undefined;
    },
    600_000,
    100,
  );
  await fetch(`${stack.model.url}/control/faults`, { method: "DELETE" });
  if (status !== "completed") throw new Error(`live run ${taskId} ended ${status}, not completed`);
  const runs = await stack.db.run.count({ where: { taskId } });
  return { tokens: await ledgerTokens(stack, taskId), struck: runs > 1 };
}

/** The live measurement (the default gate): N seeded runs (a share struck at a seeded point) and one struck at 80 %, tokens from the ledger. */
async function measureLive(
  stack: AgentStack,
  { limit, nominalTokens, runs, share, seed }: { limit: number; nominalTokens: number; runs: number; share: number; seed: number },
): Promise<LiveResult> {
  if (!(share >= 0 && share <= 1)) throw new Error(`--live-share must be a number from 0 to 1, got ${share}`);
  const rand = seededRandom(seed + 7);
  const totals: number[] = [];
  let struck = 0;
  for (let r = 0; r < runs; r++) {
    const strikeAt = rand() < share ? 0.2 + 0.7 * rand() : null;
    const out = await liveRun(stack, { limit, nominalTokens, strikeAt });
    if (out.struck) struck++;
    totals.push(out.tokens);
    progress(
      TAG,
      `live run ${r + 1}/${runs}: ${strikeAt === null ? "no failure" : `failure armed at ${Math.round(strikeAt * 100)} %`}${out.struck ? " (a run failed and auto-resumed)" : ""}: ${out.tokens} tokens`,
    );
  }
  const at80 = await liveRun(stack, { limit, nominalTokens, strikeAt: 0.8 });
  progress(TAG, `live run at 80 %: ${at80.tokens} tokens${at80.struck ? " (failed and auto-resumed)" : " (the failure did not end the run)"}`);
  const resume = Math.round(totals.reduce((a, b) => a + b, 0) / totals.length);
  return {
    nominal: nominalTokens,
    resume,
    resume80: at80.tokens,
    ratio80: round(at80.tokens / nominalTokens, 3),
    resumeRatio: round(resume / nominalTokens, 3),
    runs,
    struck: struck + (at80.struck ? 1 : 0),
    struck80: at80.struck,
  };
}

const SCRIPT = defineScript({
  program: "npm run bench:resume --",
  summary: "Tokens per completed task when runs fail and resume from a checkpoint: live runs (the gate), simulated arithmetic beside them.",
  flags: {
    limit: { type: "string", value: "<n>", description: "packages of each demo run", int: { min: 1, max: 500 }, default: 50 },
    "live-runs": { type: "string", value: "<n>", description: "live demo runs with auto-resume on", int: { min: 1, max: 100 }, default: 4 },
    "live-share": { type: "string", value: "<0-1>", description: "share of the live runs struck by a failure", number: { min: 0, max: 1 }, default: 0.5 },
    runs: { type: "string", value: "<n>", description: "simulated runs per scenario", int: { min: 1, max: 1_000_000 }, default: 2_000 },
    seed: { type: "string", value: "<n>", description: "seed of the RNG", int: { min: 0, max: 2 ** 31 }, default: 1 },
    "simulate-only": { type: "boolean", description: "skip the live runs (no gate: pass is false)" },
    live: { type: "boolean", description: "the old switch for the live runs, which are on by default: accepted, changes nothing" },
  },
  notes: ["See the docstring of scripts/bench-resume.ts for the failure model and the figures."],
  examples: ["npm run bench:resume", "npm run bench:resume -- --limit 8 --live-runs 2 --runs 500"],
});

async function main(flags: FlagsOf<typeof SCRIPT>): Promise<number> {
  const { limit, runs, seed } = flags;
  const simulateOnly = flags["simulate-only"];
  const t0 = performance.now();

  const database = await startBenchDatabase({ name: "longhaul_bench_resume", tag: TAG });
  let profile: TokenProfile;
  let live: LiveResult | undefined;
  try {
    progress(TAG, "starting the model server, the app and the executor");
    const stack = await startAgentStack({ databaseUrl: database.url });
    try {
      profile = await measureProfile(stack, limit);
      if (!simulateOnly) {
        const nominalTokens = profile.calls.reduce((a, c) => a + c.tokens, 0);
        live = await measureLive(stack, { limit, nominalTokens, runs: flags["live-runs"], share: flags["live-share"], seed });
      }
    } finally {
      await stack.stop();
    }
  } finally {
    await database.stop();
  }
  const measuredMs = Math.round(performance.now() - t0);
  const nominal = profile.calls.reduce((a, c) => a + c.tokens, 0);
  progress(TAG, `measured in ${measuredMs} ms: ${profile.calls.length} model calls, ${nominal} tokens, ${profile.checkpoints.length} checkpoints`);
  progress(TAG, `tokens per call: ${profile.calls.map((c) => c.tokens).join(" ")}`);
  for (const cp of profile.checkpoints) progress(TAG, `checkpoint (${cp.reason}) after call ${cp.afterCalls}: resume context ${cp.contextTokens} tokens`);

  const p15 = simulateShare(profile, 0.15, runs, seed);
  const p50 = simulateShare(profile, 0.5, runs, seed + 1);
  const at80 = failureAt(profile, 0.8, "spent");
  const at80WholeCall = failureAt(profile, 0.8, "whole-call");
  const ratio80 = round(at80.restart / at80.resume, 3);
  const scenarios = { p15, p50, at80, at80WholeCall };
  const worse = Object.entries(scenarios)
    .filter(([, sc]) => sc.resume > sc.restart)
    .map(([name]) => name);
  const goals: Record<string, { holds: boolean; [figure: string]: unknown }> = {};
  if (live)
    goals.liveResume80 = { holds: live.struck80 && live.ratio80 <= LIVE_RATIO80_MAX, ratio80: live.ratio80, max: LIVE_RATIO80_MAX, struck80: live.struck80 };
  const pass = live !== undefined && Object.values(goals).every((g) => g.holds);
  progress(TAG, `p15: h=${p15.hazard.toExponential(3)}, ${p15.failedRuns}/${runs} runs failed at least once`);
  progress(TAG, `p50: h=${p50.hazard.toExponential(3)}, ${p50.failedRuns}/${runs} runs failed at least once`);
  progress(
    TAG,
    `at80: failure during call ${at80.failedCall + 1} of ${profile.calls.length}, resumed after call ${at80.resumedAfterCalls}; with that call billed in full: ratio ${round(at80WholeCall.restart / at80WholeCall.resume, 3)}`,
  );
  progress(TAG, `simulated (informational): resume no worse than restart in every scenario: ${worse.length === 0 ? "yes" : `no (${worse.join(", ")})`}`);
  for (const [name, g] of Object.entries(goals)) progress(TAG, `goal ${name}: ${g.holds ? "holds" : "FAILS"} ${JSON.stringify(g)}`);
  progress(TAG, pass ? "PASS" : "FAIL");
  const pick = ({ nominal: n, restart, resume }: Scenario) => ({ nominal: n, restart, resume });
  console.log(
    JSON.stringify({
      ...(live ? { live } : {}),
      goals,
      pass,
      gate: live ? "live" : "none (--simulate-only)",
      simulated: {
        note: "arithmetic over the measured profile, not measured: restart = the same run recovering from zero, resume = from its last checkpoint",
        p15: pick(p15),
        p50: pick(p50),
        at80: pick(at80),
        ratio80,
        ratio15: round(p15.resume / p15.nominal, 3),
        at80WholeCall: { ...pick(at80WholeCall), ratio: round(at80WholeCall.restart / at80WholeCall.resume, 3) },
        hazard: { p15: p15.hazard, p50: p50.hazard },
        failedRuns: { p15: p15.failedRuns, p50: p50.failedRuns },
        resumeNoWorse: { holds: worse.length === 0, worseIn: worse },
      },
      limit,
      runs,
      seed,
      calls: profile.calls.length,
      checkpoints: profile.checkpoints.map((cp) => ({ afterCalls: cp.afterCalls, contextTokens: cp.contextTokens, reason: cp.reason })),
      measuredMs,
    }),
  );
  return pass ? 0 : 1;
}

runScript(SCRIPT, main);
