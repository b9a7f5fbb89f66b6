import { COST_CAUSES, type CostCause } from "../domain/cost-causes.ts";
import {
  OUTCOME_TABLE_HEADER,
  outcomeTableCells,
  toCsv,
  type CostFilters,
  type CostGroup,
  type CostOutcome,
  type FailureClass,
  type OutcomeRow,
} from "../domain/cost-rollup.ts";
import { Prisma, type PrismaClient } from "./client.ts";

/** The whole /costs page (and `cli costs`, and the `cost.rollup` procedure) in one shape. USD. */
export interface CostRollup {
  filters: CostFilters;
  headline: {
    tasks: number;
    completed: number;
    /** completed / tasks; null when no task is in scope. */
    completionRate: number | null;
    usd: number;
    /** All spend in scope ÷ completed tasks (failures, dead ends, cancellations in the numerator only). */
    costPerCompletedUsd: number | null;
    stepsMedian: number | null;
    stepsP90: number | null;
    productiveUsd: number;
    overheadUsd: number;
    wasteUsd: number;
    /** waste / usd; null when nothing was spent. */
    wasteShare: number | null;
    estimatedUsd: number;
    estimatedCalls: number;
    calls: number;
    unbilledCalls: number;
    escalations: number;
    /** Resumed tasks: restarting each from scratch would have redone `keptUsd` and lost `discardedUsd`; resuming lost `discardedUsd`. */
    resume: { tasks: number; keptUsd: number; discardedUsd: number; restartCostUsd: number; resumeCostUsd: number; savedUsd: number };
    priceVersions: string[];
  };
  byCause: Record<CostCause, number>;
  byProfile: CostGroup[];
  byModel: CostGroup[];
  byOutcome: (CostGroup & { key: CostOutcome })[];
  byFailureClass: (CostGroup & { key: FailureClass })[];
  /** Time series by `filters.bucket` (UTC day or ISO week starting Monday, key YYYY-MM-DD), with spend by cause for the stacked chart. */
  byPeriod: (CostGroup & { byCause: Record<CostCause, number> })[];
  outcomes: OutcomeRow[];
  /** The outcomes table exactly as shown (cells formatted by the domain), and the same as CSV. */
  outcomeTable: { header: string[]; rows: string[][] };
  outcomeCsv: string;
  queryMs: number;
}

interface GroupRow {
  gp: number;
  gm: number;
  go: number;
  gf: number;
  gd: number;
  profile: string | null;
  model: string | null;
  outcome: string | null;
  failure: string | null;
  period: string | null;
  tasks: number;
  completed: number;
  usd: string;
  productive: string;
  overhead: string;
  waste: string;
  estimated: string;
  est_calls: number;
  calls: number;
  unbilled: number;
  steps_completed: number;
  escalations: number;
  resumed: number;
  kept: string;
  lost: string;
  c_productive: string;
  c_retry: string;
  c_replay: string;
  c_checkpoint: string;
  c_compaction: string;
  c_discarded: string;
  c_restart: string;
}

/**
 * The SQL of the rollups: one pass over task ⋈ agent_profile ⋈ task_cost (the per-task summary kept
 * by triggers; never model_call), grouped by GROUPING SETS so headline, every breakdown and the
 * outcomes table come from the same rows. Dates are UTC on Task.createdAt.
 */
