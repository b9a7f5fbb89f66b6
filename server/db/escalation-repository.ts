import { ulid } from "ulid";
import type { DecidePorts } from "../domain/decide-escalation.ts";
import type { Prisma, PrismaClient } from "./client.ts";
import { taskSpend } from "./run-repository.ts";
import { prismaResumePorts } from "./resume-ports.ts";
import { resumeTask } from "../domain/resume-task.ts";

/**
 * Opens an escalation for a run (idempotent per run + step: a re-executed step finds the one it
 * made), records its alert, and ends the run `escalated` with the task `waiting_for_human`.
 */
export async function openEscalation({
  prisma,
  taskId,
  runId,
  stepId,
  reason,
  message,
  evidence,
  checkpointId,
  endReason,
  fingerprint = null,
}: {
  prisma: PrismaClient;
  taskId: string;
  runId: string;
  stepId: string;
  reason: string;
  message: string;
  evidence: Prisma.InputJsonValue;
  checkpointId: string | null;
  /** Run.endReason (null when the agent itself asked for a human). */
  endReason: string | null;
  /** risky_action: the proposed call's ledger fingerprint (task + tool + canonical arguments). */
  fingerprint?: string | null;
}): Promise<{ escalationId: string }> {
  const existing = await prisma.escalation.findUnique({ where: { runId_stepId: { runId, stepId } } });
  if (existing) return { escalationId: existing.id };
  const task = await prisma.task.findUniqueOrThrow({ where: { id: taskId }, include: { profile: true } });
  const costUsd = (await taskSpend({ prisma, taskId })).usd;
  const id = `esc_${ulid().toLowerCase()}`;
  await prisma.$transaction(async (tx) => {
    await tx.escalation.create({
      data: {
        id,
        taskId,
        runId,
        stepId,
        reason,
        message,
        evidence,
        checkpointId,
        fingerprint,
        costUsd: costUsd.toFixed(8),
        assigneeRole: task.profile.escalationRole,
        dueAt: new Date(Date.now() + task.profile.escalationDueMinutes * 60_000),
      },
    });
    await tx.run.updateMany({ where: { id: runId, status: "running" }, data: { status: "escalated", endReason, endedAt: new Date() } });
    await tx.task.updateMany({ where: { id: taskId, status: { in: ["running", "queued"] } }, data: { status: "waiting_for_human" } });
  });
  return { escalationId: id };
}

/** Records an alert (idempotent per run + step + kind). */
export async function recordAlert({
  prisma,
  ...data
}: {
  prisma: PrismaClient;
  taskId: string;
  runId: string;
  stepId: string;
  kind: string;
  severity: string;
  message: string;
  evidence: Prisma.InputJsonValue;
}): Promise<void> {
  await prisma.alert.upsert({
    where: { runId_stepId_kind: { runId: data.runId, stepId: data.stepId, kind: data.kind } },
    create: data,
    update: {},
  });
}

/**
 * Applies a decision right away and starts the resumed run, if any (the handler's request does this,
 * so a decision never depends on the waiting run having registered its wait in time; the waiting run,
 * woken by the event or a timeout, then finds it applied). `sendRunStarted` delivers the new run's event.
 */
export async function applyDecisionNow({
  prisma,
  escalationId,
  sendRunStarted,
}: {
  prisma: PrismaClient;
  escalationId: string;
  sendRunStarted: (e: { taskId: string; runId: string; checkpointId: string | null }) => Promise<void>;
}): Promise<void> {
  const e = await prisma.escalation.findUniqueOrThrow({ where: { id: escalationId }, select: { taskId: true, runId: true } });
  const index = (await prisma.step.aggregate({ where: { runId: e.runId }, _max: { index: true } }))._max.index ?? 0;
  const applied = await applyDecision({ prisma, escalationId, stepIndex: index + 1 });
  if (applied.start) await sendRunStarted({ taskId: e.taskId, ...applied.start });
}

