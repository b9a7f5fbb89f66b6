import { ulid } from "ulid";
import type { ResumePorts } from "../domain/resume-task.ts";
import type { Prisma, PrismaClient } from "./client.ts";
import { correctCausesOnResume } from "./cost-repository.ts";
import { failUndeliveredStart } from "./run-repository.ts";

/** Runs `work` in a transaction on a client, or directly on a transaction client (already inside one). */
function inTransaction<T>(db: PrismaClient | Prisma.TransactionClient, work: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
  return "$transaction" in db ? db.$transaction(work) : work(db);
}

/**
 * Resume ports over Prisma; `sendRunStarted` comes from the caller (Inngest client or a step).
 * `prisma` may be a transaction client (applying an escalation decision resumes inside its
 * transaction): the guarded claim then joins that transaction, and `failLaunch` is not available
 * (the caller sends the start after its commit).
 */
export function prismaResumePorts({
  prisma,
  sendRunStarted,
}: {
  prisma: PrismaClient | Prisma.TransactionClient;
  sendRunStarted: ResumePorts["sendRunStarted"];
}): ResumePorts {
  return {
    newRunId: () => `run_${ulid().toLowerCase()}`,
    async taskStatus(taskId) {
      return (await prisma.task.findUnique({ where: { id: taskId }, select: { status: true } }))?.status ?? null;
    },
    async findCheckpoint(taskId, checkpointId) {
      if (checkpointId) {
        const cp = await prisma.checkpoint.findUnique({ where: { id: checkpointId }, select: { id: true, taskId: true } });
        return cp && cp.taskId === taskId ? { id: cp.id } : "not_found";
      }
      return prisma.checkpoint.findFirst({ where: { taskId, good: true }, orderBy: { seq: "desc" }, select: { id: true } });
    },
    async claimTaskAndCreateRun({ taskId, runId, from, cause, checkpointId, guidance, actor }) {
      return inTransaction(prisma, async (tx) => {
        const claimed = await tx.task.updateMany({
          where: { id: taskId, status: { in: from } },
          data: { status: "queued", endedAt: null, error: null, deadEndReason: null, result: undefined },
        });
        if (claimed.count === 0) return false;
        await tx.run.create({ data: { id: runId, taskId, cause, status: "running", fromCheckpointId: checkpointId, guidance } });
        await correctCausesOnResume({ prisma: tx, taskId, runId, checkpointId, cause });
        // A resume or fork started elsewhere (the checkpoints tab, the API) answers the task's open
        // escalation: close it as resumed by the same person, so it cannot start a second run later.
        // (An escalation being applied — the caller here — is `applying`, not touched.)
        const now = new Date();
        await tx.escalation.updateMany({
          where: { taskId, status: { in: ["open", "decided"] } },
          data: {
            status: "applied",
            decision: "resume",
            decidedBy: actor,
            decidedAt: now,
            applyAfter: null,
            appliedAt: now,
            guidance,
            resultRunId: runId,
            fromCheckpointForResult: checkpointId,
          },
        });
        return true;
      });
    },
    sendRunStarted,
    failLaunch: ({ taskId, runId }, error) => {
      if (!("$transaction" in prisma)) throw new Error(`cannot mark run ${runId} failed inside a transaction: ${error}`);
      return failUndeliveredStart({ prisma: prisma as PrismaClient, taskId, runId, error });
    },
  };
}
