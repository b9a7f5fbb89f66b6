import type { OpenEscalationInput } from "../agent/ports.ts";
import { ulid } from "ulid";
import type { ClaimPorts, DecidePorts, EscalationState } from "../domain/decide-escalation.ts";
import { ESCALATION_DECISIONS, type EscalationDecision } from "../../lib/contracts/escalation.ts";
import { crashPoint } from "../fault-injection.ts";
import { prismaDecisionApplyPorts } from "./apply-decision-ports.ts";
import { Prisma, type PrismaClient } from "./client.ts";
import { taskSpend } from "./run-repository.ts";
import { escalationBudgetIncreaseJson, escalationEvidenceJson, escalationFactEditsJson, undoStepArgumentsJson, undoStepOutputJson } from "./json-columns.ts";
import { taskProfile } from "./task-profile.ts";

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
}: OpenEscalationInput & { prisma: PrismaClient }): Promise<{ escalationId: string }> {
  const existing = await prisma.escalation.findUnique({ where: { runId_stepId: { runId, stepId } } });
  if (existing) return { escalationId: existing.id };
  const profile = (await taskProfile({ prisma, taskId })).spec;
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
        evidence: escalationEvidenceJson.encode(evidence),
        checkpointId,
        fingerprint,
        costUsd: costUsd.toFixed(8),
        assigneeRole: profile.escalationRole,
        dueAt: new Date(Date.now() + profile.escalationDueMinutes * 60_000),
      },
    });
    await tx.run.updateMany({ where: { id: runId, status: "running" }, data: { status: "escalated", endReason, endedAt: new Date() } });
    await tx.task.updateMany({ where: { id: taskId, status: { in: ["running", "queued"] } }, data: { status: "waiting_for_human" } });
  });
  return { escalationId: id };
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
  const e = await prisma.escalation.findUniqueOrThrow({
    where: { id: escalationId },
    select: { status: true, decision: true, applyAfter: true, resultRunId: true },
  });
  // The database clock, as for setting applyAfter and for the undo's check.
  const now = e.status === "decided" && e.applyAfter !== null ? await dbNow(prisma) : null;
  return {
    status: e.status as "open" | "decided" | "applying" | "applied",
    decision: e.decision,
    due: e.status === "decided" && (e.applyAfter === null || (now !== null && e.applyAfter.getTime() <= now.getTime())),
    resultRunId: e.resultRunId,
  };
}

/**
 * The database's clock (`clock_timestamp()`), so every time an undo window is set or checked against
 * comes from one clock whichever process asks.
 */
export async function dbNow(prisma: PrismaClient | Prisma.TransactionClient): Promise<Date> {
  const [row] = await prisma.$queryRaw<{ ms: number }[]>`SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms`;
  return new Date(Math.floor(row!.ms));
}

const stateSelect = {
  status: true,
  decision: true,
  decidedBy: true,
  decidedAt: true,
  applyAfter: true,
  appliedAt: true,
  claimedBy: true,
  claimedAt: true,
} as const;

async function readState(prisma: PrismaClient | Prisma.TransactionClient, escalationId: string): Promise<EscalationState | null> {
  return prisma.escalation.findUnique({ where: { id: escalationId }, select: stateSelect });
}

/**
 * Decision ports over Prisma (see DecidePorts): guarded writes on the escalation row with the
 * database clock, and what applying a decision in the request reads and writes
 * (apply-decision-ports.ts `prismaDecisionApplyPorts`; the domain's `applyDecision` drives it);
 * `sendApplied`, `sendDecided` and `sendRunStarted` deliver the events (the Inngest client in the web
 * app; tests may pass their own). Crash point `escalation:applied-before-start` fires between the
 * committed application and its start being sent (the recovery sweep re-sends that start).
 */
