import { ulid } from "ulid";
import type { ApplyDecisionPorts, ApplyDecisionTx, DecisionApplyPorts, RecoverDecisionsPorts } from "../domain/apply-escalation-decision.ts";
import type { CheckpointReason } from "../domain/checkpoint.ts";
import { crashPoint } from "../fault-injection.ts";
import { Prisma, type PrismaClient } from "./client.ts";
import { prismaResumePorts } from "./resume-ports.ts";
import {
  checkpointBudgetsUsedJson,
  checkpointCompletedStepsJson,
  checkpointSideEffectsJson,
  checkpointWorkingSetJson,
  escalationBudgetIncreaseJson,
  escalationFactEditsJson,
  stepArgumentsJson,
  stepOutputJson,
} from "./json-columns.ts";
import { endWaitingTask, raiseBudgets } from "./task-repository.ts";
import { recordAlert } from "./alert-repository.ts";

/** The database clock (`clock_timestamp()`) inside a transaction or on a client. */
async function dbNowMs(db: PrismaClient | Prisma.TransactionClient): Promise<number> {
  const [row] = await db.$queryRaw<{ ms: number }[]>`SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms`;
  return Math.floor(row!.ms);
}

function txPorts(tx: Prisma.TransactionClient): ApplyDecisionTx {
  return {
    async claim(escalationId) {
      const now = new Date(await dbNowMs(tx));
      const claimed = await tx.escalation.updateMany({
        where: { id: escalationId, status: "decided", OR: [{ applyAfter: null }, { applyAfter: { lte: now } }] },
        data: { status: "applying" },
      });
      return claimed.count === 1;
    },
    async read(escalationId) {
      const e = await tx.escalation.findUniqueOrThrow({ where: { id: escalationId } });
      return {
        ...e,
        budgetIncrease: e.budgetIncrease === null ? null : escalationBudgetIncreaseJson.decode(e.budgetIncrease, e.id),
        factEdits: e.factEdits === null ? null : escalationFactEditsJson.decode(e.factEdits, e.id),
      };
    },
    raiseBudgets: (taskId, increase) => raiseBudgets({ prisma: tx, taskId, increase }),
    async copyCheckpointWithEdits({ checkpointId, edits, afterStepId, by }) {
      const cp = await tx.checkpoint.findUniqueOrThrow({ where: { id: checkpointId } });
      const last = await tx.checkpoint.findFirst({ where: { taskId: cp.taskId }, orderBy: { seq: "desc" }, select: { seq: true } });
      const id = `cp_${ulid().toLowerCase()}`;
      await tx.checkpoint.create({
        data: {
          ...cp,
          id,
          seq: (last?.seq ?? 0) + 1,
          reason: "human_edit" satisfies CheckpointReason,
          afterStepId,
          workingSet: checkpointWorkingSetJson.encode({ ...checkpointWorkingSetJson.decode(cp.workingSet, cp.id), ...edits }),
          completedSteps: checkpointCompletedStepsJson.encode(checkpointCompletedStepsJson.decode(cp.completedSteps, cp.id)),
          budgetsUsed: checkpointBudgetsUsedJson.encode(checkpointBudgetsUsedJson.decode(cp.budgetsUsed, cp.id)),
          sideEffects: checkpointSideEffectsJson.encode(checkpointSideEffectsJson.decode(cp.sideEffects, cp.id)),
          summary: `${cp.summary} Facts edited by ${by}: ${Object.keys(edits).join(", ")}.`,
          createdAt: new Date(),
        },
      });
      return id;
    },
    resumePorts: prismaResumePorts({ prisma: tx, sendRunStarted: async () => {} }),
    async endTask({ taskId, status, reason }) {
      await endWaitingTask({ prisma: tx, taskId, status, reason });
    },
    async writeHumanStep({ runId, stepId, index, durationMs, arguments: args, output, summary }) {
      await tx.step.upsert({
        where: { runId_stepId: { runId, stepId } },
        create: {
          runId,
          stepId,
          index,
          kind: "human",
          status: "completed",
          endedAt: new Date(),
          durationMs,
          arguments: stepArgumentsJson.encode(args),
          output: stepOutputJson.encode(output),
          summary,
        },
        update: {},
      });
    },
    async markApplied({ escalationId, resultRunId, fromCheckpointId }) {
      // Every other write of the application is made (uncommitted): a crash here must leave nothing.
      crashPoint("escalation:apply-before-commit");
      await tx.escalation.update({
        where: { id: escalationId },
        data: { status: "applied", appliedAt: new Date(), resultRunId, fromCheckpointForResult: fromCheckpointId, applyError: null },
      });
    },
  };
}

/**
 * Apply ports over Prisma: one interactive transaction per application (timeout 60 s: a loaded
 * machine must not abort a valid application half-way; a lock wait on the row counts against it).
 */
export function prismaApplyDecisionPorts({ prisma }: { prisma: PrismaClient }): ApplyDecisionPorts {
  return {
    atomically: (work) => prisma.$transaction((tx) => work(txPorts(tx)), { maxWait: 20_000, timeout: 60_000 }),
  };
}

/**
 * What applying a decision reads over Prisma (DecisionApplyPorts, for the domain's `applyDecision`):
 * the escalation's task, run, status and `applyAfter`, the escalated run's next step index, the
 * database clock, and the applying transaction ({@link prismaApplyDecisionPorts}).
 */
