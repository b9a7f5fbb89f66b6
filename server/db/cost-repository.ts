import type { ModelCallRecord } from "../agent/ports.ts";
import { correctedEarlierCause, type CostCause } from "../domain/cost-causes.ts";
import { priceModelCall } from "../domain/cost.ts";
import { AppError } from "../errors.ts";
import { crashPoint } from "../fault-injection.ts";
import type { Prisma, PrismaClient } from "./client.ts";
import { taskProfile } from "./task-profile.ts";

type Db = PrismaClient | Prisma.TransactionClient;

/**
 * Records one model HTTP attempt in the cost ledger (docs/ARCHITECTURE.md "Cost"; one row per attempt)
 * and corrects the causes the attempt reveals:
 * - dollars are priced here, and only here, from the row's tokens and the run's profile (its price
 *   overrides, else `@pydantic/genai-prices`), with the price table's version; an unbilled attempt costs 0;
 * - `estimated`: the provider reported no usage and the tokens were counted with gpt-tokenizer;
 * - an earlier successful attempt of the same step whose result this attempt replaces becomes
 *   `retry` (earlier executor attempt) or `restart` (same attempt: the process died before the
 *   step's result was saved) — not for a `replay` of a completed step, which keeps the earlier row.
 * The per-task summary (task_cost) and the /costs rollup (cost_rollup, cost_steps) follow through
 * triggers (server/db/sql/task-cost.sql). The record's shape is the agent's port type
 * (ModelCallRecord, server/agent/ports.ts), declared once.
 * @throws Error when the run does not exist.
 */
export async function recordModelCall({
  prisma,
  estimated = false,
  reasoningTokens = 0,
  ...data
}: ModelCallRecord & { prisma: Db }): Promise<{ usd: number; priceVersion: string }> {
  const run = await prisma.run.findUniqueOrThrow({ where: { id: data.runId }, select: { taskId: true } });
  // The prices of the profile version the task launched with (a later price edit prices only new tasks).
  const p = (await taskProfile({ prisma, taskId: run.taskId })).spec;
  const price = priceModelCall({
    model: data.model,
    usage: data,
    billed: data.billed,
    // The profile's price overrides are its model's; a call on another model (an effort policy's model
    // for a level) is priced from the price package.
    prices:
      data.model === p.model
        ? {
            inputPerMTok: p.inputPricePerMTok,
            cachedPerMTok: p.cachedPricePerMTok,
            outputPerMTok: p.outputPricePerMTok,
            cacheWritePerMTok: p.cacheWritePricePerMTok,
          }
        : { inputPerMTok: null, cachedPerMTok: null, outputPerMTok: null, cacheWritePerMTok: null },
    profileName: p.name,
  });
  if (data.cause !== "replay") {
    const earlier = await prisma.modelCall.findMany({
      where: { runId: data.runId, stepId: data.stepId, status: "ok", cause: { in: ["productive", "checkpoint", "compaction"] } },
      select: { id: true, cause: true, attempt: true },
    });
    for (const row of earlier) {
      const cause = correctedEarlierCause({ earlier: row.cause as CostCause, earlierAttempt: row.attempt, currentAttempt: data.attempt });
      if (cause) await prisma.modelCall.update({ where: { id: row.id }, data: { cause } });
    }
  }
  await prisma.modelCall.create({
    data: { ...data, estimated, reasoningTokens, costUsd: price.usd.toFixed(8), priceVersion: price.priceVersion },
  });
  crashPoint("model:after-call-recorded");
  return { usd: price.usd, priceVersion: price.priceVersion };
}

/**
 * Cause correction when a task is resumed or forked, inside the transaction that creates the new run
 * (server/db/resume-ports.ts): the task's kept work (productive, checkpoint, compaction) in its other
 * runs after the checkpoint the new run starts from — all of it when it starts from the beginning —
 * becomes `discarded`; a resume (not a fork) adds what a restart from scratch would redo (the work
 * before the checkpoint) and what it discarded to the task's resume figures. Returns the discarded
 * USD. Implemented in PL/pgSQL (longhaul_cost_on_resume in server/db/sql/task-cost.sql).
 */
export async function correctCausesOnResume({
  prisma,
  taskId,
  runId,
  checkpointId,
  cause,
}: {
  prisma: Db;
  taskId: string;
  runId: string;
  checkpointId: string | null;
  cause: "resume" | "auto_resume" | "fork";
}): Promise<number> {
  const [row] = await prisma.$queryRaw<{ lost: string }[]>`SELECT longhaul_cost_on_resume(${taskId}, ${runId}, ${checkpointId}, ${cause})::text AS lost`;
  return Number(row?.lost ?? 0);
}