export function prismaDecidePorts({
  prisma,
  sendApplied,
  sendDecided,
  sendRunStarted,
}: {
  prisma: PrismaClient;
  sendApplied: DecidePorts["sendApplied"];
  /** Optional for callers that only decide with `undoSeconds` 0; without it a decision with an undo window fails UNAVAILABLE (and is not kept). */
  sendDecided?: DecidePorts["sendDecided"];
  sendRunStarted: DecidePorts["sendRunStarted"];
}): DecidePorts {
  return {
    async describeTarget(escalationId) {
      const e = await prisma.escalation.findUnique({
        where: { id: escalationId },
        select: { checkpointId: true, reason: true, task: { select: { id: true, tokenBudget: true, costBudgetUsd: true } } },
      });
      if (!e) return null;
      return {
        taskId: e.task.id,
        reason: e.reason,
        tokenBudget: e.task.tokenBudget,
        costBudgetUsd: e.task.costBudgetUsd === null ? null : Number(e.task.costBudgetUsd),
        hasCheckpoint: e.checkpointId !== null,
      };
    },
    async recordDecision(input) {
      const now = await dbNow(prisma);
      const applyAfter = input.undoSeconds > 0 ? new Date(now.getTime() + input.undoSeconds * 1000) : null;
      const holders = [input.actor, ...(input.takeOverFrom ? [input.takeOverFrom] : [])];
      const updated = await prisma.escalation.updateMany({
        where: { id: input.escalationId, status: "open", OR: [{ claimedBy: null }, { claimedBy: { in: holders } }] },
        data: {
          ...(input.takeOverFrom ? { claimedBy: input.actor, claimedAt: now } : {}),
          status: "decided",
          decision: input.decision,
          decidedBy: input.actor,
          decidedAt: now,
          applyAfter,
          guidance: input.guidance || null,
          budgetIncrease: escalationBudgetIncreaseJson.encodeNullable(input.budgetIncrease),
          factEdits: escalationFactEditsJson.encodeNullable(input.factEdits),
          deadEndReason: input.deadEndReason || null,
        },
      });
      if (updated.count === 1) return { ok: true, applyAfter };
      const state = await readState(prisma, input.escalationId);
      return state ? { ok: false, state } : null;
    },
    sendApplied,
    sendDecided:
      sendDecided ??
      (() => {
        throw new Error("no sender for longhaul/escalation.decided was configured");
      }),
    apply: prismaDecisionApplyPorts({ prisma }),
    async sendRunStarted(event) {
      crashPoint("escalation:applied-before-start");
      await sendRunStarted(event);
    },
    undoDecision: ({ escalationId, actor, expectedApplyAfter, onlyBy }) => undoDecision({ prisma, escalationId, actor, expectedApplyAfter, onlyBy }),
    endUndoWindow: ({ escalationId, onlyBy }) => endUndoWindow({ prisma, escalationId, onlyBy }),
  };
}

/**
 * Ends a decision's undo window now ("Apply now"): one guarded write, `status = decided AND
 * applyAfter > database now AND decidedBy = onlyBy` → `applyAfter = database now`. Returns the
 * decision and its new `applyAfter`, `{ok: false, state}` when the condition did not hold (undone,
 * applied, the window over, someone else's), or null when the escalation does not exist.
 */
export async function endUndoWindow({
  prisma,
  escalationId,
  onlyBy,
}: {
  prisma: PrismaClient;
  escalationId: string;
  onlyBy: string;
}): Promise<{ ok: true; decision: EscalationDecision; applyAfter: Date } | { ok: false; state: EscalationState } | null> {
  const now = await dbNow(prisma);
  const updated = await prisma.escalation.updateMany({
    where: { id: escalationId, status: "decided", decidedBy: onlyBy, applyAfter: { gt: now } },
    data: { applyAfter: now },
  });
  const state = await readState(prisma, escalationId);
  if (!state) return null;
  // Once the window has ended nothing but the application changes the row, and it keeps the decision.
  const decision = ESCALATION_DECISIONS.find((d) => d === state.decision);
  return updated.count === 1 && decision !== undefined ? { ok: true, decision, applyAfter: now } : { ok: false, state };
}

