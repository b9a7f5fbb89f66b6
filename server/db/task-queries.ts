import { assistantMessage, buildInitialMessages, toolResultMessage, type WorkingSet } from "../domain/agent-context.ts";
import type { ChatMessage } from "../llm/types.ts";
import { AppError } from "../errors.ts";
import { Prisma, type PrismaClient } from "./client.ts";
import { cancellableQueryRaw } from "./cancellable-query.ts";

import type { TaskStatus } from "../../lib/contracts/status.ts";
import type { FailureClass } from "../domain/cost-rollup.ts";
import { checkpointCompletedStepsJson, checkpointWorkingSetJson, failedToolStepOutputJson, modelStepOutputJson, taskInputJson } from "./json-columns.ts";
import { taskProfile } from "./task-profile.ts";
import { CUTTING_CHECKPOINT_REASONS, WHOLE_STEP_LIST, type StepWindow } from "../../lib/contracts/step-rows.ts";
import type { TaskOrigin as TaskListOrigin } from "../../lib/contracts/task-origin.ts";
import { IS_BUDGET_STEP, STEP_COUNT_COLUMNS, stepCountsOf, type StepCountColumns, type StepCounts } from "./step-counts.ts";

export { TASK_STATUSES, type TaskStatus } from "../../lib/contracts/status.ts";
export { getTaskDetailOrThrow, type TaskOrigin } from "./task-detail.ts";

export const TASK_OUTCOMES = ["clean", "with_alerts", "completed_with_gaps"] as const;
/**
 * Outcome of a completed task: `completed_with_gaps` (Task.outcome: it met its goal only in part,
 * `result.gaps` says what was not done), else `with_alerts` (completed, but a detector raised one),
 * else `clean`. As a filter, `with_alerts` takes every completed task with an alert (with gaps or
 * not) and `clean` only tasks with neither.
 */
export type TaskOutcome = (typeof TASK_OUTCOMES)[number];
export const TASK_SORTS = ["newest", "oldest"] as const;
export type TaskSort = (typeof TASK_SORTS)[number];

export interface TaskListRow {
  id: string;
  goal: string;
  status: string;
  /** For a completed task: completed_with_gaps, with_alerts or clean ({@link TaskOutcome}); null otherwise. */
  outcome: TaskOutcome | null;
  alerts: number;
  profileName: string;
  model: string;
  createdBy: string;
  stepBudget: number;
  /** The budget's steps: model + tool steps of all runs (lib/contracts/step-count.ts; the same figure as task.get's `usage.steps`). */
  stepsUsed: number;
  /** Checkpoint steps of all runs, counted apart from the budget. */
  checkpointSteps: number;
  /** Human (escalation decision) steps of all runs, counted apart from the budget. */
  humanSteps: number;
  tokens: number;
  /**
   * USD spent by all model calls of the task (retries included), read from its `task_cost` summary
   * row (maintained by triggers, server/db/sql/task-cost.sql): the same sum as task.get's
   * `usage.costUsd` (cost-repository.ts taskSpend); 0 before its first model call.
   */
  costUsd: number;
  createdAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
  lastActivityAt: Date | null;
  /** The task's runs' spans and its escalations' waits, oldest first: what lib/contracts/run-clock.ts runClock needs for the Duration column (active time, waiting apart). */
  runs: { startedAt: Date; endedAt: Date | null }[];
  escalations: { status: string; createdAt: Date; decidedAt: Date | null; appliedAt: Date | null }[];
  /** The eval run the task is a cell of (its id and suite), or null for a production task. */
  evalRun: { id: string; suite: string } | null;
}

export interface ListTasksFilters {
  status?: TaskStatus[];
  /** Agent profile name (exact). */
  profile?: string;
  outcome?: TaskOutcome;
  /** Model of the task's latest model call (task_cost.model — the key /costs groups by). */
  model?: string;
  /** Failure class as /costs counts it (SQL longhaul_cost_failure; server/domain/cost-rollup.ts failureClassOf). */
  failure?: FailureClass;
  /** Launched at or after (inclusive). */
  from?: Date;
  /** Launched before (exclusive). */
  to?: Date;
  /** Launched at or after this instant (inclusive; with `from` both apply). */
  since?: Date;
  /** Case-insensitive substring of the goal or of the task id (the short id is the id's tail). */
  q?: string;
  /** Production tasks, eval cells, or both (lib/contracts/task-origin.ts; absent = both). */
  origin?: TaskListOrigin;
}

