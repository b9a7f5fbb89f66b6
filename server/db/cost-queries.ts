import { COST_CAUSES, type CostCause } from "../domain/cost-causes.ts";
import {
  COST_DATE_BASIS,
  OUTCOME_TABLE_HEADER,
  outcomeTableCells,
  percentileOfHistogram,
  priceVersionsOf,
  pricesDiffer,
  outcomeTableCsv,
  type CostFilters,
  type CostGroup,
  type CostOutcome,
  type FailureClass,
  type OutcomeRow,
  type TaskCostRow,
} from "../domain/cost-rollup.ts";
import { Prisma, type PrismaClient } from "./client.ts";

/** The whole /costs page (and `cli costs`, and the `cost.rollup` procedure) in one shape. USD. */
export interface CostRollup {
  filters: CostFilters;
  /** What the dates (filters, periods) mean: COST_DATE_BASIS, "launch day (UTC)". */
  dateBasis: typeof COST_DATE_BASIS;
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
    /** Every price table the figures in scope come from, sorted. */
    priceVersions: string[];
    /** Those tables price differently (pricesDiffer: two profiles' own tables with the same prices are one price); the page says "Mixed price tables" only then. */
    mixedPrices: boolean;
    /**
     * The eval cells among the tasks in scope (tasks an eval run launched to compare profiles): how
     * many and their spend, USD; the rest of `tasks` / `usd` is production. The CSV's "Eval case"
     * column names each one.
     */
    evalCells: { tasks: number; usd: number };
  };
  byCause: Record<CostCause, number>;
  byProfile: CostGroup[];
  byModel: CostGroup[];
  byOutcome: (CostGroup & { key: CostOutcome })[];
  byFailureClass: (CostGroup & { key: FailureClass })[];
  /** Time series by `filters.bucket` (the tasks' UTC launch day, or ISO launch week starting Monday; key YYYY-MM-DD), with spend by cause for the stacked chart. */
  byPeriod: (CostGroup & { byCause: Record<CostCause, number> })[];
  outcomes: OutcomeRow[];
  /** The outcomes table exactly as shown (cells formatted by the domain), and as CSV data (same rows, plain numbers: outcomeTableCsv). */
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
  versions: string[] | null;
}

/**
 * The rollup rows in scope: cost_rollup (launch day × profile × model × outcome × failure class ×
 * price tables, kept by triggers in server/db/sql/task-cost.sql) joined to the profiles, filtered.
 * Never reads task, task_cost or model_call: a few thousand rows at any number of tasks. Dates are
 * the tasks' UTC launch days (COST_DATE_BASIS).
 */
function scopeWhere(f: CostFilters, table: "r" | "h"): Prisma.Sql {
  const t = Prisma.raw(table);
  const where: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (f.from) where.push(Prisma.sql`${t}.day >= ${f.from}::date`);
  if (f.to) where.push(Prisma.sql`${t}.day <= ${f.to}::date`);
  if (f.profile) where.push(Prisma.sql`p.name = ${f.profile}`);
  if (f.model) where.push(Prisma.sql`coalesce(nullif(${t}.model, ''), p.model) = ${f.model}`);
  return Prisma.join(where, " AND ");
}