/**
 * Where an escalation's decision stands, for the waiting run: `open` (none, or undone), `decided`
 * (recorded; `due` says whether its undo window — `applyAfter` — has passed, so it may be applied
 * now), `applying` (someone is applying it) or `applied` (with the run it started, if any).
 * @throws Error when the escalation does not exist.
 */
export async function readDecision({ prisma, escalationId }: { prisma: PrismaClient; escalationId: string }): Promise<{
  status: "open" | "decided" | "applying" | "applied";
  decision: string | null;
  due: boolean;
  resultRunId: string | null;
}> {
  const e = await prisma.escalation.findUniqueOrThrow({ where: { id: escalationId }, select: { status: true, decision: true, applyAfter: true, resultRunId: true } });
  return {
    status: e.status as "open" | "decided" | "applying" | "applied",
    decision: e.decision,
    due: e.status === "decided" && (e.applyAfter === null || e.applyAfter.getTime() <= Date.now()),
    resultRunId: e.resultRunId,
  };
}

/** Decision ports over Prisma. */
export function prismaDecidePorts({
  prisma,
  sendApplied,
  sendRunStarted,
}: {
  prisma: PrismaClient;
  sendApplied: DecidePorts["sendApplied"];
  sendRunStarted: (e: { taskId: string; runId: string; checkpointId: string | null }) => Promise<void>;
}): DecidePorts {
  return {
    async recordDecision(input) {
      const updated = await prisma.escalation.updateMany({
        where: { id: input.escalationId, status: "open" },
        data: {
          status: "decided",
          decision: input.decision,
          decidedBy: input.actor,
          decidedAt: new Date(),
          guidance: input.guidance || null,
          budgetIncrease: input.budgetIncrease ?? undefined,
          factEdits: (input.factEdits as Prisma.InputJsonValue | undefined) ?? undefined,
          deadEndReason: input.deadEndReason || null,
        },
      });
      if (updated.count === 1) return { ok: true };
      const e = await prisma.escalation.findUnique({ where: { id: input.escalationId }, select: { status: true, decidedBy: true, decision: true } });
      return e ? { ok: false, status: e.status, decidedBy: e.decidedBy, decision: e.decision } : null;
    },
    sendApplied,
    applyNow: (escalationId) => applyDecisionNow({ prisma, escalationId, sendRunStarted }),
  };
}

/**
 * Applies a recorded decision, once (status decided → applying → applied). When another caller is
 * applying it right now, returns `byOther` and does nothing.
 * - resume / approve / reject: budgets raised, edited facts written into a new "human edit"
 *   checkpoint, and a new run (cause resume) from the checkpoint with the guidance (for reject, the
 *   guidance says the action was rejected). Returns the run for the caller to start.
 * - dead_end: the task ends `dead_end` with the handler's reason. cancel: the task is cancelled.
 * A human step is written on the escalated run's timeline either way.
 */