/** A task-list row's step fields from {@link StepCounts}. */
function listStepCounts(c: StepCounts): Pick<TaskListRow, "stepsUsed" | "checkpointSteps" | "humanSteps"> {
  return { stepsUsed: c.budget, checkpointSteps: c.checkpoints, humanSteps: c.human };
}

/** Keyset cursor "<createdAt ISO>|<id>" of the last row of a page. */
function encodeCursor(row: { createdAt: Date; id: string }): string {
  return `${row.createdAt.toISOString()}|${row.id}`;
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const bar = cursor.indexOf("|");
  const createdAt = new Date(cursor.slice(0, bar));
  if (bar < 1 || Number.isNaN(createdAt.getTime())) throw new AppError("BAD_INPUT", "cursor: not a cursor returned by task.list");
  return { createdAt, id: cursor.slice(bar + 1) };
}

/** `text` as a literal inside a LIKE/ILIKE pattern: `\`, `%` and `_` escaped (PostgreSQL's default escape is `\`; Prisma's `contains` passes them through as wildcards). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** SQL conditions of the task-list filters over `task t JOIN agent_profile p LEFT JOIN task_cost tc` (task.list, batch selections). */
export function taskWhere(f: ListTasksFilters): Prisma.Sql[] {
  const where: Prisma.Sql[] = [];
  if (f.status?.length) where.push(Prisma.sql`t.status = ANY(${f.status})`);
  if (f.profile) where.push(Prisma.sql`p.name = ${f.profile}`);
  if (f.model) where.push(Prisma.sql`tc.model = ${f.model}`);
  if (f.failure) where.push(Prisma.sql`longhaul_cost_failure(t.status::text, tc."lastEndReason") = ${f.failure}`);
  if (f.from) where.push(Prisma.sql`t."createdAt" >= ${f.from}`);
  if (f.to) where.push(Prisma.sql`t."createdAt" < ${f.to}`);
  if (f.since) where.push(Prisma.sql`t."createdAt" >= ${f.since}`);
  if (f.outcome) {
    where.push(Prisma.sql`t.status = 'completed'`);
    const alerted = Prisma.sql`EXISTS (SELECT 1 FROM alert a WHERE a."taskId" = t.id)`;
    const gaps = Prisma.sql`t.outcome = 'completed_with_gaps'`;
    if (f.outcome === "with_alerts") where.push(alerted);
    else if (f.outcome === "completed_with_gaps") where.push(gaps);
    else where.push(Prisma.sql`NOT ${alerted}`, Prisma.sql`t.outcome IS DISTINCT FROM 'completed_with_gaps'`);
  }
  const evalCell = Prisma.sql`EXISTS (SELECT 1 FROM eval_cell ec WHERE ec."taskId" = t.id)`;
  if (f.origin === "production") where.push(Prisma.sql`NOT ${evalCell}`);
  if (f.origin === "eval") where.push(evalCell);
  const q = f.q?.trim();
  if (q) {
    const like = `%${escapeLike(q)}%`;
    where.push(Prisma.sql`(t.goal ILIKE ${like} OR t.id ILIKE ${like})`);
  }
  return where;
}

/**
 * Lists tasks with their step, token and dollar totals, filtered in SQL and keyset-paged by
 * (createdAt, id): `sort` newest (default) or oldest first, `cursor` = the previous page's
 * `nextCursor`. `limit` 1–200. `total` counts every task matching the filters. Totals are
 * aggregated for the page's tasks only, so a page costs the same at 10 tasks as at 100,000 (indexes:
 * task(createdAt), task(status, createdAt), task(profileId, createdAt), run(taskId, startedAt),
 * step(runId, index)); dollars come from each task's `task_cost` row (its primary key), never from
 * summing model calls. @throws AppError BAD_REQUEST for a bad cursor.
 */