function rollupSql(f: CostFilters): Prisma.Sql {
  const bucket = f.bucket === "week" ? "week" : "day";
  const outcome = f.outcome ? Prisma.sql`AND r.outcome = ${f.outcome}` : Prisma.empty;
  return Prisma.sql`
    WITH s AS (
      SELECT p.name AS profile, coalesce(nullif(r.model, ''), p.model) AS model, r.outcome,
             -- A cancelled task has no failure class (reportedFailureClass), whatever end reason its rollup row kept.
             CASE WHEN r.outcome = 'cancelled' THEN NULL ELSE nullif(r.failure, '') END AS failure,
             to_char(date_trunc(${bucket}, r.day), 'YYYY-MM-DD') AS period, r."priceVersions" AS version,
             r.tasks, r.completed, r.calls, r."billedCalls", r."estimatedCalls", r."costUsd", r."productiveUsd", r."retryUsd", r."replayUsd",
             r."checkpointUsd", r."compactionUsd", r."discardedUsd", r."restartUsd", r."estimatedUsd", r."stepsCompleted", r.escalations,
             r.resumed, r."resumeKeptUsd", r."resumeDiscardedUsd"
      FROM cost_rollup r JOIN agent_profile p ON p.id = r."profileId"
      WHERE ${scopeWhere(f, "r")} ${outcome}
    )
    SELECT grouping(profile)::int AS gp, grouping(model)::int AS gm, grouping(outcome)::int AS go, grouping(failure)::int AS gf, grouping(period)::int AS gd,
           profile, model, outcome, failure, period,
           sum(tasks)::int AS tasks, sum(completed)::int AS completed,
           sum("costUsd")::text AS usd, sum("productiveUsd")::text AS productive, sum("checkpointUsd" + "compactionUsd")::text AS overhead,
           sum("retryUsd" + "replayUsd" + "discardedUsd" + "restartUsd")::text AS waste,
           sum("estimatedUsd")::text AS estimated, sum("estimatedCalls")::int AS est_calls, sum(calls)::int AS calls,
           sum(calls - "billedCalls")::int AS unbilled, sum("stepsCompleted")::int AS steps_completed, sum(escalations)::int AS escalations,
           sum(resumed)::int AS resumed, sum("resumeKeptUsd")::text AS kept, sum("resumeDiscardedUsd")::text AS lost,
           sum("productiveUsd")::text AS c_productive, sum("retryUsd")::text AS c_retry, sum("replayUsd")::text AS c_replay,
           sum("checkpointUsd")::text AS c_checkpoint, sum("compactionUsd")::text AS c_compaction, sum("discardedUsd")::text AS c_discarded,
           sum("restartUsd")::text AS c_restart, array_agg(DISTINCT version) AS versions
    FROM s
    GROUP BY GROUPING SETS ((), (profile), (model), (outcome), (failure), (period), (profile, model))`;
}

/**
 * The steps histogram of the completed tasks in scope (cost_steps: completed with or without gaps);
 * an outcome filter keeps that outcome's tasks (none when it is not a completed outcome).
 */
function stepsSql(f: CostFilters): Prisma.Sql {
  const outcome = f.outcome ? Prisma.sql`AND h.outcome = ${f.outcome}` : Prisma.empty;
  return Prisma.sql`
    SELECT h.steps AS value, sum(h.tasks)::int AS count
    FROM cost_steps h JOIN agent_profile p ON p.id = h."profileId"
    WHERE ${scopeWhere(f, "h")} ${outcome}
    GROUP BY h.steps`;
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
    priceVersions: priceVersionsOf(r.versions ?? []),
  };
};

const byUsd = (a: CostGroup, b: CostGroup) => b.usd - a.usd || a.key.localeCompare(b.key);

/** pricesDiffer over `versions`, with the current prices of the profiles whose own tables they name. */
async function priceVersionsDiffer(prisma: PrismaClient, versions: readonly string[]): Promise<boolean> {
  if (versions.length < 2) return false;
  const names = versions.filter((v) => v.startsWith("profile:")).map((v) => v.replace(/ \(model not listed\)$/, "").slice("profile:".length));
  const profiles = names.length
    ? await prisma.agentProfile.findMany({
        where: { name: { in: names } },
        select: { name: true, inputPricePerMTok: true, cachedPricePerMTok: true, outputPricePerMTok: true },
      })
    : [];
  const num = (d: { toString(): string } | null) => (d === null ? null : Number(d.toString()));
  const prices = new Map(
    profiles.map((p) => [
      p.name,
      { inputPerMTok: num(p.inputPricePerMTok), cachedPerMTok: num(p.cachedPricePerMTok), outputPerMTok: num(p.outputPricePerMTok) },
    ]),
  );
  return pricesDiffer(versions, prices);
}

/** EXPLAIN (ANALYZE, BUFFERS) of the rollup's main statement, for `npm run bench:costs -- --explain`. */
export async function explainCostRollup({ prisma, filters }: { prisma: PrismaClient; filters: CostFilters }): Promise<string> {
  const sql = rollupSql(filters);
  const rows = await prisma.$queryRawUnsafe<{ "QUERY PLAN": string }[]>(`EXPLAIN (ANALYZE, BUFFERS) ${sql.text}`, ...sql.values);
  return rows.map((r) => r["QUERY PLAN"]).join("\n");
}