/** A task's spend split (USD), from its summary row. */
export interface TaskCostTotals {
  taskId: string;
  usd: number;
  productiveUsd: number;
  /** checkpoint + compaction */
  overheadUsd: number;
  /** retry + replay + discarded + restart */
  wasteUsd: number;
  /** Part of usd counted from estimated tokens; > 0 → flag the figure. */
  estimatedUsd: number;
  estimatedCalls: number;
  calls: number;
  tokens: number;
  steps: number;
  /** The price table of the task's latest call. */
  priceVersion: string | null;
  /** Every price table the task's calls were priced from, sorted (more than one: mixed). */
  priceVersions: string[];
}

interface TotalsRow {
  taskId: string;
  usd: string;
  productive: string;
  overhead: string;
  waste: string;
  estimated: string;
  estimatedCalls: number;
  calls: number;
  tokens: string;
  steps: number;
  priceVersion: string | null;
  priceVersions: string[] | null;
}

const toTotals = (r: TotalsRow): TaskCostTotals => ({
  taskId: r.taskId,
  usd: Number(r.usd),
  productiveUsd: Number(r.productive),
  overheadUsd: Number(r.overhead),
  wasteUsd: Number(r.waste),
  estimatedUsd: Number(r.estimated),
  estimatedCalls: r.estimatedCalls,
  calls: r.calls,
  tokens: Number(r.tokens),
  steps: r.steps,
  priceVersion: r.priceVersion,
  priceVersions: r.priceVersions ?? [],
});

/**
 * The one query for task totals ("totals of a task are the sum of its runs, whatever the
 * path"): per-task spend split from task_cost, by primary key — cheap for any number of ids (the
 * task list joins it for its cost column). Tasks without spend get zeros. At most 1,000 ids.
 * @throws Error when more than 1,000 ids are asked for.
 */
export async function taskCostTotals({ prisma, taskIds }: { prisma: Db; taskIds: readonly string[] }): Promise<Map<string, TaskCostTotals>> {
  if (taskIds.length > 1000) throw new Error(`taskIds: at most 1000 ids per call, got ${taskIds.length}`);
  const out = new Map<string, TaskCostTotals>();
  for (const id of taskIds)
    out.set(
      id,
      toTotals({
        taskId: id,
        usd: "0",
        productive: "0",
        overhead: "0",
        waste: "0",
        estimated: "0",
        estimatedCalls: 0,
        calls: 0,
        tokens: "0",
        steps: 0,
        priceVersion: null,
        priceVersions: [],
      }),
    );
  if (taskIds.length === 0) return out;
  const rows = await prisma.$queryRaw<TotalsRow[]>`
    SELECT c."taskId", c."costUsd"::text AS usd, c."productiveUsd"::text AS productive,
           (c."checkpointUsd" + c."compactionUsd")::text AS overhead,
           (c."retryUsd" + c."replayUsd" + c."discardedUsd" + c."restartUsd")::text AS waste,
           c."estimatedUsd"::text AS estimated, c."estimatedCalls", c.calls,
           (c."promptTokens" + c."completionTokens")::text AS tokens, c.steps, c."priceVersion", c."priceVersions"
    FROM task_cost c WHERE c."taskId" = ANY(${[...taskIds]}::text[])`;
  for (const r of rows) out.set(r.taskId, toTotals(r));
  return out;
}

/**
 * A task's model spend in USD over all its runs, from its summary row (kept by triggers, so the
 * dollar ceiling's check is one primary-key read however long the task): total, productive, waste
 * (retries, replays, discarded work, restarts) and its split, checkpoint/compaction overhead, and the
 * model HTTP attempts — all from one read of one row, so they add up.
 */
export async function taskSpend({
  prisma,
  taskId,
}: {
  prisma: Db;
  taskId: string;
}): Promise<{ usd: number; productiveUsd: number; wastedUsd: number; waste: WasteSplit; checkpointUsd: number; calls: number }> {
  // One read of the one summary row, so the total and its split always add up ("cost and
  // its split agree" while the run is live): usd = productive + overhead + waste.
  const [c] = await prisma.$queryRaw<
    { usd: string; productive: string; overhead: string; retry: string; replay: string; discarded: string; restart: string; waste: string; calls: number }[]
  >`
    SELECT "costUsd"::text AS usd, "productiveUsd"::text AS productive, ("checkpointUsd" + "compactionUsd")::text AS overhead,
           "retryUsd"::text AS retry, "replayUsd"::text AS replay, "discardedUsd"::text AS discarded, "restartUsd"::text AS restart,
           ("retryUsd" + "replayUsd" + "discardedUsd" + "restartUsd")::text AS waste, calls
    FROM task_cost WHERE "taskId" = ${taskId}`;
  const waste: WasteSplit = {
    retryUsd: Number(c?.retry ?? 0),
    replayUsd: Number(c?.replay ?? 0),
    discardedUsd: Number(c?.discarded ?? 0),
    restartUsd: Number(c?.restart ?? 0),
  };
  return {
    usd: Number(c?.usd ?? 0),
    productiveUsd: Number(c?.productive ?? 0),
    wastedUsd: Number(c?.waste ?? 0),
    waste,
    checkpointUsd: Number(c?.overhead ?? 0),
    calls: Number(c?.calls ?? 0),
  };
}