function scopeSql(f: CostFilters): Prisma.Sql {
  const where: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (f.from) where.push(Prisma.sql`t."createdAt" >= ${f.from}::date`);
  if (f.to) where.push(Prisma.sql`t."createdAt" < (${f.to}::date + 1)`);
  if (f.profile) where.push(Prisma.sql`p.name = ${f.profile}`);
  if (f.model) where.push(Prisma.sql`coalesce(c.model, p.model) = ${f.model}`);
  const outcomeFilter = f.outcome ? Prisma.sql`WHERE outcome = ${f.outcome}` : Prisma.empty;
  const bucket = f.bucket === "week" ? "week" : "day";
  return Prisma.sql`WITH scope AS (
      SELECT p.name AS profile, coalesce(c.model, p.model) AS model,
             CASE t.status WHEN 'completed' THEN 'completed' WHEN 'dead_end' THEN 'dead_end' WHEN 'failed' THEN 'failed'
                           WHEN 'cancelled' THEN 'cancelled' WHEN 'waiting_for_human' THEN 'waiting' ELSE 'running' END AS outcome,
             CASE WHEN t.status IN ('completed', 'queued', 'running') THEN NULL
                  WHEN t.status = 'dead_end' THEN 'dead_end'
                  WHEN c."lastEndReason" IS NULL OR c."lastEndReason" = 'cancelled_by_user' THEN NULL
                  WHEN c."lastEndReason" = 'budget_exhausted' THEN 'budget'
                  WHEN c."lastEndReason" IN ('transient', 'saturation', 'drift', 'loop', 'stall', 'error') THEN c."lastEndReason"
                  ELSE 'error' END AS failure,
             to_char(date_trunc(${bucket}, t."createdAt"), 'YYYY-MM-DD') AS period,
             coalesce(c."costUsd", 0) AS usd, coalesce(c."productiveUsd", 0) AS productive,
             coalesce(c."checkpointUsd" + c."compactionUsd", 0) AS overhead,
             coalesce(c."retryUsd" + c."replayUsd" + c."discardedUsd" + c."restartUsd", 0) AS waste,
             coalesce(c."estimatedUsd", 0) AS estimated, coalesce(c."estimatedCalls", 0) AS est_calls,
             coalesce(c.calls, 0) AS calls, coalesce(c.calls - c."billedCalls", 0) AS unbilled,
             coalesce(c.steps, 0) AS steps, coalesce(c.escalations, 0) AS escalations, coalesce(c.resumes, 0) AS resumes,
             coalesce(c."resumeKeptUsd", 0) AS kept, coalesce(c."resumeDiscardedUsd", 0) AS lost, c."priceVersion" AS version,
             coalesce(c."retryUsd", 0) AS c_retry, coalesce(c."replayUsd", 0) AS c_replay, coalesce(c."checkpointUsd", 0) AS c_checkpoint,
             coalesce(c."compactionUsd", 0) AS c_compaction, coalesce(c."discardedUsd", 0) AS c_discarded, coalesce(c."restartUsd", 0) AS c_restart
      FROM task t JOIN agent_profile p ON p.id = t."profileId" LEFT JOIN task_cost c ON c."taskId" = t.id
      WHERE ${Prisma.join(where, " AND ")}
    ), s AS (SELECT * FROM scope ${outcomeFilter})`;
}

function rollupSql(f: CostFilters): Prisma.Sql {
  // Two stages: one hash aggregate of the tasks in scope at the finest grain (profile × model ×
  // outcome × failure class × period: at most a few thousand rows), then the GROUPING SETS over
  // that small set. Money is summed as float8 (numeric sums are several times slower; the figures
  // are shown to 4 decimals and stay exact in the ledger and the summaries).
  return Prisma.sql`
    ${scopeSql(f)}, fine AS (
      SELECT profile, model, outcome, failure, period,
             count(*) AS tasks, count(*) FILTER (WHERE outcome = 'completed') AS completed,
             sum(usd::float8) AS usd, sum(productive::float8) AS productive, sum(overhead::float8) AS overhead, sum(waste::float8) AS waste,
             sum(estimated::float8) AS estimated, sum(est_calls) AS est_calls, sum(calls) AS calls, sum(unbilled) AS unbilled,
             coalesce(sum(steps) FILTER (WHERE outcome = 'completed'), 0) AS steps_completed,
             sum(escalations) AS escalations, count(*) FILTER (WHERE resumes > 0) AS resumed,
             sum(kept::float8) AS kept, sum(lost::float8) AS lost,
             sum(c_retry::float8) AS c_retry, sum(c_replay::float8) AS c_replay, sum(c_checkpoint::float8) AS c_checkpoint,
             sum(c_compaction::float8) AS c_compaction, sum(c_discarded::float8) AS c_discarded, sum(c_restart::float8) AS c_restart
      FROM s GROUP BY profile, model, outcome, failure, period
    )
    SELECT grouping(profile)::int AS gp, grouping(model)::int AS gm, grouping(outcome)::int AS go, grouping(failure)::int AS gf, grouping(period)::int AS gd,
           profile, model, outcome, failure, period,
           sum(tasks)::int AS tasks, sum(completed)::int AS completed,
           sum(usd)::text AS usd, sum(productive)::text AS productive, sum(overhead)::text AS overhead, sum(waste)::text AS waste,
           sum(estimated)::text AS estimated, sum(est_calls)::int AS est_calls, sum(calls)::int AS calls, sum(unbilled)::int AS unbilled,
           sum(steps_completed)::int AS steps_completed, sum(escalations)::int AS escalations, sum(resumed)::int AS resumed,
           sum(kept)::text AS kept, sum(lost)::text AS lost,
           sum(productive)::text AS c_productive, sum(c_retry)::text AS c_retry, sum(c_replay)::text AS c_replay, sum(c_checkpoint)::text AS c_checkpoint,
           sum(c_compaction)::text AS c_compaction, sum(c_discarded)::text AS c_discarded, sum(c_restart)::text AS c_restart
    FROM fine
    GROUP BY GROUPING SETS ((), (profile), (model), (outcome), (failure), (period), (profile, model))`;
}