/**
 * The managers' rollups for the filters (see CostRollup): headline figures, breakdowns by profile,
 * model, outcome, failure class and day/week, spend by cause, and the outcomes-by-profile-and-model
 * table. Two statements over the rollup tables cost_rollup and cost_steps (kept by triggers,
 * server/db/sql/task-cost.sql), whose size grows with days × profiles × models, not with tasks, so
 * the answer time stays flat from 1,000 to 100,000 tasks (`npm run bench:costs` measures it).
 * Dates: the tasks' UTC launch days (COST_DATE_BASIS).
 */
export async function costRollup({ prisma, filters }: { prisma: PrismaClient; filters: CostFilters }): Promise<CostRollup> {
  const started = performance.now();
  // One snapshot for both statements, so the percentiles describe the same tasks as the sums.
  const [rows, steps] = await prisma.$transaction(
    async (tx) => [await tx.$queryRaw<GroupRow[]>(rollupSql(filters)), await tx.$queryRaw<{ value: number; count: number }[]>(stepsSql(filters))] as const,
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead },
  );
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
      priceVersions: priceVersionsOf(r.versions ?? []),
    }))
    .sort((a, b) => a.profile.localeCompare(b.profile) || a.model.localeCompare(b.model));
  const cells = outcomeTableCells(outcomes);
  const priceVersions = priceVersionsOf(total?.versions ?? []);
  const mixedPrices = await priceVersionsDiffer(prisma, priceVersions);
  const evalCells = await evalCellSpend(prisma, filters);
  return {
    filters,
    dateBasis: COST_DATE_BASIS,
    headline: {
      tasks,
      completed,
      completionRate: tasks > 0 ? completed / tasks : null,
      usd,
      costPerCompletedUsd: completed > 0 ? usd / completed : null,
      stepsMedian: percentileOfHistogram(steps, 0.5),
      stepsP90: percentileOfHistogram(steps, 0.9),
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
      priceVersions,
      mixedPrices,
      evalCells,
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
    outcomeCsv: outcomeTableCsv(outcomes),
    queryMs,
  };
}

/** At most this many tasks in one per-task CSV (newest first beyond it is cut; the CSV says nothing then, so the UI notes the cap). */
export const TASK_CSV_MAX_ROWS = 50_000;

/** A task's eval case (through its eval cell), for the per-task CSV and "group by eval case": joins and its `suite/case` name. */
const EVAL_CASE_JOIN = Prisma.sql`LEFT JOIN eval_cell ec ON ec."taskId" = t.id LEFT JOIN eval_case ca ON ca.id = ec."caseId" LEFT JOIN eval_suite su ON su.id = ca."suiteId"`;
const EVAL_CASE_NAME = Prisma.sql`(su.name || '/' || ca.key)`;
/** A task's launch template: join and name. */
const TEMPLATE_JOIN = Prisma.sql`LEFT JOIN launch_template lt ON lt.id = t."templateId"`;

/**
 * The filters of a per-task query (aliases `t` task, `p` agent_profile, `c` task_cost): launch day
 * UTC from/to inclusive (COST_DATE_BASIS), profile, model (the task's, else its profile's), outcome.
 * `createdAt` is a UTC `timestamp` without zone, compared with timestamps (not timestamptz, whose
 * comparison would go through the session's TimeZone), so an index on it can serve the range.
 */
function taskScopeWhere(f: CostFilters): Prisma.Sql {
  const where: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (f.from) where.push(Prisma.sql`t."createdAt" >= ${f.from}::date::timestamp`);
  if (f.to) where.push(Prisma.sql`t."createdAt" < (${f.to}::date + 1)::timestamp`);
  if (f.profile) where.push(Prisma.sql`p.name = ${f.profile}`);
  if (f.model) where.push(Prisma.sql`coalesce(nullif(c.model, ''), p.model) = ${f.model}`);
  if (f.outcome) where.push(Prisma.sql`longhaul_cost_outcome(t.status, t.outcome) = ${f.outcome}`);
  return Prisma.join(where, " AND ");
}

