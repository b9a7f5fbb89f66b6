import { AppError } from "../errors.ts";
import { taskSpend } from "./run-repository.ts";
import type { PrismaClient } from "./client.ts";

import type { TaskStatus } from "../../lib/contracts/status.ts";

export { TASK_STATUSES, type TaskStatus } from "../../lib/contracts/status.ts";

export interface TaskListRow {
  id: string;
  goal: string;
  status: string;
  profileName: string;
  model: string;
  stepBudget: number;
  stepsUsed: number;
  tokens: number;
  createdAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
  lastActivityAt: Date | null;
}

/**
 * Lists tasks newest first with their step and token totals, cursor-paged (`cursor` = the last
 * row's id). `limit` 1–200. Totals are aggregated in SQL so the page costs one round trip per table.
 */
export async function listTasks({
  prisma,
  status,
  cursor,
  limit = 50,
}: {
  prisma: PrismaClient;
  status?: TaskStatus;
  cursor?: string;
  limit?: number;
}): Promise<{ rows: TaskListRow[]; nextCursor: string | null }> {
  const tasks = await prisma.task.findMany({
    where: status ? { status } : {},
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
    ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
    include: { profile: { select: { name: true, model: true } } },
  });
  const page = tasks.slice(0, limit);
  const ids = page.map((t) => t.id);
  const totals = ids.length
    ? await prisma.$queryRaw<{ taskId: string; steps: bigint; tokens: bigint; last: Date | null }[]>`
        SELECT r."taskId" AS "taskId", count(s.id) FILTER (WHERE s.kind IN ('model', 'tool')) AS steps,
               -- the same count as the task page and the token ceiling: model and tool steps (checkpoint summaries are in the dollars)
               coalesce(sum(s."promptTokens" + s."completionTokens") FILTER (WHERE s.kind IN ('model', 'tool')), 0) AS tokens,
               max(coalesce(s."endedAt", s."startedAt")) AS last
        FROM run r LEFT JOIN step s ON s."runId" = r.id
        WHERE r."taskId" = ANY(${ids}) GROUP BY r."taskId"`
    : [];
  const byTask = new Map(totals.map((t) => [t.taskId, t]));
  return {
    rows: page.map((t) => {
      const agg = byTask.get(t.id);
      return {
        id: t.id,
        goal: t.goal,
        status: t.status,
        profileName: t.profile.name,
        model: t.profile.model,
        stepBudget: t.stepBudget,
        stepsUsed: Number(agg?.steps ?? 0),
        tokens: Number(agg?.tokens ?? 0),
        createdAt: t.createdAt,
        startedAt: t.startedAt,
        endedAt: t.endedAt,
        lastActivityAt: agg?.last ?? null,
      };
    }),
    nextCursor: tasks.length > limit ? (page.at(-1)?.id ?? null) : null,
  };
}

/** Everything the run page shows except step payloads (loaded per step). @throws AppError NOT_FOUND. */
export async function getTaskDetailOrThrow({ prisma, taskId }: { prisma: PrismaClient; taskId: string }) {
  const task = await prisma.task.findUnique({
    where: { id: taskId },
    include: {
      profile: { select: { name: true, model: true, baseUrl: true } },
      runs: { orderBy: { startedAt: "asc" } },
      artifacts: { select: { id: true, name: true, mime: true, bytes: true, stepId: true, runId: true, createdAt: true }, orderBy: { createdAt: "asc" } },
      outbox: { orderBy: { createdAt: "asc" } },
      facts: { where: { superseded: false }, orderBy: { createdAt: "asc" } },
      _count: { select: { checkpoints: true } },
      alerts: { orderBy: { createdAt: "asc" }, take: 500 },
      escalations: { orderBy: { createdAt: "desc" } },
    },
  });
  if (!task) throw new AppError("NOT_FOUND", `task ${taskId} not found`);
  const [usage] = await prisma.$queryRaw<{ steps: bigint; prompt: bigint | null; cached: bigint | null; completion: bigint | null }[]>`
    SELECT count(s.id) AS steps, sum(s."promptTokens") AS prompt, sum(s."cachedTokens") AS cached, sum(s."completionTokens") AS completion
    FROM step s JOIN run r ON r.id = s."runId" WHERE r."taskId" = ${taskId} AND s.kind IN ('model','tool')`;
  const spend = await taskSpend({ prisma, taskId });
  return {
    id: task.id,
    goal: task.goal,
    status: task.status,
    profile: task.profile,
    stepBudget: task.stepBudget,
    tokenBudget: task.tokenBudget,
    /** Dollar ceiling in USD (null = none). */
    costBudgetUsd: task.costBudgetUsd === null ? null : Number(task.costBudgetUsd),
    requireApproval: task.requireApproval,
    workspace: task.workspace,
    input: task.input,
    result: task.result,
    deadEndReason: task.deadEndReason,
    error: task.error,
    createdAt: task.createdAt,
    startedAt: task.startedAt,
    endedAt: task.endedAt,
    runs: task.runs.map((r) => ({ id: r.id, cause: r.cause, status: r.status, endReason: r.endReason, error: r.error, startedAt: r.startedAt, endedAt: r.endedAt, segments: r.segments, fromCheckpointId: r.fromCheckpointId, guidance: r.guidance, checkpointRequested: r.checkpointRequestedAt !== null })),
    checkpointCount: task._count.checkpoints,
    alerts: task.alerts.map((a) => ({ id: a.id, kind: a.kind, severity: a.severity, stepId: a.stepId, runId: a.runId, message: a.message, createdAt: a.createdAt })),
    escalations: task.escalations.map((e) => ({ id: e.id, reason: e.reason, message: e.message, status: e.status, decision: e.decision, decidedBy: e.decidedBy, dueAt: e.dueAt, createdAt: e.createdAt, runId: e.runId })),
    artifacts: task.artifacts,
    outbox: task.outbox.map((m) => ({ id: m.id, messageId: m.messageId, to: m.to, subject: m.subject, body: m.body, createdAt: m.createdAt, stepId: m.stepId })),
    facts: task.facts.map((f) => ({ key: f.key, value: f.value, sourceStepId: f.sourceStepId, runId: f.runId, createdAt: f.createdAt })),
    usage: {
      steps: Number(usage?.steps ?? 0),
      promptTokens: Number(usage?.prompt ?? 0),
      cachedTokens: Number(usage?.cached ?? 0),
      completionTokens: Number(usage?.completion ?? 0),
      costUsd: spend.usd,
      wastedUsd: spend.wastedUsd,
      checkpointUsd: spend.checkpointUsd,
      modelCalls: spend.calls,
    },
  };
}

/**
 * Step summaries of a task's runs in timeline order, without payloads (arguments/outputs load per
 * step). Paged by (run start, index): `afterIndex` within `runId`. `limit` 1–2000.
 */
export async function listSteps({ prisma, taskId, limit = 2000 }: { prisma: PrismaClient; taskId: string; limit?: number }) {
  const rows = await prisma.step.findMany({
    where: { run: { taskId } },
    orderBy: [{ run: { startedAt: "asc" } }, { index: "asc" }],
    take: limit,
    select: {
      runId: true,
      stepId: true,
      index: true,
      kind: true,
      tool: true,
      status: true,
      summary: true,
      error: true,
      attempts: true,
      promptTokens: true,
      cachedTokens: true,
      completionTokens: true,
      startedAt: true,
      endedAt: true,
      durationMs: true,
    },
  });
  return rows;
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