/**
 * Undoes a decision inside its undo window, in one transaction: CAS `status = decided AND
 * applyAfter > database now` (and `= expectedApplyAfter` when given) → `open` with the decision
 * fields cleared, and a completed human step `undo-<escalation step>-<applyAfter ms>` on the
 * escalated run's timeline saying what was undone, by whom and when. Returns null when the escalation
 * does not exist, `{ok: false, state}` when the condition did not hold.
 */
export async function undoDecision({
  prisma,
  escalationId,
  actor,
  expectedApplyAfter,
  onlyBy,
}: {
  prisma: PrismaClient;
  escalationId: string;
  actor: string;
  expectedApplyAfter?: Date;
  /** Undo only a decision made by this actor. */
  onlyBy?: string;
}): Promise<{ ok: true; undone: { decision: string; decidedBy: string | null; at: Date } } | { ok: false; state: EscalationState } | null> {
  return prisma.$transaction(async (tx) => {
    const e = await tx.escalation.findUnique({ where: { id: escalationId } });
    if (!e) return null;
    const now = await dbNow(tx);
    const inWindow =
      e.status === "decided" &&
      e.applyAfter !== null &&
      e.applyAfter > now &&
      (!expectedApplyAfter || e.applyAfter.getTime() === expectedApplyAfter.getTime()) &&
      (onlyBy === undefined || e.decidedBy === onlyBy);
    const updated = inWindow
      ? await tx.escalation.updateMany({
          where: {
            id: escalationId,
            status: "decided",
            applyAfter: { equals: e.applyAfter!, gt: now },
            ...(onlyBy === undefined ? {} : { decidedBy: onlyBy }),
          },
          data: {
            status: "open",
            decision: null,
            decidedBy: null,
            decidedAt: null,
            applyAfter: null,
            guidance: null,
            budgetIncrease: Prisma.DbNull,
            factEdits: Prisma.DbNull,
            deadEndReason: null,
          },
        })
      : { count: 0 };
    if (updated.count !== 1) {
      const state = await readState(tx, escalationId);
      return state ? { ok: false as const, state } : null;
    }
    const decision = e.decision ?? "";
    const index = (await tx.step.aggregate({ where: { runId: e.runId }, _max: { index: true } }))._max.index ?? 0;
    await tx.step.upsert({
      where: { runId_stepId: { runId: e.runId, stepId: `undo-${e.stepId}-${e.applyAfter!.getTime()}` } },
      create: {
        runId: e.runId,
        stepId: `undo-${e.stepId}-${e.applyAfter!.getTime()}`,
        index: index + 1,
        kind: "human",
        status: "completed",
        startedAt: now,
        endedAt: now,
        durationMs: e.decidedAt ? now.getTime() - e.decidedAt.getTime() : null,
        arguments: undoStepArgumentsJson.encode({
          undone: decision,
          decidedBy: e.decidedBy,
          decidedAt: e.decidedAt?.toISOString() ?? null,
          guidance: e.guidance,
          applyAfter: e.applyAfter!.toISOString(),
        }),
        output: undoStepOutputJson.encode({ undoneBy: actor, undoneAt: now.toISOString() }),
        summary: `undo by ${actor}: ${decision.replace("_", " ")} by ${e.decidedBy ?? "a handler"} taken back before it applied`,
      },
      update: {},
    });
    return { ok: true as const, undone: { decision, decidedBy: e.decidedBy, at: now } };
  });
}

/** Claim ports over Prisma (see ClaimPorts): one guarded write on `claimedBy`, database clock. */
export function prismaClaimPorts({ prisma }: { prisma: PrismaClient }): ClaimPorts {
  return {
    async setClaim({ escalationId, actor, expected }) {
      const now = await dbNow(prisma);
      const updated = await prisma.escalation.updateMany({
        where: { id: escalationId, claimedBy: expected, ...(actor !== null ? { status: { not: "applied" } } : {}) },
        data: { claimedBy: actor, claimedAt: actor === null ? null : now },
      });
      if (updated.count === 1) return { ok: true, at: now };
      const state = await readState(prisma, escalationId);
      return state ? { ok: false, state } : null;
    },
  };
}