/**
 * The per-task CSV beside the grouped table ("one row per task"): every task in scope of
 * the same filters as the rollup (launch day UTC from/to, profile, model, outcome — COST_DATE_BASIS),
 * oldest first, at most {@link TASK_CSV_MAX_ROWS}, as server/domain/cost-rollup.ts taskCostCsv.
 * Reads task, agent_profile and task_cost (one row per task; no model_call scan).
 */
export async function taskCostRows({ prisma, filters: f }: { prisma: PrismaClient; filters: CostFilters }): Promise<TaskCostRow[]> {
  const where = taskScopeWhere(f);
  const rows = await prisma.$queryRaw<
    {
      id: string;
      createdAt: Date;
      profile: string;
      model: string;
      status: string;
      outcome: string | null;
      lastEndReason: string | null;
      steps: number;
      checkpointSteps: number;
      humanSteps: number;
      tokens: string;
      cached: string;
      written: string;
      reasoning: string;
      usd: string;
      waste: string;
      template: string | null;
      eval_case: string | null;
    }[]
  >`
    SELECT t.id, t."createdAt", p.name AS profile, coalesce(nullif(c.model, ''), p.model) AS model, t.status, t.outcome, c."lastEndReason",
           lt.name AS template, ${EVAL_CASE_NAME} AS eval_case,
           coalesce(c.steps, 0)::int AS steps, coalesce(c."checkpointSteps", 0)::int AS "checkpointSteps", coalesce(c."humanSteps", 0)::int AS "humanSteps",
           coalesce(c."promptTokens" + c."completionTokens", 0)::text AS tokens, coalesce(c."cachedTokens", 0)::text AS cached,
           coalesce(c."cacheWriteTokens", 0)::text AS written, coalesce(c."reasoningTokens", 0)::text AS reasoning,
           coalesce(c."costUsd", 0)::text AS usd, coalesce(c."retryUsd" + c."replayUsd" + c."discardedUsd" + c."restartUsd", 0)::text AS waste
    FROM task t JOIN agent_profile p ON p.id = t."profileId" LEFT JOIN task_cost c ON c."taskId" = t.id
         ${TEMPLATE_JOIN} ${EVAL_CASE_JOIN}
    WHERE ${where}
    ORDER BY t."createdAt", t.id
    LIMIT ${TASK_CSV_MAX_ROWS}`;
  return rows.map((r) => ({
    taskId: r.id,
    launchedAt: r.createdAt,
    profile: r.profile,
    model: r.model,
    status: r.status,
    outcome: r.outcome,
    lastEndReason: r.lastEndReason,
    steps: r.steps,
    checkpointSteps: r.checkpointSteps,
    humanSteps: r.humanSteps,
    tokens: Number(r.tokens),
    cachedTokens: Number(r.cached),
    cacheWriteTokens: Number(r.written),
    reasoningTokens: Number(r.reasoning),
    costUsd: Number(r.usd),
    wasteUsd: Number(r.waste),
    template: r.template ?? "",
    evalCase: r.eval_case ?? "",
  }));
}

/**
 * The eval cells in scope of the same filters as the rollup (launch day UTC, profile, model as the
 * rollup resolves it, outcome): count and USD from their task_cost rows. cost_rollup has no key for
 * them, so this reads eval_cell ⋈ task ⋈ task_cost: as many rows as there are eval cells in scope.
 */
async function evalCellSpend(prisma: PrismaClient, f: CostFilters): Promise<{ tasks: number; usd: number }> {
  const [row] = await prisma.$queryRaw<{ tasks: number; usd: string }[]>`
    SELECT count(*)::int AS tasks, coalesce(sum(c."costUsd"), 0)::text AS usd
    FROM eval_cell ec JOIN task t ON t.id = ec."taskId" JOIN agent_profile p ON p.id = t."profileId" LEFT JOIN task_cost c ON c."taskId" = t.id
    WHERE ${taskScopeWhere(f)}`;
  return { tasks: row?.tasks ?? 0, usd: Number(row?.usd ?? 0) };
}