export async function applyDecision({
  prisma,
  escalationId,
  stepIndex,
}: {
  prisma: PrismaClient;
  escalationId: string;
  stepIndex: number;
}): Promise<{ start: { runId: string; checkpointId: string | null } | null; decision: string; byOther?: true }> {
  // Claim the application (decided → applying): the handler's request and the waiting run may both
  // get here; exactly one applies, the other finds it applied (or being applied: retry later).
  const claimed = await prisma.escalation.updateMany({ where: { id: escalationId, status: "decided" }, data: { status: "applying" } });
  const e = await prisma.escalation.findUniqueOrThrow({ where: { id: escalationId } });
  const humanStepId = `human-${e.stepId}`;
  if (claimed.count === 0) {
    if (e.status === "applied") return { start: e.resultRunId ? { runId: e.resultRunId, checkpointId: e.fromCheckpointForResult ?? e.checkpointId } : null, decision: e.decision ?? "" };
    if (e.status === "applying") return { start: null, decision: e.decision ?? "", byOther: true };
    throw new Error(`escalation ${escalationId} is ${e.status}, not decided: nothing to apply yet`);
  }
  const decision = e.decision ?? "cancel";
  let start: { runId: string; checkpointId: string | null } | null = null;
  if (decision === "resume" || decision === "approve" || decision === "reject") {
    const inc = (e.budgetIncrease ?? {}) as { steps?: number; tokens?: number };
    if (inc.steps || inc.tokens) {
      const task = await prisma.task.findUniqueOrThrow({ where: { id: e.taskId } });
      await prisma.task.update({
        where: { id: e.taskId },
        data: { stepBudget: task.stepBudget + (inc.steps ?? 0), tokenBudget: task.tokenBudget === null ? null : task.tokenBudget + (inc.tokens ?? 0) },
      });
    }
    let checkpointId = e.checkpointId;
    const edits = (e.factEdits ?? null) as Record<string, unknown> | null;
    if (edits && Object.keys(edits).length && checkpointId) {
      const cp = await prisma.checkpoint.findUniqueOrThrow({ where: { id: checkpointId } });
      const last = await prisma.checkpoint.findFirst({ where: { taskId: e.taskId }, orderBy: { seq: "desc" }, select: { seq: true } });
      const id = `cp_${ulid().toLowerCase()}`;
      await prisma.checkpoint.create({
        data: {
          ...cp,
          id,
          seq: (last?.seq ?? 0) + 1,
          reason: "human_edit",
          afterStepId: humanStepId,
          workingSet: { ...(cp.workingSet as Record<string, unknown>), ...edits } as Prisma.InputJsonValue,
          completedSteps: cp.completedSteps as Prisma.InputJsonValue,
          budgetsUsed: cp.budgetsUsed as Prisma.InputJsonValue,
          sideEffects: cp.sideEffects as Prisma.InputJsonValue,
          summary: `${cp.summary} Facts edited by ${e.decidedBy ?? "a handler"}: ${Object.keys(edits).join(", ")}.`,
          createdAt: new Date(),
        },
      });
      checkpointId = id;
    }
    const by = e.decidedBy ?? "a handler";
    const note = e.guidance ? ` ${e.guidance}` : "";
    const guidance =
      decision === "reject"
        ? `The proposed action was rejected by ${by}: do not do it.${note}`
        : decision === "approve"
          ? `The proposed action was approved by ${by}: go ahead with it.${note}`
          : (e.guidance ?? null);
    start = await resumeTask({
      taskId: e.taskId,
      checkpointId,
      guidance,
      cause: "resume",
      actor: e.decidedBy ?? "handler",
      ports: prismaResumePorts({ prisma, sendRunStarted: async () => {} }),
    });
  } else if (decision === "dead_end") {
    await prisma.task.updateMany({ where: { id: e.taskId, status: "waiting_for_human" }, data: { status: "dead_end", deadEndReason: e.deadEndReason ?? "marked a dead end by a handler", endedAt: new Date() } });
  } else {
    await prisma.task.updateMany({ where: { id: e.taskId, status: "waiting_for_human" }, data: { status: "cancelled", error: `cancelled by ${e.decidedBy ?? "a handler"}`, endedAt: new Date() } });
  }
  await prisma.step.upsert({
    where: { runId_stepId: { runId: e.runId, stepId: humanStepId } },
    create: {
      runId: e.runId,
      stepId: humanStepId,
      index: stepIndex,
      kind: "human",
      status: "completed",
      endedAt: new Date(),
      durationMs: e.decidedAt ? e.decidedAt.getTime() - e.createdAt.getTime() : null,
      arguments: { decision, guidance: e.guidance, budgetIncrease: e.budgetIncrease, factEdits: e.factEdits },
      output: { decidedBy: e.decidedBy, resultRunId: start?.runId ?? null },
      summary: `${decision.replace("_", " ")} by ${e.decidedBy ?? "a handler"}${e.guidance ? `: “${e.guidance.slice(0, 100)}”` : ""}`,
    },
    update: {},
  });
  await prisma.escalation.update({ where: { id: escalationId }, data: { status: "applied", appliedAt: new Date(), resultRunId: start?.runId ?? null, fromCheckpointForResult: start?.checkpointId ?? null } });
  return { start, decision };
}
