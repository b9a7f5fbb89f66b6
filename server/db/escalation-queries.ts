import type { WorkingSet } from "../domain/agent-context.ts";
import { diffWorkingSets } from "../domain/checkpoint.ts";
import { AppError } from "../errors.ts";
import type { PrismaClient } from "./client.ts";
import { taskSpend } from "./run-repository.ts";

/** The handlers' inbox: open escalations first (overdue on top, then by due time), then recent decided ones. */
export async function listEscalations({ prisma, status }: { prisma: PrismaClient; status?: "open" | "closed" }) {
  const rows = await prisma.escalation.findMany({
    where: status === "open" ? { status: "open" } : status === "closed" ? { status: { not: "open" } } : {},
    orderBy: [{ status: "desc" }, { dueAt: "asc" }],
    take: 200,
    include: { task: { select: { goal: true, status: true } } },
  });
  // "open" sorts after "decided"/"applied" in desc order: put open ones first explicitly.
  rows.sort((a, b) => Number(b.status === "open") - Number(a.status === "open") || a.dueAt.getTime() - b.dueAt.getTime());
  return rows.map((e) => ({
    id: e.id,
    taskId: e.taskId,
    runId: e.runId,
    goal: e.task.goal,
    taskStatus: e.task.status,
    reason: e.reason,
    message: e.message,
    status: e.status,
    decision: e.decision,
    decidedBy: e.decidedBy,
    assigneeRole: e.assigneeRole,
    dueAt: e.dueAt,
    createdAt: e.createdAt,
    costUsd: Number(e.costUsd),
    notifications: e.notifications,
  }));
}

/**
 * The context card of an escalation: the detector's evidence, the checkpoint it stopped at (open
 * question, working set), the fact diff since the previous checkpoint, the last five steps, alerts,
 * cost so far and waste. @throws AppError NOT_FOUND.
 */
export async function getEscalationCardOrThrow({ prisma, escalationId }: { prisma: PrismaClient; escalationId: string }) {
  const e = await prisma.escalation.findUnique({ where: { id: escalationId }, include: { task: { include: { profile: { select: { name: true, model: true } } } } } });
  if (!e) throw new AppError("NOT_FOUND", `escalation ${escalationId} not found`);
  const checkpoint = e.checkpointId ? await prisma.checkpoint.findUnique({ where: { id: e.checkpointId } }) : null;
  const previous = checkpoint ? await prisma.checkpoint.findFirst({ where: { taskId: e.taskId, seq: { lt: checkpoint.seq } }, orderBy: { seq: "desc" } }) : null;
  const factDiff = checkpoint ? diffWorkingSets((previous?.workingSet ?? {}) as WorkingSet, checkpoint.workingSet as WorkingSet) : [];
  const lastSteps = await prisma.step.findMany({
    where: { runId: e.runId, kind: { in: ["model", "tool"] } },
    orderBy: { index: "desc" },
    take: 5,
    select: { stepId: true, kind: true, tool: true, status: true, summary: true, arguments: true },
  });
  const alerts = await prisma.alert.findMany({ where: { taskId: e.taskId }, orderBy: { createdAt: "desc" }, take: 20 });
  const spend = await taskSpend({ prisma, taskId: e.taskId });
  const steps = await prisma.step.count({ where: { run: { taskId: e.taskId }, kind: { in: ["model", "tool"] } } });
  return {
    id: e.id,
    taskId: e.taskId,
    runId: e.runId,
    goal: e.task.goal,
    profile: e.task.profile,
    taskStatus: e.task.status,
    reason: e.reason,
    message: e.message,
    evidence: e.evidence,
    status: e.status,
    decision: e.decision,
    decidedBy: e.decidedBy,
    decidedAt: e.decidedAt,
    guidance: e.guidance,
    resultRunId: e.resultRunId,
    assigneeRole: e.assigneeRole,
    dueAt: e.dueAt,
    createdAt: e.createdAt,
    checkpoint: checkpoint
      ? { id: checkpoint.id, seq: checkpoint.seq, openQuestion: checkpoint.openQuestion, summary: checkpoint.summary, workingSet: checkpoint.workingSet as WorkingSet }
      : null,
    factDiff,
    lastSteps: lastSteps.reverse(),
    alerts: alerts.map((a) => ({ kind: a.kind, severity: a.severity, stepId: a.stepId, message: a.message, createdAt: a.createdAt })),
    spend: { usd: spend.usd, wastedUsd: spend.wastedUsd, steps, stepBudget: e.task.stepBudget },
  };
}

/**
 * Asks the task's running run to escalate after the turn in flight (an operator's "Escalate").
 * Idempotent. @throws AppError PRECONDITION_FAILED when no run is running.
 */
export async function requestEscalation({ prisma, taskId, note }: { prisma: PrismaClient; taskId: string; note: string | null }): Promise<{ runId: string }> {
  const run = await prisma.run.findFirst({ where: { taskId, status: "running" }, orderBy: { startedAt: "desc" }, select: { id: true } });
  if (!run) throw new AppError("PRECONDITION_FAILED", `task ${taskId} has no running run to escalate`);
  await prisma.run.updateMany({ where: { id: run.id, escalationRequestedAt: null }, data: { escalationRequestedAt: new Date(), escalationRequestNote: note } });
  return { runId: run.id };
}