/** A launch template's group on /costs (key: the template's name, "" = launched without a template). USD. */
export interface CostTemplateGroup extends CostGroup {
  templateId: string | null;
  stepsPerCompleted: number | null;
}

/**
 * Spend grouped by launch template ("so like is compared with like"), with the same
 * filters and meanings as costRollup (launch day UTC, profile, model as the rollup resolves it,
 * outcome by longhaul_cost_outcome). Unlike costRollup it reads task ⋈ task_cost — cost_rollup has
 * no template key — so its time grows with the tasks in scope (index task(templateId, status)).
 * Ordered by spend, then name.
 */
export async function costByTemplate({ prisma, filters }: { prisma: PrismaClient; filters: CostFilters }): Promise<CostTemplateGroup[]> {
  return costByLaunch({ prisma, filters, by: "template" });
}

/**
 * Spend grouped by eval suite case ("/costs groups by template or suite case"): key
 * `suite/case` ("" = tasks that are no eval cell), templateId = the case's id; same filters and
 * figures as costByTemplate, so the profiles' cells of one case are compared with each other.
 */
export async function costByCase({ prisma, filters }: { prisma: PrismaClient; filters: CostFilters }): Promise<CostTemplateGroup[]> {
  return costByLaunch({ prisma, filters, by: "case" });
}

async function costByLaunch({ prisma, filters: f, by }: { prisma: PrismaClient; filters: CostFilters; by: "template" | "case" }): Promise<CostTemplateGroup[]> {
  const group =
    by === "template"
      ? { id: Prisma.sql`t."templateId"`, name: Prisma.sql`lt.name`, join: TEMPLATE_JOIN }
      : { id: Prisma.sql`ca.id`, name: EVAL_CASE_NAME, join: EVAL_CASE_JOIN };
  const where = taskScopeWhere(f);
  const rows = await prisma.$queryRaw<
    {
      template_id: string | null;
      name: string | null;
      tasks: number;
      completed: number;
      usd: string;
      productive: string;
      overhead: string;
      waste: string;
      estimated: string;
      steps_completed: number;
      versions: string[] | null;
    }[]
  >`
    SELECT ${group.id} AS template_id, ${group.name} AS name, count(*)::int AS tasks,
           count(*) FILTER (WHERE longhaul_cost_done(longhaul_cost_outcome(t.status, t.outcome)))::int AS completed,
           coalesce(sum(c."costUsd"), 0)::text AS usd, coalesce(sum(c."productiveUsd"), 0)::text AS productive,
           coalesce(sum(c."checkpointUsd" + c."compactionUsd"), 0)::text AS overhead,
           coalesce(sum(c."retryUsd" + c."replayUsd" + c."discardedUsd" + c."restartUsd"), 0)::text AS waste,
           coalesce(sum(c."estimatedUsd"), 0)::text AS estimated,
           coalesce(sum(c.steps) FILTER (WHERE longhaul_cost_done(longhaul_cost_outcome(t.status, t.outcome))), 0)::int AS steps_completed,
           array_agg(DISTINCT array_to_string(coalesce(c."priceVersions", '{}'), ' + ')) AS versions
    FROM task t JOIN agent_profile p ON p.id = t."profileId"
         LEFT JOIN task_cost c ON c."taskId" = t.id ${group.join}
    WHERE ${where}
    GROUP BY 1, 2`;
  return rows
    .map((r) => {
      const usd = Number(r.usd);
      return {
        key: r.name ?? "",
        templateId: r.template_id,
        tasks: r.tasks,
        completed: r.completed,
        usd,
        productiveUsd: Number(r.productive),
        overheadUsd: Number(r.overhead),
        wasteUsd: Number(r.waste),
        estimatedUsd: Number(r.estimated),
        costPerCompletedUsd: r.completed > 0 ? usd / r.completed : null,
        stepsPerCompleted: r.completed > 0 ? r.steps_completed / r.completed : null,
        priceVersions: priceVersionsOf(r.versions ?? []),
      };
    })
    .sort(byUsd);
}
