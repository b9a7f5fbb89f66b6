import type { WorkingSet } from "../domain/agent-context.ts";
import { diffWorkingSets, type FactChange } from "../domain/checkpoint.ts";
import { AppError } from "../errors.ts";
import type { PrismaClient } from "./client.ts";
import { taskExistsOrThrow } from "./task-queries.ts";

/** A task's checkpoints, oldest first, without their payloads. @throws AppError NOT_FOUND for an unknown task. */
export async function listCheckpoints({ prisma, taskId }: { prisma: PrismaClient; taskId: string }) {
  const rows = await prisma.checkpoint.findMany({
    where: { taskId },
    orderBy: { seq: "asc" },
    select: {
      id: true,
      seq: true,
      runId: true,
      reason: true,
      afterStepId: true,
      summary: true,
      openQuestion: true,
      phase: true,
      contextTokens: true,
      transcriptTokens: true,
      budgetsUsed: true,
      good: true,
      createdAt: true,
      workingSet: true,
    },
  });
  if (rows.length === 0) await taskExistsOrThrow({ prisma, taskId });
  return rows.map(({ workingSet, ...r }) => ({
    ...r,
    facts: Object.keys((workingSet ?? {}) as WorkingSet).length,
    budgetsUsed: r.budgetsUsed as { steps: number; tokens: number; costUsd: number },
  }));
}

/** One checkpoint with everything in it. @throws AppError NOT_FOUND. */
export async function getCheckpointOrThrow({ prisma, checkpointId }: { prisma: PrismaClient; checkpointId: string }) {
  const cp = await prisma.checkpoint.findUnique({ where: { id: checkpointId } });
  if (!cp) throw new AppError("NOT_FOUND", `checkpoint ${checkpointId} not found`);
  return cp;
}

/**
 * The working-set diff between two checkpoints of a task (`fromId` null = the task's start), each
 * added or changed fact with the step that established its new value (blame).
 * @throws AppError NOT_FOUND, BAD_INPUT (checkpoints of different tasks).
 */
export async function diffCheckpoints({
  prisma,
  taskId,
  fromId,
  toId,
}: {
  prisma: PrismaClient;
  taskId: string;
  fromId: string | null;
  toId: string;
}): Promise<(FactChange & { sourceStepId: string | null; runId: string | null })[]> {
  const to = await getCheckpointOrThrow({ prisma, checkpointId: toId });
  const from = fromId ? await getCheckpointOrThrow({ prisma, checkpointId: fromId }) : null;
  if (to.taskId !== taskId || (from && from.taskId !== taskId)) throw new AppError("BAD_INPUT", "checkpoints: both must belong to the task");
  const task = await prisma.task.findUniqueOrThrow({ where: { id: taskId }, select: { input: true } });
  const before = (from?.workingSet ?? (task.input as { facts?: WorkingSet }).facts ?? {}) as WorkingSet;
  const changes = diffWorkingSets(before, to.workingSet as WorkingSet);
  const keys = changes.filter((c) => c.kind !== "removed").map((c) => c.key);
  const facts = keys.length
    ? await prisma.fact.findMany({
        where: { taskId, key: { in: keys }, createdAt: { lte: to.createdAt } },
        orderBy: { createdAt: "asc" },
        select: { key: true, sourceStepId: true, runId: true },
      })
    : [];
  const blame = new Map(facts.map((f) => [f.key, f]));
  return changes.map((c) => ({ ...c, sourceStepId: blame.get(c.key)?.sourceStepId ?? null, runId: blame.get(c.key)?.runId ?? null }));
}

// requestCheckpoint (a write) moved to run-requests.ts; re-exported for existing imports.
export { requestCheckpoint } from "./run-requests.ts";
