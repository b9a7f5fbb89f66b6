import { diffWorkingSets } from "../domain/checkpoint.ts";
import { AppError } from "../errors.ts";
import { z } from "zod";
import type { PrismaClient } from "./client.ts";
import { dbNow } from "./escalation-repository.ts";
import { checkpointWorkingSetJson, undoStepArgumentsJson, undoStepOutputJson } from "./json-columns.ts";
import { inboxCounts, USER_ASSIGNEE_PREFIX } from "../../lib/contracts/escalation.ts";
import { taskSpend, taskUsage } from "./run-repository.ts";
import { taskProfile } from "./task-profile.ts";
import { clockOf } from "../domain/escalation-wait.ts";

/**
 * The handlers' inbox: open escalations first — SLA breaches (dueAt passed) on top, then by due
 * time — then those decided and waiting out their undo window, then the 100 most recently decided.
 * `status`: `open` (only open ones), `decided`/`closed` (only decided ones), none = both. `reason`
 * filters by reason; `assignee` matches the claimant, the assignee role (exact), or a person the
 * escalation is routed to by name (`user:<assignee>`, case-insensitive). Times are judged
 * by the database clock: `overdue`, and `applyInMs` (ms left of an undo window, 0 when none or over).
 * Each row says who is on it (`claimedBy`, `claimedAt`) and the task's spend so far (`taskCostUsd`,
 * the same sum as task.get's usage.costUsd).
 */
export async function listEscalations({
  prisma,
  status,
  reason,
  assignee,
}: {
  prisma: PrismaClient;
  status?: "open" | "closed" | "decided";
  reason?: string;
  assignee?: string;
}) {
  const include = { task: { select: { goal: true, status: true } } } as const;
  const common = {
    ...(reason ? { reason } : {}),
    ...(assignee
      ? {
          OR: [
            { claimedBy: assignee },
            { assigneeRole: assignee },
            { assigneeRole: { equals: `${USER_ASSIGNEE_PREFIX}${assignee}`, mode: "insensitive" as const } },
          ],
        }
      : {}),
  };
  const [open, closed, now] = await Promise.all([
    status === "closed" || status === "decided"
      ? []
      : prisma.escalation.findMany({ where: { status: "open", ...common }, orderBy: { dueAt: "asc" }, take: 200, include }),
    status === "open"
      ? []
      : prisma.escalation.findMany({
          where: { status: { not: "open" }, ...common },
          orderBy: [{ decidedAt: { sort: "desc", nulls: "last" } }],
          take: 100,
          include,
        }),
    dbNow(prisma),
  ]);
  const taskIds = [...new Set([...open, ...closed].map((e) => e.taskId))];
  const spend = taskIds.length
    ? await prisma.$queryRaw<{ taskId: string; usd: string | null }[]>`
        SELECT r."taskId" AS "taskId", sum(m."costUsd")::text AS usd FROM run r JOIN model_call m ON m."runId" = r.id WHERE r."taskId" = ANY(${taskIds}) GROUP BY r."taskId"`
    : [];
  const spendByTask = new Map(spend.map((s) => [s.taskId, Number(s.usd ?? 0)]));
  // Each task's launched profile's due time and chain (server/db/task-profile.ts taskProfile: the
  // version it launched with, else its profile's current one), for the escalations' clocks.
  const profiles = taskIds.length
    ? await prisma.$queryRaw<{ taskId: string; dueMinutes: number | null; chain: unknown }[]>`
        SELECT t.id AS "taskId", (v.snapshot->>'escalationDueMinutes')::int AS "dueMinutes", v.snapshot->'escalationChain' AS chain
        FROM task t JOIN agent_profile p ON p.id = t."profileId"
        JOIN agent_profile_version v
          ON (t."profileVersionId" IS NOT NULL AND v.id = t."profileVersionId")
          OR (t."profileVersionId" IS NULL AND v."profileId" = p.id AND v.version = p.version)
        WHERE t.id = ANY(${taskIds})`
    : [];
  const specByTask = new Map(
    profiles.flatMap((p) =>
      p.dueMinutes === null
        ? []
        : [[p.taskId, { escalationDueMinutes: p.dueMinutes, escalationChain: Array.isArray(p.chain) ? p.chain.map(String) : [] }] as const],
    ),
  );
  const pendingFirst = [...closed].sort((a, b) => Number(b.status !== "applied") - Number(a.status !== "applied"));
  return [...open, ...pendingFirst].map((e) => ({
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
    decidedAt: e.decidedAt,
    applyInMs: applyInMs(e, now),
    claimedBy: e.claimedBy,
    claimedAt: e.claimedAt,
    assigneeRole: e.assigneeRole,
    /** The escalation's clock (lib/contracts/escalation-timeout.ts escalationClock, by the database clock): the same figures the card, the task page and the CLI show. */
    ...clockFields(clockOf(e, specByTask.get(e.taskId) ?? null, now)),
    createdAt: e.createdAt,
    costUsd: Number(e.costUsd),
    /** USD the task has spent so far (all runs). */
    taskCostUsd: spendByTask.get(e.taskId) ?? 0,
    notifications: e.notifications,
  }));
}