export async function listTasks({
  prisma,
  cursor,
  limit = 50,
  sort = "newest",
  ...filters
}: ListTasksFilters & {
  prisma: PrismaClient;
  cursor?: string;
  limit?: number;
  sort?: TaskSort;
}): Promise<{ rows: TaskListRow[]; nextCursor: string | null; total: number }> {
  const where = taskWhere(filters);
  const pageWhere = [...where];
  if (cursor) {
    const c = decodeCursor(cursor);
    pageWhere.push(
      sort === "oldest" ? Prisma.sql`(t."createdAt", t.id) > (${c.createdAt}, ${c.id})` : Prisma.sql`(t."createdAt", t.id) < (${c.createdAt}, ${c.id})`,
    );
  }
  const clause = (parts: Prisma.Sql[]) => (parts.length ? Prisma.sql`WHERE ${Prisma.join(parts, " AND ")}` : Prisma.empty);
  const order = sort === "oldest" ? Prisma.sql`ORDER BY t."createdAt" ASC, t.id ASC` : Prisma.sql`ORDER BY t."createdAt" DESC, t.id DESC`;
  const [tasks, [count]] = await Promise.all([
    prisma.$queryRaw<
      {
        id: string;
        goal: string;
        status: string;
        stepBudget: number;
        createdBy: string;
        createdAt: Date;
        startedAt: Date | null;
        endedAt: Date | null;
        profileName: string;
        model: string;
        outcome: string | null;
        costUsd: string | null;
      }[]
    >`SELECT t.id, t.goal, t.status, t.outcome, t."stepBudget", t."createdBy", t."createdAt", t."startedAt", t."endedAt", p.name AS "profileName", p.model,
             tc."costUsd"::text AS "costUsd"
      FROM task t JOIN agent_profile p ON p.id = t."profileId" LEFT JOIN task_cost tc ON tc."taskId" = t.id
      ${clause(pageWhere)} ${order} LIMIT ${limit + 1}`,
    // The count joins only what the filters read: over 100,000 tasks, `task` alone is an index-only
    // scan (~30 ms), with the joins a scan of every row (~400 ms).
    prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM task t
      ${filters.profile ? Prisma.sql`JOIN agent_profile p ON p.id = t."profileId"` : Prisma.empty}
      ${filters.model || filters.failure ? Prisma.sql`LEFT JOIN task_cost tc ON tc."taskId" = t.id` : Prisma.empty} ${clause(where)}`,
  ]);
  const page = tasks.slice(0, limit);
  const ids = page.map((t) => t.id);
  const [totals, alerts, runs, escalations, cells] = ids.length
    ? await Promise.all([
        prisma.$queryRaw<({ taskId: string; tokens: bigint; last: Date | null } & StepCountColumns)[]>`
          SELECT r."taskId" AS "taskId", ${STEP_COUNT_COLUMNS},
                 -- the same count as the task page and the token ceiling: model and tool steps (checkpoint summaries are in the dollars)
                 coalesce(sum(s."promptTokens" + s."completionTokens") FILTER (WHERE ${IS_BUDGET_STEP}), 0) AS tokens,
                 max(coalesce(s."endedAt", s."startedAt")) AS last
          FROM run r LEFT JOIN step s ON s."runId" = r.id
          WHERE r."taskId" = ANY(${ids}) GROUP BY r."taskId"`,
        prisma.$queryRaw<{ taskId: string; n: bigint }[]>`SELECT "taskId", count(*) AS n FROM alert WHERE "taskId" = ANY(${ids}) GROUP BY "taskId"`,
        prisma.run.findMany({ where: { taskId: { in: ids } }, orderBy: { startedAt: "asc" }, select: { taskId: true, startedAt: true, endedAt: true } }),
        prisma.escalation.findMany({
          where: { taskId: { in: ids } },
          orderBy: { createdAt: "asc" },
          select: { taskId: true, status: true, createdAt: true, decidedAt: true, appliedAt: true },
        }),
        prisma.$queryRaw<{ taskId: string; evalRunId: string; suite: string }[]>`
          SELECT c."taskId", c."evalRunId", s.name AS suite FROM eval_cell c JOIN eval_run r ON r.id = c."evalRunId" JOIN eval_suite s ON s.id = r."suiteId"
          WHERE c."taskId" = ANY(${ids})`,
      ])
    : [[], [], [], [], []];
  const cellByTask = new Map(cells.map((c) => [c.taskId, { id: c.evalRunId, suite: c.suite }]));
  const runsByTask = Map.groupBy(runs, (r) => r.taskId);
  const waitsByTask = Map.groupBy(escalations, (e) => e.taskId);
  const byTask = new Map(totals.map((t) => [t.taskId, t]));
  const alertsByTask = new Map(alerts.map((a) => [a.taskId, Number(a.n)]));
  const last = page.at(-1);
  return {
    rows: page.map((t) => {
      const agg = byTask.get(t.id);
      const alertCount = alertsByTask.get(t.id) ?? 0;
      return {
        id: t.id,
        goal: t.goal,
        status: t.status,
        outcome: t.status === "completed" ? (t.outcome === "completed_with_gaps" ? "completed_with_gaps" : alertCount > 0 ? "with_alerts" : "clean") : null,
        alerts: alertCount,
        profileName: t.profileName,
        model: t.model,
        createdBy: t.createdBy,
        stepBudget: t.stepBudget,
        ...listStepCounts(stepCountsOf(agg)),
        tokens: Number(agg?.tokens ?? 0),
        costUsd: Number(t.costUsd ?? 0),
        createdAt: t.createdAt,
        startedAt: t.startedAt,
        endedAt: t.endedAt,
        lastActivityAt: agg?.last ?? null,
        runs: (runsByTask.get(t.id) ?? []).map((r) => ({ startedAt: r.startedAt, endedAt: r.endedAt })),
        escalations: (waitsByTask.get(t.id) ?? []).map((e) => ({ status: e.status, createdAt: e.createdAt, decidedAt: e.decidedAt, appliedAt: e.appliedAt })),
        evalRun: cellByTask.get(t.id) ?? null,
      };
    }),
    nextCursor: tasks.length > limit && last ? encodeCursor(last) : null,
    total: Number(count?.n ?? 0),
  };
}

/** Agent profile names, for the task list's profile filter. */
export async function listProfileNames({ prisma }: { prisma: PrismaClient }): Promise<string[]> {
  const rows = await prisma.agentProfile.findMany({ select: { name: true }, orderBy: { name: "asc" } });
  return rows.map((r) => r.name);
}

/** One timeline row: a step's summary without payloads (arguments/outputs load per step). */
export interface StepSummaryRow {
  runId: string;
  stepId: string;
  index: number;
  kind: string;
  tool: string | null;
  status: string;
  summary: string;
  error: string | null;
  attempts: number;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  /** USD of the step's model calls (every HTTP attempt, retries included); 0 for tool steps. */
  costUsd: number;
  /** For a checkpoint step: its reason (arguments.reason); null otherwise. */
  checkpointReason: string | null;
  startedAt: Date;
  endedAt: Date | null;
  durationMs: number | null;
}

/**
 * One timeline row on the wire, as a tuple (a 5,000-step task's list is ~4× smaller and ~10× faster
 * to serialise than objects with Dates): [runIndex (into `runIds`), stepId, index, kind, tool, status,
 * summary, error (first 300 characters), attempts, promptTokens, cachedTokens, completionTokens,
 * costUsd, checkpointReason, startedAt (epoch ms), endedAt (epoch ms | null), durationMs, argsKey
 * (tool steps: the first 12 hex digits of md5 over the arguments' jsonb text, so identical calls
 * are told apart from different ones without sending arguments; null otherwise), effort ([level,
 * model, rule] of a step whose model call the effort dial decided; null otherwise)].
 * Decode with `decodeStepRows` (components/tasks/step-rows.ts).
 */
/** @throws AppError NOT_FOUND naming the task when no task has this id (a read of nothing is a 404, not an empty list). */
export async function taskExistsOrThrow({ prisma, taskId }: { prisma: PrismaClient; taskId: string }): Promise<void> {
  const task = await prisma.task.findUnique({ where: { id: taskId }, select: { id: true } });
  if (!task) throw new AppError("NOT_FOUND", `task ${taskId} not found`);
}

/** One step of {@link listSteps} (lib/contracts/step-rows.ts, the schema both sides decode with). */
export type { StepTuple } from "../../lib/contracts/step-rows.ts";

/**
 * The newest `limit` steps of a task's runs, in timeline order (runs by start, steps by index),
 * without payloads, each with the dollars of its model calls, as compact tuples ({@link StepTuple})
 * that PostgreSQL writes as one JSON text (`rowsJson`, a JSON array of tuples; parse with
 * `decodeStepRows`): nothing is decoded and re-encoded row by row in Node. The newest, not the
 * first: a long run's page shows where the run is now (and the live end a "follow live" view
 * scrolls to); `truncated` says when earlier steps are left out, and the {@link StepWindow} fields
 * say where the list starts (`before` steps earlier; the segment number and checkpoint reason of the
 * first listed step, so positions and segment numbers read the same as in the whole list).
 * `limit` 1–20,000. Each run is read backwards on step(runId, index) for at most `limit` rows, so a
 * short tail of a 50,000-step task costs as little as a short task; the segment count before the
 * window uses the partial index on checkpoint steps. @throws AppError NOT_FOUND for an unknown task.
 */
export async function listSteps({
  prisma,
  taskId,
  limit = 10_000,
  signal,
}: {
  prisma: PrismaClient;
  taskId: string;
  limit?: number;
  /** The request's: once aborted (the browser gave up), the list's query is cancelled in PostgreSQL and this rejects with its reason. */
  signal?: AbortSignal;
}): Promise<{ runIds: string[]; rowsJson: string; truncated: boolean } & StepWindow> {
  const runs = await prisma.run.findMany({ where: { taskId }, orderBy: [{ startedAt: "asc" }, { id: "asc" }], select: { id: true } });
  const runIds = runs.map((r) => r.id);
  if (runIds.length === 0) {
    await taskExistsOrThrow({ prisma, taskId });
    return { runIds, rowsJson: "[]", truncated: false, ...WHOLE_STEP_LIST };
  }
  signal?.throwIfAborted();
  const [[row], [counted]] = await Promise.all([
    cancellableQueryRaw<{ rows: string | null; listed: number; firstRun: number | null; firstIndex: number | null }[]>(
      prisma,
      Prisma.sql`
      WITH w AS (
        SELECT r.ord::int - 1 AS ri, s."runId", s."stepId", s.index, s.kind, s.tool, s.status, s.summary, s.error, s.attempts,
               s."promptTokens", s."cachedTokens", s."completionTokens", s."startedAt", s."endedAt", s."durationMs", s.reason, s."argsKey",
               s."effortLevel", s."effortModel", s."effortRule"
        FROM unnest(${runIds}::text[]) WITH ORDINALITY AS r(id, ord)
        CROSS JOIN LATERAL (
          SELECT x."runId", x."stepId", x.index, x.kind, x.tool, x.status, x.summary, left(x.error, 300) AS error, x.attempts,
                 x."promptTokens", x."cachedTokens", x."completionTokens", x."startedAt", x."endedAt", x."durationMs",
                 CASE WHEN x.kind = 'checkpoint' THEN x.arguments->>'reason' END AS reason,
                 CASE WHEN x.kind = 'tool' THEN left(md5(coalesce(x.arguments::text, '')), 12) END AS "argsKey",
                 x."effortLevel", x."effortModel", x."effortRule"
          FROM step x WHERE x."runId" = r.id ORDER BY x.index DESC LIMIT ${limit}
        ) s
        ORDER BY r.ord DESC, s.index DESC
        LIMIT ${limit}
      )
      SELECT (json_agg(json_build_array(
                w.ri, w."stepId", w.index, w.kind, w.tool, w.status, w.summary, w.error, w.attempts,
                w."promptTokens", w."cachedTokens", w."completionTokens",
                coalesce((SELECT sum(m."costUsd")::float8 FROM model_call m WHERE w.kind = 'model' AND m."runId" = w."runId" AND m."stepId" = w."stepId"), 0),
                w.reason,
                floor(extract(epoch FROM w."startedAt") * 1000), floor(extract(epoch FROM w."endedAt") * 1000), w."durationMs",
                w."argsKey",
                CASE WHEN w."effortLevel" IS NOT NULL THEN json_build_array(w."effortLevel", w."effortModel", w."effortRule") END
              ) ORDER BY w.ri, w.index))::text AS rows,
             count(*)::int AS listed,
             min(w.ri) AS "firstRun",
             (array_agg(w.index ORDER BY w.ri, w.index))[1] AS "firstIndex"
      FROM w`,
      signal,
    ),
    prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM step WHERE "runId" = ANY(${runIds}::text[])`,
  ]);
  signal?.throwIfAborted();
  const total = counted?.n ?? 0;
  const listed = row?.listed ?? 0;
  const rowsJson = row?.rows ?? "[]";
  if (listed >= total || row?.firstRun == null || row.firstIndex == null) return { runIds, rowsJson, truncated: false, ...WHOLE_STEP_LIST };
  return {
    runIds,
    rowsJson,
    truncated: true,
    before: total - listed,
    firstSegment: await segmentAt({ prisma, runId: runIds[row.firstRun]!, index: row.firstIndex }),
  };
}

