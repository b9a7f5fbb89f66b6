import type { CancelPorts } from "../domain/cancel-task.ts";
import type { PrismaClient } from "./client.ts";

const TERMINAL = ["completed", "dead_end", "failed", "cancelled"];

/** Cancel ports over Prisma; `sendRunCancelled` is supplied by the caller (Inngest client). */
export function prismaCancelPorts({ prisma, sendRunCancelled }: { prisma: PrismaClient; sendRunCancelled: CancelPorts["sendRunCancelled"] }): CancelPorts {
  return {
    async taskExists(taskId) {
      return (await prisma.task.count({ where: { id: taskId } })) > 0;
    },
    async cancelTaskAndRuns(taskId, actor) {
      return prisma.$transaction(async (tx) => {
        const now = new Date();
        const updated = await tx.task.updateMany({
          where: { id: taskId, status: { notIn: TERMINAL } },
          data: { status: "cancelled", endedAt: now, error: `cancelled by ${actor}` },
        });
        if (updated.count === 0) return null;
        const runs = await tx.run.findMany({ where: { taskId, status: { in: ["running", "escalated"] } }, select: { id: true } });
        await tx.run.updateMany({
          where: { id: { in: runs.map((r) => r.id) } },
          data: { status: "cancelled", endReason: "cancelled_by_user", endedAt: now },
        });
        return { runIds: runs.map((r) => r.id) };
      });
    },
    sendRunCancelled,
  };
}
