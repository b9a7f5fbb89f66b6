import { ulid } from "ulid";
import type { BatchAction, BatchActor, BatchCandidate, BatchItemPorts, BatchPorts, BatchProgress, BatchSelection } from "../domain/batch-tasks.ts";
import { AppError } from "../errors.ts";
import type { CancelPorts } from "../domain/cancel-task.ts";
import type { ResumePorts } from "../domain/resume-task.ts";
import { prismaCancelPorts } from "./cancel-ports.ts";
import { Prisma, type PrismaClient } from "./client.ts";
import { prismaResumePorts } from "./resume-ports.ts";
import { taskWhere, type ListTasksFilters } from "./task-queries.ts";
import { auditDetailsJson, batchSelectionJson } from "./json-columns.ts";

/**
 * Tasks a batch selection matches (newest first, at most `max`), each with its resume estimate: the
 * median `task_cost.costUsd` of the completed tasks of its profile (percentile_cont(0.5); null when
 * the profile has none). A filter is the task list's (taskWhere), so a batch takes exactly the tasks
 * the list shows for it.
 */
export async function matchBatchTasks({ prisma, selection, max }: { prisma: PrismaClient; selection: BatchSelection; max: number }): Promise<BatchCandidate[]> {
  const where = "taskIds" in selection ? [Prisma.sql`t.id = ANY(${selection.taskIds})`] : taskWhere(selection.filter as ListTasksFilters);
  const clause = where.length ? Prisma.sql`WHERE ${Prisma.join(where, " AND ")}` : Prisma.empty;
  const rows = await prisma.$queryRaw<{ id: string; status: string; createdBy: string; estimateUsd: number | null }[]>`
    WITH m AS (
      SELECT t.id, t.status, t."createdBy", t."profileId", t."createdAt"
      FROM task t JOIN agent_profile p ON p.id = t."profileId" LEFT JOIN task_cost tc ON tc."taskId" = t.id
      ${clause} ORDER BY t."createdAt" DESC, t.id DESC LIMIT ${max}
    ), est AS (
      SELECT t2."profileId", percentile_cont(0.5) WITHIN GROUP (ORDER BY tc2."costUsd") AS med
      FROM task t2 JOIN task_cost tc2 ON tc2."taskId" = t2.id
      WHERE t2.status = 'completed' AND t2."profileId" IN (SELECT "profileId" FROM m)
      GROUP BY t2."profileId"
    )
    SELECT m.id, m.status, m."createdBy", est.med::float8 AS "estimateUsd"
    FROM m LEFT JOIN est ON est."profileId" = m."profileId"
    ORDER BY m."createdAt" DESC, m.id DESC`;
  return rows.map((r) => ({ id: r.id, status: r.status, createdBy: r.createdBy, estimateUsd: r.estimateUsd === null ? null : Number(r.estimateUsd) }));
}

/** Batch ports over Prisma and the Inngest client (server/domain/batch-tasks.ts). */
export function prismaBatchPorts({ prisma, sendItems }: { prisma: PrismaClient; sendItems: BatchPorts["sendItems"] }): BatchPorts {
  return {
    newBatchId: () => `batch_${ulid().toLowerCase()}`,
    matchTasks: (selection, max) => matchBatchTasks({ prisma, selection, max }),
    async createBatch({ id, action, actor, selection, guidance, taskIds }) {
      await prisma.$transaction([
        prisma.batchOperation.create({
          data: {
            id,
            action,
            actor: actor.name,
            userId: actor.userId,
            via: actor.via,
            selection: batchSelectionJson.encode(selection),
            guidance,
            total: taskIds.length,
          },
        }),
        prisma.batchItem.createMany({ data: taskIds.map((taskId) => ({ batchId: id, taskId })) }),
      ]);
    },
    sendItems,
  };
}