/** A list row's clock: the figures without the timeout plan (the card has it). */
function clockFields({ timeout: _timeout, ...clock }: ReturnType<typeof clockOf>) {
  return clock;
}

function applyInMs(e: { status: string; applyAfter: Date | null }, now: Date): number {
  return e.status === "decided" && e.applyAfter ? Math.max(0, e.applyAfter.getTime() - now.getTime()) : 0;
}

/**
 * What the egress gate found in a proposed call (server/tools/egress-gate.ts `EgressVerdict`, as the
 * agent loop stores it in the escalation's evidence): the reasons in words, each destination outside
 * the policy, and each secret / verbatim file copy in the arguments — redacted, never the secret.
 */
export const egressEvidenceSchema = z.object({
  reasons: z.array(z.string()).default([]),
  summary: z.string().default(""),
  breaches: z
    .array(
      z.object({
        kind: z.enum(["email_recipient", "http_origin"]),
        field: z.string(),
        destination: z.string(),
        reason: z.string(),
        rule: z.string(),
      }),
    )
    .default([]),
  findings: z
    .array(
      z.object({
        kind: z.enum(["secret", "workspace_content"]),
        field: z.string(),
        rule: z.string(),
        label: z.string(),
        preview: z.string(),
        excerpt: z.string().optional(),
      }),
    )
    .default([]),
});

/**
 * Evidence of a `risky_action` escalation: the proposed tool call awaiting Approve / Reject (its
 * arguments redacted by the egress gate when it found something), with the gate's findings in
 * `egress` when the call broke the egress policy.
 */
export const proposedCallSchema = z.object({
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  fingerprint: z.string().optional(),
  stepId: z.string().optional(),
  egress: egressEvidenceSchema.optional(),
});

/** Evidence of a `budget` escalation: the ceiling reached (steps, tokens, or USD for `cost`). */
export const ceilingEvidenceSchema = z.object({
  ceiling: z.object({ kind: z.enum(["steps", "tokens", "cost"]), used: z.number(), limit: z.number() }),
});

/**
 * Evidence of an `unresolved_effect` escalation: an external call sent before a crash whose outcome
 * was never recorded (the ledger holds its intent without a result).
 */
export const unresolvedEffectSchema = z.object({
  stepId: z.string(),
  tool: z.string(),
  /** The call's arguments (an object; the raw text when they did not parse). */
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()]),
  idempotencyKey: z.string().nullable().default(null),
  fingerprint: z.string().nullable().optional(),
});

/**
 * The context card of an escalation: the detector's evidence, the checkpoint it stopped at (open
 * question, working set), the fact diff since the previous checkpoint, the last five steps, alerts,
 * cost so far and waste; who is on it (claim), the decision and its undo window (`applyInMs` by the
 * database clock), undone decisions, for `risky_action` the proposed call, for `budget` the ceiling
 * reached, for `unresolved_effect` the call whose outcome is unknown. `spend` holds USD and tokens
 * used against the task's budgets (null budget = no ceiling). @throws AppError NOT_FOUND.
 */
