import { TERMINAL_TASK_STATUSES } from "../../lib/contracts/status.ts";
import { AppError } from "../errors.ts";
import type { CancelPorts, EndedTaskStatus } from "../domain/cancel-task.ts";
import type { PrismaClient } from "./client.ts";

const ENDED: readonly EndedTaskStatus[] = TERMINAL_TASK_STATUSES;

/** Cancel ports over Prisma; `sendRunCancelled` is supplied by the caller (Inngest client). */
export function prismaCancelPorts({ prisma, sendRunCancelled }: { prisma: PrismaClient; sendRunCancelled: CancelPorts["sendRunCancelled"] }): CancelPorts {
  return {
    /**
     * One transaction: a guarded `update … where status not in (ended)` of the task, its open (or
     * decided, undo window running) escalations closed as cancelled by `actor`, then its running
     * or escalated runs. When the guard matches nothing, reports the task's ended status (and, for a
     * cancelled task, its runs ended `cancelled_by_user`) or not_found.
     * @throws AppError CONFLICT when the task is live yet the guard matched nothing (changed concurrently; retry).
     */
    async cancelTaskAndRuns(taskId, actor) {
      return prisma.$transaction(async (tx) => {
        const now = new Date();
        const updated = await tx.task.updateMany({
          where: { id: taskId, status: { notIn: [...ENDED] } },
          data: { status: "cancelled", endedAt: now, error: `cancelled by ${actor}` },
        });
        if (updated.count === 0) {
          const task = await tx.task.findUnique({ where: { id: taskId }, select: { status: true } });
          if (!task) return { kind: "not_found" as const };
          const status = ENDED.find((s) => s === task.status);
          if (!status) throw new AppError("CONFLICT", `task ${taskId} changed while it was being cancelled (now ${task.status}); try again`);
          const runIds =
            status === "cancelled"
              ? (await tx.run.findMany({ where: { taskId, status: "cancelled", endReason: "cancelled_by_user" }, select: { id: true } })).map((r) => r.id)
              : [];
          return { kind: "ended" as const, status, runIds };
        }
        // An escalation still waiting for a decision (or inside its undo window) is closed by the
        // cancel: a later Resume on it must not bring the cancelled task back.
        await tx.escalation.updateMany({
          where: { taskId, status: { in: ["open", "decided"] } },
          data: { status: "applied", decision: "cancel", decidedBy: actor, decidedAt: now, applyAfter: null, appliedAt: now },
        });
        const runs = await tx.run.findMany({ where: { taskId, status: { in: ["running", "escalated"] } }, select: { id: true } });
        await tx.run.updateMany({
          where: { id: { in: runs.map((r) => r.id) } },
          data: { status: "cancelled", endReason: "cancelled_by_user", endedAt: now },
        });
        return { kind: "cancelled" as const, runIds: runs.map((r) => r.id) };
      });
    },
    sendRunCancelled,
  };
}