const causesOf = (r: GroupRow): Record<CostCause, number> => ({
  productive: Number(r.c_productive ?? 0),
  retry: Number(r.c_retry ?? 0),
  replay: Number(r.c_replay ?? 0),
  checkpoint: Number(r.c_checkpoint ?? 0),
  compaction: Number(r.c_compaction ?? 0),
  discarded: Number(r.c_discarded ?? 0),
  restart: Number(r.c_restart ?? 0),
});

const groupOf = (key: string, r: GroupRow): CostGroup => {
  const usd = Number(r.usd ?? 0);
  return {
    key,
    tasks: r.tasks,
    completed: r.completed,
    usd,
    productiveUsd: Number(r.productive ?? 0),
    overheadUsd: Number(r.overhead ?? 0),
    wasteUsd: Number(r.waste ?? 0),
    estimatedUsd: Number(r.estimated ?? 0),
    costPerCompletedUsd: r.completed > 0 ? usd / r.completed : null,
  };
};

const byUsd = (a: CostGroup, b: CostGroup) => b.usd - a.usd || a.key.localeCompare(b.key);

/** EXPLAIN (ANALYZE, BUFFERS) of the rollup's main statement, for `npm run bench:costs -- --explain`. */
export async function explainCostRollup({ prisma, filters }: { prisma: PrismaClient; filters: CostFilters }): Promise<string> {
  const sql = rollupSql(filters);
  return prisma.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(`SET LOCAL enable_sort = off`);
    await tx.$executeRawUnsafe(`SET LOCAL work_mem = '32MB'`);
    const rows = await tx.$queryRawUnsafe<{ "QUERY PLAN": string }[]>(`EXPLAIN (ANALYZE, BUFFERS) ${sql.text}`, ...sql.values);
    return rows.map((r) => r["QUERY PLAN"]).join("\n");
  });
}

/**
 * The managers' rollups for the filters (see CostRollup): headline figures, breakdowns by profile,
 * model, outcome, failure class and day/week, spend by cause, and the outcomes-by-profile-and-model
 * table. One SQL statement over the per-task summaries (server/db/sql/task-cost.sql), so it answers
 * in well under a second at 10,000 tasks (`npm run bench:costs` measures it).
 */