/**
 * The segment of a run that the step at `index` belongs to (StepWindow `firstSegment`): its number
 * (1 + the cutting checkpoint steps before it), the reason of the checkpoint it starts from, and
 * whether it started before `index` (partial). Reads only checkpoint steps (partial index
 * step(runId, index) WHERE kind = 'checkpoint') and the one step before `index`.
 */
async function segmentAt({ prisma, runId, index }: { prisma: PrismaClient; runId: string; index: number }): Promise<StepWindow["firstSegment"]> {
  const [meta] = await prisma.$queryRaw<{ cuts: number; lastCut: number | null; lastReason: string | null; previous: number | null }[]>`
    SELECT count(*)::int AS cuts, max(c.index) AS "lastCut", (array_agg(c.reason ORDER BY c.index DESC))[1] AS "lastReason",
           (SELECT max(p.index) FROM step p WHERE p."runId" = ${runId} AND p.index < ${index}) AS previous
    FROM (SELECT s.index, s.arguments->>'reason' AS reason FROM step s WHERE s."runId" = ${runId} AND s.kind = 'checkpoint' AND s.index < ${index}) c
    WHERE c.reason = ANY(${[...CUTTING_CHECKPOINT_REASONS]}::text[])`;
  const cuts = meta?.cuts ?? 0;
  const previous = meta?.previous ?? null;
  return {
    n: cuts + 1,
    fromReason: cuts > 0 ? (meta?.lastReason ?? null) : null,
    partial: previous !== null && previous !== meta?.lastCut,
  };
}