export async function getEscalationCardOrThrow({ prisma, escalationId }: { prisma: PrismaClient; escalationId: string }) {
  const e = await prisma.escalation.findUnique({
    where: { id: escalationId },
    include: { task: { include: { profile: { select: { name: true, model: true } } } } },
  });
  if (!e) throw new AppError("NOT_FOUND", `escalation ${escalationId} not found`);
  const checkpoint = e.checkpointId ? await prisma.checkpoint.findUnique({ where: { id: e.checkpointId } }) : null;
  const previous = checkpoint
    ? await prisma.checkpoint.findFirst({ where: { taskId: e.taskId, seq: { lt: checkpoint.seq } }, orderBy: { seq: "desc" } })
    : null;
  const workingSet = checkpoint ? checkpointWorkingSetJson.decode(checkpoint.workingSet, checkpoint.id) : null;
  const factDiff = workingSet ? diffWorkingSets(previous ? checkpointWorkingSetJson.decode(previous.workingSet, previous.id) : {}, workingSet) : [];
  const lastSteps = await prisma.step.findMany({
    where: { runId: e.runId, kind: { in: ["model", "tool"] } },
    orderBy: { index: "desc" },
    take: 5,
    select: { stepId: true, kind: true, tool: true, status: true, summary: true, arguments: true },
  });
  const alerts = await prisma.alert.findMany({ where: { taskId: e.taskId }, orderBy: { createdAt: "desc" }, take: 20 });
  const spend = await taskSpend({ prisma, taskId: e.taskId });
  const usage = await taskUsage({ prisma, taskId: e.taskId });
  const undos = await prisma.step.findMany({
    where: { runId: e.runId, kind: "human", stepId: { startsWith: `undo-${e.stepId}-` } },
    orderBy: { index: "asc" },
    select: { id: true, arguments: true, output: true },
  });
  const now = await dbNow(prisma);
  const launched = await taskProfile({ prisma, taskId: e.taskId });
  const proposed = e.reason === "risky_action" ? proposedCallSchema.safeParse(e.evidence) : null;
  const ceiling = e.reason === "budget" ? ceilingEvidenceSchema.safeParse(e.evidence) : null;
  const unresolved = e.reason === "unresolved_effect" ? unresolvedEffectSchema.safeParse(e.evidence) : null;
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
    deadEndReason: e.deadEndReason,
    applyAfter: e.applyAfter,
    /** ms left of the undo window by the database clock (0: none, or over). */
    applyInMs: applyInMs(e, now),
    appliedAt: e.appliedAt,
    /** Failed attempts at applying the decision (escalation-apply's onFailure); the recovery sweep retries with backoff. */
    applyFailures: e.applyFailures,
    applyError: e.applyError,
    applyFailedAt: e.applyFailedAt,
    resultRunId: e.resultRunId,
    claimedBy: e.claimedBy,
    claimedAt: e.claimedAt,
    /** risky_action: the proposed call ({tool, arguments, fingerprint, stepId, egress?: the gate's reasons, breaches and findings}); null otherwise or when the evidence does not have that shape. */
    proposedCall: proposed?.success ? proposed.data : null,
    /** budget: the ceiling reached ({kind: steps|tokens|cost, used, limit}; USD for cost); null otherwise. */
    ceiling: ceiling?.success ? ceiling.data.ceiling : null,
    /** unresolved_effect: the call whose outcome is unknown ({stepId, tool, arguments, idempotencyKey (null when unknown), fingerprint?}); null otherwise. */
    unresolvedEffect: unresolved?.success ? unresolved.data : null,
    /** Decisions taken back inside their undo window, oldest first. */
    undos: undos.map((u) => {
      const a = undoStepArgumentsJson.decode(u.arguments ?? {}, u.id);
      const o = undoStepOutputJson.decode(u.output ?? {}, u.id);
      return { decision: a.undone, decidedBy: a.decidedBy, undoneBy: o.undoneBy, undoneAt: o.undoneAt ? new Date(o.undoneAt) : null };
    }),
    assigneeRole: e.assigneeRole,
    /** The escalation's clock (escalationClock) and, while open, what happens when the wait times out (`timeout`; null otherwise). */
    ...clockOf(e, launched.spec, now),
    createdAt: e.createdAt,
    checkpoint: checkpoint
      ? {
          id: checkpoint.id,
          seq: checkpoint.seq,
          openQuestion: checkpoint.openQuestion,
          summary: checkpoint.summary,
          workingSet: workingSet ?? {},
        }
      : null,
    factDiff,
    lastSteps: lastSteps.reverse(),
    alerts: alerts.map((a) => ({ kind: a.kind, severity: a.severity, stepId: a.stepId, message: a.message, createdAt: a.createdAt })),
    /**
     * Use against the task's budgets now: USD spent (all runs, retries included) vs `costBudgetUsd`,
     * model + tool steps vs `stepBudget`, prompt + completion tokens vs `tokenBudget` (null = no ceiling).
     */
    spend: {
      usd: spend.usd,
      wastedUsd: spend.wastedUsd,
      waste: spend.waste,
      costBudgetUsd: e.task.costBudgetUsd === null ? null : Number(e.task.costBudgetUsd),
      steps: usage.steps,
      stepBudget: e.task.stepBudget,
      tokens: usage.tokens,
      tokenBudget: e.task.tokenBudget,
    },
  };
}

// requestEscalation (a write) moved to run-requests.ts; re-exported for existing imports.
export { requestEscalation } from "./run-requests.ts";

/**
 * The nav's inbox badge for a signed-in user (`name`, `roles`): open escalations that wait on them
 * and how many of those are overdue (lib/contracts/escalation.ts `inboxCounts`, by the database
 * clock). Reads the open rows' routing columns only (at most 1,000).
 */
export async function inboxCountsFor({ prisma, name, roles }: { prisma: PrismaClient; name: string; roles: readonly string[] }) {
  const [rows, now] = await Promise.all([
    prisma.escalation.findMany({
      where: { status: "open" },
      select: { status: true, assigneeRole: true, claimedBy: true, dueAt: true, notifications: true },
      take: 1_000,
    }),
    dbNow(prisma),
  ]);
  return inboxCounts(rows, { name, roles }, now);
}
