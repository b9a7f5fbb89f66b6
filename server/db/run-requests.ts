import { AppError } from "../errors.ts";
import type { PrismaClient } from "./client.ts";
import { taskExistsOrThrow } from "./task-queries.ts";

// Requests an operator makes of a running run (flags on its Run row, read by the agent loop after the
// turn in flight). Writes, so they live here rather than in the *-queries.ts read models.

/**
 * Asks the task's running run for a checkpoint: it is taken after the turn in flight (the model step
 * reads the flag, the checkpoint step clears it). Idempotent: asking twice before it is taken asks once.
 * @throws AppError PRECONDITION_FAILED when no run of the task is running, NOT_FOUND for an unknown task.
 */
export async function requestCheckpoint({ prisma, taskId }: { prisma: PrismaClient; taskId: string }): Promise<{ runId: string }> {
  const run = await prisma.run.findFirst({ where: { taskId, status: "running" }, orderBy: { startedAt: "desc" }, select: { id: true } });
  if (!run) {
    await taskExistsOrThrow({ prisma, taskId });
    throw new AppError("PRECONDITION_FAILED", `task ${taskId} has no running run to checkpoint`);
  }
  await prisma.run.updateMany({ where: { id: run.id, checkpointRequestedAt: null }, data: { checkpointRequestedAt: new Date() } });
  return { runId: run.id };
}

/**
 * Asks the task's running run to escalate after the turn in flight (an operator's "Escalate"), on
 * behalf of `actor` (the escalation's message names them). Idempotent: the first request wins. @throws AppError PRECONDITION_FAILED when no run is running, NOT_FOUND for an unknown task.
 */
export async function requestEscalation({
  prisma,
  taskId,
  note,
  actor,
}: {
  prisma: PrismaClient;
  taskId: string;
  note: string | null;
  actor: string;
}): Promise<{ runId: string }> {
  const run = await prisma.run.findFirst({ where: { taskId, status: "running" }, orderBy: { startedAt: "desc" }, select: { id: true } });
  if (!run) {
    await taskExistsOrThrow({ prisma, taskId });
    throw new AppError("PRECONDITION_FAILED", `task ${taskId} has no running run to escalate`);
  }
  await prisma.run.updateMany({
    where: { id: run.id, escalationRequestedAt: null },
    data: { escalationRequestedAt: new Date(), escalationRequestNote: note, escalationRequestedBy: actor },
  });
  return { runId: run.id };
}