/** A task's waste by what happened (USD; server/domain/cost-causes.ts): retried calls, replays, work discarded after a resume or fork, restarts. */
export interface WasteSplit {
  retryUsd: number;
  replayUsd: number;
  discardedUsd: number;
  restartUsd: number;
}

/** One run's cost split for the task page (USD, by cause), with its tokens and estimated share. */
export interface RunCostSplit {
  runId: string;
  runCause: string;
  status: string;
  startedAt: Date;
  calls: number;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  /** Prompt tokens written to the providers' caches (priced apart from input). */
  cacheWriteTokens: number;
  usd: number;
  byCause: Record<CostCause, number>;
  estimatedUsd: number;
  estimatedCalls: number;
  unbilledCalls: number;
  priceVersions: string[];
}

/**
 * The cost split of every run of a task (task page): one grouped read of the task's model calls by
 * run (index model_call(runId, …)), and the task's totals from taskCostTotals — the runs sum to it.
 * @throws AppError NOT_FOUND for an unknown task.
 */
export async function taskRunCosts({ prisma, taskId }: { prisma: Db; taskId: string }): Promise<{ runs: RunCostSplit[]; totals: TaskCostTotals }> {
  const task = await prisma.task.findUnique({ where: { id: taskId }, select: { id: true } });
  if (!task) throw new AppError("NOT_FOUND", `task ${taskId} not found`);
  const rows = await prisma.$queryRaw<
    {
      runId: string;
      runCause: string;
      status: string;
      startedAt: Date;
      cause: string | null;
      calls: number;
      p: string;
      c: string;
      o: string;
      r: string;
      w: string;
      usd: string;
      est: string;
      estCalls: number;
      unbilled: number;
      versions: string[] | null;
    }[]
  >`
    SELECT r.id AS "runId", r.cause AS "runCause", r.status, r."startedAt", m.cause,
           count(m.id)::int AS calls, coalesce(sum(m."promptTokens"), 0)::text AS p, coalesce(sum(m."cachedTokens"), 0)::text AS c,
           coalesce(sum(m."completionTokens"), 0)::text AS o, coalesce(sum(m."reasoningTokens"), 0)::text AS r, coalesce(sum(m."cacheWriteTokens"), 0)::text AS w,
           coalesce(sum(m."costUsd"), 0)::text AS usd, coalesce(sum(m."costUsd") FILTER (WHERE m.estimated), 0)::text AS est,
           (count(m.id) FILTER (WHERE m.estimated))::int AS "estCalls", (count(m.id) FILTER (WHERE NOT m.billed))::int AS unbilled,
           array_remove(array_agg(DISTINCT m."priceVersion"), NULL) AS versions
    FROM run r LEFT JOIN model_call m ON m."runId" = r.id
    WHERE r."taskId" = ${taskId}
    GROUP BY r.id, r.cause, r.status, r."startedAt", m.cause
    ORDER BY r."startedAt", r.id`;
  const runs = new Map<string, RunCostSplit>();
  for (const row of rows) {
    let run = runs.get(row.runId);
    if (!run) {
      run = {
        runId: row.runId,
        runCause: row.runCause,
        status: row.status,
        startedAt: row.startedAt,
        calls: 0,
        promptTokens: 0,
        cachedTokens: 0,
        completionTokens: 0,
        reasoningTokens: 0,
        cacheWriteTokens: 0,
        usd: 0,
        byCause: { productive: 0, retry: 0, replay: 0, checkpoint: 0, compaction: 0, discarded: 0, restart: 0 },
        estimatedUsd: 0,
        estimatedCalls: 0,
        unbilledCalls: 0,
        priceVersions: [],
      };
      runs.set(row.runId, run);
    }
    if (row.cause === null) continue;
    run.calls += row.calls;
    run.promptTokens += Number(row.p);
    run.cachedTokens += Number(row.c);
    run.completionTokens += Number(row.o);
    run.reasoningTokens += Number(row.r);
    run.cacheWriteTokens += Number(row.w);
    run.usd += Number(row.usd);
    if (row.cause in run.byCause) run.byCause[row.cause as CostCause] += Number(row.usd);
    run.estimatedUsd += Number(row.est);
    run.estimatedCalls += row.estCalls;
    run.unbilledCalls += row.unbilled;
    for (const v of row.versions ?? []) if (v && !run.priceVersions.includes(v)) run.priceVersions.push(v);
  }
  const totals = (await taskCostTotals({ prisma, taskIds: [taskId] })).get(taskId)!;
  return { runs: [...runs.values()], totals };
}