export async function costRollup({ prisma, filters }: { prisma: PrismaClient; filters: CostFilters }): Promise<CostRollup> {
  const started = performance.now();
  const [rows, extra] = await prisma.$transaction(async (tx) => {
    // The finest-grain groups number a few thousand at most, but the planner cannot tell from CASE
    // expressions and would sort every task in scope: let it hash (in memory) instead.
    await tx.$executeRawUnsafe(`SET LOCAL enable_sort = off`);
    await tx.$executeRawUnsafe(`SET LOCAL work_mem = '32MB'`);
    const grouped = await tx.$queryRaw<GroupRow[]>(rollupSql(filters));
    // Ordered-set aggregates and DISTINCT apart from the GROUPING SETS (they would sort every set).
    const more = await tx.$queryRaw<{ median: number | null; p90: number | null; versions: string[] | null }[]>`
      ${scopeSql(filters)}
      SELECT (percentile_cont(0.5) WITHIN GROUP (ORDER BY steps) FILTER (WHERE outcome = 'completed'))::float8 AS median,
             (percentile_cont(0.9) WITHIN GROUP (ORDER BY steps) FILTER (WHERE outcome = 'completed'))::float8 AS p90,
             (SELECT array_agg(v ORDER BY v) FROM (SELECT DISTINCT version AS v FROM s WHERE version IS NOT NULL) d) AS versions
      FROM s`;
    return [grouped, more] as const;
  });
  const queryMs = Math.round(performance.now() - started);
  const total = rows.find((r) => r.gp + r.gm + r.go + r.gf + r.gd === 5);
  const only = (flag: keyof Pick<GroupRow, "gp" | "gm" | "go" | "gf" | "gd">) => rows.filter((r) => r[flag] === 0 && r.gp + r.gm + r.go + r.gf + r.gd === 4);
  const usd = Number(total?.usd ?? 0);
  const waste = Number(total?.waste ?? 0);
  const kept = Number(total?.kept ?? 0);
  const lost = Number(total?.lost ?? 0);
  const tasks = total?.tasks ?? 0;
  const completed = total?.completed ?? 0;
  const zeroCauses = Object.fromEntries(COST_CAUSES.map((c) => [c, 0])) as Record<CostCause, number>;
  const outcomes: OutcomeRow[] = rows
    .filter((r) => r.gp === 0 && r.gm === 0 && r.go + r.gf + r.gd === 3)
    .map((r) => ({
      profile: r.profile ?? "",
      model: r.model ?? "",
      launched: r.tasks,
      completed: r.completed,
      stepsPerCompleted: r.completed > 0 ? r.steps_completed / r.completed : null,
      escalationsPerTask: r.tasks > 0 ? r.escalations / r.tasks : 0,
      usd: Number(r.usd ?? 0),
      costPerCompletedUsd: r.completed > 0 ? Number(r.usd ?? 0) / r.completed : null,
      estimatedUsd: Number(r.estimated ?? 0),
    }))
    .sort((a, b) => a.profile.localeCompare(b.profile) || a.model.localeCompare(b.model));
  const cells = outcomeTableCells(outcomes);
  return {
    filters,
    headline: {
      tasks,
      completed,
      completionRate: tasks > 0 ? completed / tasks : null,
      usd,
      costPerCompletedUsd: completed > 0 ? usd / completed : null,
      stepsMedian: extra[0]?.median ?? null,
      stepsP90: extra[0]?.p90 ?? null,
      productiveUsd: Number(total?.productive ?? 0),
      overheadUsd: Number(total?.overhead ?? 0),
      wasteUsd: waste,
      wasteShare: usd > 0 ? waste / usd : null,
      estimatedUsd: Number(total?.estimated ?? 0),
      estimatedCalls: total?.est_calls ?? 0,
      calls: total?.calls ?? 0,
      unbilledCalls: total?.unbilled ?? 0,
      escalations: total?.escalations ?? 0,
      resume: { tasks: total?.resumed ?? 0, keptUsd: kept, discardedUsd: lost, restartCostUsd: kept + lost, resumeCostUsd: lost, savedUsd: kept },
      priceVersions: extra[0]?.versions ?? [],
    },
    byCause: total ? causesOf(total) : zeroCauses,
    byProfile: only("gp")
      .map((r) => groupOf(r.profile ?? "", r))
      .sort(byUsd),
    byModel: only("gm")
      .map((r) => groupOf(r.model ?? "", r))
      .sort(byUsd),
    byOutcome: only("go")
      .map((r) => groupOf(r.outcome ?? "", r) as CostGroup & { key: CostOutcome })
      .sort(byUsd),
    byFailureClass: only("gf")
      .filter((r) => r.failure !== null)
      .map((r) => groupOf(r.failure ?? "", r) as CostGroup & { key: FailureClass })
      .sort(byUsd),
    byPeriod: only("gd")
      .map((r) => ({ ...groupOf(r.period ?? "", r), byCause: causesOf(r) }))
      .sort((a, b) => a.key.localeCompare(b.key)),
    outcomes,
    outcomeTable: { header: [...OUTCOME_TABLE_HEADER], rows: cells },
    outcomeCsv: toCsv(OUTCOME_TABLE_HEADER, cells),
    queryMs,
  };
}
