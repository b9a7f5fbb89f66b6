import type { PrismaClient } from "./client.ts";

export const TASK_STATUSES = ["queued", "running", "waiting_for_human", "completed", "dead_end", "failed", "cancelled"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

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
        SELECT r."taskId" AS "taskId", count(s.id) AS steps,
               coalesce(sum(s."promptTokens" + s."completionTokens"), 0) AS tokens,
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