/**
 * Steps of a task whose arguments, output, summary or error contain `text` (case-insensitive),
 * as `<runId>:<stepId>` keys in timeline order; at most 20,000. `text` 1–200 characters.
 * @throws AppError NOT_FOUND for an unknown task.
 */
export async function searchSteps({ prisma, taskId, text }: { prisma: PrismaClient; taskId: string; text: string }): Promise<string[]> {
  const like = `%${escapeLike(text)}%`;
  const rows = await prisma.$queryRaw<{ key: string }[]>`
    SELECT s."runId" || ':' || s."stepId" AS key
    FROM run r JOIN step s ON s."runId" = r.id
    WHERE r."taskId" = ${taskId}
      AND (s.summary ILIKE ${like} OR s.error ILIKE ${like} OR s.tool ILIKE ${like} OR s.arguments::text ILIKE ${like} OR s.output::text ILIKE ${like})
    ORDER BY r."startedAt" ASC, r.id ASC, s.index ASC
    LIMIT 20000`;
  if (rows.length === 0) await taskExistsOrThrow({ prisma, taskId });
  return rows.map((r) => r.key);
}

/** The user message agent-run sends after a turn without tool calls (server/inngest/functions/agent-run.ts). */
const NUDGE = "Use a tool to make progress, or call finish with your result (or declare_dead_end with the reason).";