/** Ports of one batch item (the `batch-item` function): the batch's rows, the audit log, the single-task resume and cancel. */
export function prismaBatchItemPorts({
  prisma,
  sendRunStarted,
  sendRunCancelled,
}: {
  prisma: PrismaClient;
  sendRunStarted: ResumePorts["sendRunStarted"];
  sendRunCancelled: CancelPorts["sendRunCancelled"];
}): BatchItemPorts {
  return {
    async loadItem(batchId, taskId) {
      const item = await prisma.batchItem.findUnique({ where: { batchId_taskId: { batchId, taskId } }, include: { batch: true } });
      if (!item) return null;
      const b = item.batch;
      return {
        action: b.action as BatchAction,
        // Roles are not stored: the batch was planned with them; the item re-checks nothing but status.
        actor: { name: b.actor, userId: b.userId, via: b.via, roles: [] } satisfies BatchActor,
        guidance: b.guidance,
        itemStatus: item.status,
      };
    },
    async settleItem(batchId, taskId, status, update) {
      const r = await prisma.batchItem.updateMany({
        where: { batchId, taskId, status: "pending" },
        data: { status, ...(update.message !== undefined ? { message: update.message } : {}), ...(update.runId !== undefined ? { runId: update.runId } : {}) },
      });
      return r.count === 1;
    },
    async liveBatchRuns() {
      const [row] = await prisma.$queryRaw<{ n: bigint }[]>`
        SELECT count(*) AS n FROM batch_item i JOIN run r ON r.id = i."runId" WHERE i."runId" IS NOT NULL AND r.status = 'running'`;
      return Number(row?.n ?? 0);
    },
    async audit({ actor, action, taskId, batchId, details }) {
      await prisma.auditEvent.create({
        data: {
          id: `aud_${ulid().toLowerCase()}`,
          userId: actor.userId,
          actor: actor.name,
          via: actor.via,
          action,
          taskId,
          target: batchId,
          details: auditDetailsJson.encode(details),
        },
      });
    },
    resumePorts: prismaResumePorts({ prisma, sendRunStarted }),
    cancelPorts: prismaCancelPorts({ prisma, sendRunCancelled }),
  };
}

/** True while a run a batch resumed still runs (status `running`); escalated, ended or gone → false. */
export async function batchRunIsLive({ prisma, runId }: { prisma: PrismaClient; runId: string }): Promise<boolean> {
  return (await prisma.run.findUnique({ where: { id: runId }, select: { status: true } }))?.status === "running";
}

/** A resumed item's run has ended (or waits for a human): item running → done, with the run's status as its message. */
export async function finishBatchItem({ prisma, batchId, taskId }: { prisma: PrismaClient; batchId: string; taskId: string }): Promise<string | null> {
  const item = await prisma.batchItem.findUnique({ where: { batchId_taskId: { batchId, taskId } }, select: { runId: true } });
  const run = item?.runId ? await prisma.run.findUnique({ where: { id: item.runId }, select: { status: true } }) : null;
  const message = run ? `run ${run.status}` : null;
  await prisma.batchItem.updateMany({ where: { batchId, taskId, status: "running" }, data: { status: "done", message } });
  return message;
}

/** Marks an item failed for good (batch-item's onFailure), with the error. */
export async function failBatchItem({
  prisma,
  batchId,
  taskId,
  error,
}: {
  prisma: PrismaClient;
  batchId: string;
  taskId: string;
  error: string;
}): Promise<void> {
  await prisma.batchItem.updateMany({
    where: { batchId, taskId, status: { in: ["pending", "running"] } },
    data: { status: "failed", message: error.slice(0, 2000) },
  });
}

/**
 * A batch's progress: items counted by status, and each item (list order is the batch's).
 * @throws AppError NOT_FOUND.
 */
export async function getBatchOrThrow({ prisma, batchId }: { prisma: PrismaClient; batchId: string }): Promise<BatchProgress> {
  const batch = await prisma.batchOperation.findUnique({ where: { id: batchId }, include: { items: { orderBy: { taskId: "desc" } } } });
  if (!batch) throw new AppError("NOT_FOUND", `batch ${batchId} not found`);
  const counts = { pending: 0, running: 0, done: 0, skipped: 0, failed: 0 };
  for (const i of batch.items) if (i.status in counts) counts[i.status as keyof typeof counts]++;
  return {
    id: batch.id,
    action: batch.action as BatchAction,
    actor: batch.actor,
    createdAt: batch.createdAt,
    total: batch.total,
    counts,
    finished: counts.pending === 0 && counts.running === 0,
    items: batch.items.map((i) => ({ taskId: i.taskId, status: i.status, message: i.message, runId: i.runId })),
  };
}