export function prismaDecisionApplyPorts({ prisma }: { prisma: PrismaClient }): DecisionApplyPorts {
  return {
    apply: prismaApplyDecisionPorts({ prisma }),
    locate: (escalationId) =>
      prisma.escalation.findUniqueOrThrow({ where: { id: escalationId }, select: { taskId: true, runId: true, status: true, applyAfter: true } }),
    async nextStepIndex(runId) {
      return ((await prisma.step.aggregate({ where: { runId }, _max: { index: true } }))._max.index ?? 0) + 1;
    },
    now: async () => new Date(await dbNowMs(prisma)),
  };
}

/**
 * Records that applying escalation `escalationId`'s decision failed for good (ApplyFailurePorts in
 * server/domain/apply-escalation-decision.ts): guarded on a row still waiting to be applied
 * (`decided`, or a committed `applying`, which goes back to `decided`): `applyFailures + 1`,
 * `applyError`, `applyFailedAt` = database now; and an `error` alert on the escalated run at the
 * human step (`human-<escalation step>`, one per run and step), so the run page shows that the
 * decision was not applied yet and why. Returns false when the row is applied, undone or gone.
 */
export async function recordApplyFailure({ prisma, escalationId, error }: { prisma: PrismaClient; escalationId: string; error: string }): Promise<boolean> {
  const now = new Date(await dbNowMs(prisma));
  const updated = await prisma.escalation.updateMany({
    where: { id: escalationId, status: { in: ["decided", "applying"] } },
    data: { status: "decided", applyFailures: { increment: 1 }, applyError: error, applyFailedAt: now },
  });
  if (updated.count !== 1) return false;
  const e = await prisma.escalation.findUniqueOrThrow({
    where: { id: escalationId },
    select: { taskId: true, runId: true, stepId: true, decision: true, applyFailures: true },
  });
  await recordAlert({
    prisma,
    taskId: e.taskId,
    runId: e.runId,
    stepId: `human-${e.stepId}`,
    kind: "error",
    severity: "critical",
    message: `The ${e.decision ?? "recorded"} decision could not be applied: ${error}. It stays decided; the recovery sweep applies it again later.`,
    evidence: { escalationId, error, failures: e.applyFailures },
  });
  return true;
}

/** Recovery-sweep ports over Prisma (see recoverEscalationDecisions); the senders come from the caller. */
export function prismaRecoverDecisionsPorts({
  prisma,
  sendRunStarted,
  sendApplied,
}: {
  prisma: PrismaClient;
  sendRunStarted: RecoverDecisionsPorts["sendRunStarted"];
  sendApplied: RecoverDecisionsPorts["sendApplied"];
}): RecoverDecisionsPorts {
  return {
    ...prismaDecisionApplyPorts({ prisma }),
    async findStuckApplying() {
      return (await prisma.escalation.findMany({ where: { status: "applying" }, select: { id: true } })).map((e) => e.id);
    },
    async revertApplying(escalationId) {
      return (await prisma.escalation.updateMany({ where: { id: escalationId, status: "applying" }, data: { status: "decided" } })).count === 1;
    },
    async findUnappliedDue(graceMs) {
      const now = await dbNowMs(prisma);
      const cutoff = new Date(now - graceMs);
      const rows = await prisma.escalation.findMany({
        where: { status: "decided", OR: [{ applyAfter: null, decidedAt: { lte: cutoff } }, { applyAfter: { lte: cutoff } }] },
        select: { id: true, taskId: true, runId: true, applyFailures: true, applyFailedAt: true },
        // Never-failed rows first, then those whose last failure is oldest: a few failing rows cannot crowd out the rest.
        orderBy: [{ applyFailures: "asc" }, { decidedAt: "asc" }],
        take: 100,
      });
      return rows.map((r) => ({
        escalationId: r.id,
        taskId: r.taskId,
        runId: r.runId,
        applyFailures: r.applyFailures,
        msSinceFailure: r.applyFailedAt ? now - r.applyFailedAt.getTime() : null,
      }));
    },
    recordApplyFailure: (input) => recordApplyFailure({ prisma, ...input }),
    async findUnstartedResults(graceMs) {
      const cutoff = new Date((await dbNowMs(prisma)) - graceMs);
      const rows = await prisma.escalation.findMany({
        where: { status: "applied", resultRunId: { not: null }, appliedAt: { lte: cutoff }, task: { status: "queued" } },
        select: { id: true, taskId: true, resultRunId: true, fromCheckpointForResult: true, decision: true },
        take: 100,
      });
      // Only a run that is still the task's latest and has not begun (no step yet).
      const out: Awaited<ReturnType<RecoverDecisionsPorts["findUnstartedResults"]>> = [];
      for (const r of rows) {
        const run = await prisma.run.findUnique({ where: { id: r.resultRunId! }, select: { status: true, _count: { select: { steps: true } } } });
        if (run?.status === "running" && run._count.steps === 0)
          out.push({ escalationId: r.id, taskId: r.taskId, runId: r.resultRunId!, checkpointId: r.fromCheckpointForResult, decision: r.decision ?? "" });
      }
      return out;
    },
    sendRunStarted,
    sendApplied,
  };
}