/** Checkpoints that cut a segment (the run goes on in a new segment from them); the others precede an escalation or a risky call inside a segment. */
const CUTTING_CHECKPOINTS = new Set(CUTTING_CHECKPOINT_REASONS);

/**
 * The messages a model step was sent, rebuilt (the prompt itself is not stored): the segment's
 * opening context from the same pure builder agent-run uses (`buildInitialMessages`,
 * server/domain/agent-context.ts) over the checkpoint the segment started from (its working set plus
 * this run's facts recorded after it, completed steps, open question, the run's guidance), then the
 * segment's earlier turns from the stored steps (assistant messages from model outputs, tool results
 * from tool outputs). `contextMessages` = how many leading messages are the checkpoint context.
 * Side effects committed by other runs after the checkpoint (folded in at run time) are not
 * re-derived. @throws AppError NOT_FOUND, BAD_INPUT when the step is not a model step.
 */
export async function getModelPromptOrThrow({ prisma, runId, stepId }: { prisma: PrismaClient; runId: string; stepId: string }) {
  const step = await prisma.step.findUnique({ where: { runId_stepId: { runId, stepId } }, select: { index: true, kind: true, startedAt: true } });
  if (!step) throw new AppError("NOT_FOUND", `step ${stepId} of run ${runId} not found`);
  if (step.kind !== "model") throw new AppError("BAD_INPUT", `stepId: ${stepId} is a ${step.kind} step; only model steps have a prompt`);
  const run = await prisma.run.findUniqueOrThrow({ where: { id: runId }, include: { task: true } });
  const systemPrompt = (await taskProfile({ prisma, taskId: run.taskId })).spec.systemPrompt;
  // The segment starts at the latest cutting checkpoint of this run before the step, else where the run started.
  const own = await prisma.checkpoint.findMany({ where: { runId, nextIndex: { lte: step.index } }, orderBy: { nextIndex: "desc" }, take: 20 });
  const cut = own.find((c) => CUTTING_CHECKPOINTS.has(c.reason)) ?? null;
  const cp = cut ?? (run.fromCheckpointId ? await prisma.checkpoint.findUnique({ where: { id: run.fromCheckpointId } }) : null);
  const segmentFrom = cut ? cut.nextIndex : 0;
  const inputFacts: WorkingSet = taskInputJson.decode(run.task.input, run.taskId).facts ?? {};
  const laterFacts = await prisma.fact.findMany({
    where: { runId, createdAt: { ...(cp ? { gt: cp.createdAt } : {}), lt: step.startedAt } },
    orderBy: { createdAt: "asc" },
    select: { key: true, value: true },
  });
  const workingSet: WorkingSet = { ...(cp ? checkpointWorkingSetJson.decode(cp.workingSet, cp.id) : inputFacts) };
  for (const f of laterFacts) if (cp) workingSet[f.key] = f.value;
  const context = buildInitialMessages({
    systemPrompt,
    goal: run.task.goal,
    workingSet,
    completedSteps: cp ? checkpointCompletedStepsJson.decode(cp.completedSteps, cp.id) : [],
    openQuestion: cp?.openQuestion ?? null,
    guidance: run.guidance,
  });
  const earlier = await prisma.step.findMany({
    where: { runId, index: { gte: segmentFrom, lt: step.index }, kind: { in: ["model", "tool"] } },
    orderBy: { index: "asc" },
    select: { id: true, stepId: true, kind: true, output: true, error: true, status: true },
  });
  const turns: ChatMessage[] = [];
  let calls: { id: string; name: string; arguments: string }[] = [];
  for (const s of earlier) {
    if (s.kind === "model") {
      const out = modelStepOutputJson.decode(s.output ?? {}, s.id);
      calls = out.toolCalls;
      turns.push(assistantMessage(out.content, calls));
      if (calls.length === 0 && s.status === "completed") turns.push({ role: "user", content: NUDGE });
    } else {
      const k = Number(s.stepId.split("-").at(-1));
      const call = calls[k];
      if (!call) continue;
      // agent-run stores a tool step's output as the tool's output, or {error} when it failed.
      const result =
        s.status === "failed"
          ? { ok: false as const, error: failedToolStepOutputJson.decode(s.output ?? {}, s.id).error ?? s.error }
          : { ok: true as const, output: s.output };
      turns.push(toolResultMessage(call.id, result));
    }
  }
  return {
    messages: [...context, ...turns],
    contextMessages: context.length,
    fromCheckpoint: cp ? { id: cp.id, seq: cp.seq, reason: cp.reason } : null,
    rebuilt: true as const,
  };
}

/** One step with its payloads (arguments, output) and its model calls. @throws AppError NOT_FOUND. */
export async function getStepOrThrow({ prisma, runId, stepId }: { prisma: PrismaClient; runId: string; stepId: string }) {
  const step = await prisma.step.findUnique({ where: { runId_stepId: { runId, stepId } } });
  if (!step) throw new AppError("NOT_FOUND", `step ${stepId} of run ${runId} not found`);
  const modelCalls = await prisma.modelCall.findMany({ where: { runId, stepId }, orderBy: { createdAt: "asc" } });
  return {
    ...step,
    modelCalls: modelCalls.map((m) => ({ ...m, costUsd: Number(m.costUsd) })),
  };
}
