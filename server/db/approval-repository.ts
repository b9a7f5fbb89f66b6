import type { Prisma, PrismaClient } from "./client.ts";

/** A human's verdict on a proposed risky call, recognised by its ledger fingerprint. */
export interface RiskyVerdict {
  decision: "approve" | "reject";
  decidedBy: string | null;
  /** The handler's note (the reason for a rejection). */
  guidance: string | null;
  escalationId: string;
}

/**
 * The latest applied Approve or Reject of a risky call with this fingerprint (task + tool + canonical
 * arguments, server/tools/ledger.ts `fingerprintFor`) on the task, or null when none was given (the
 * run then asks for one). The run that resumes after the decision proposes the same call again and
 * finds the verdict here; a decision of another kind (resume with guidance, dead end) is no verdict.
 */
export async function findRiskyVerdict({
  prisma,
  taskId,
  fingerprint,
}: {
  prisma: PrismaClient;
  taskId: string;
  fingerprint: string;
}): Promise<RiskyVerdict | null> {
  const e = await prisma.escalation.findFirst({
    where: { taskId, fingerprint, reason: "risky_action", status: "applied", decision: { in: ["approve", "reject"] } },
    orderBy: { decidedAt: "desc" },
    select: { id: true, decision: true, decidedBy: true, guidance: true },
  });
  return e ? { decision: e.decision as "approve" | "reject", decidedBy: e.decidedBy, guidance: e.guidance, escalationId: e.id } : null;
}

/**
 * Applies a human's verdict on an unresolved external effect (an escalation of reason
 * `unresolved_effect`, Approve = "it happened", Reject = "it did not happen") to the ledger rows of
 * this fingerprint that were still unresolved when the verdict was given (intents created before
 * it — a later intent is a new incident and waits for its own verdict). `happened` → committed
 * with `resultFor(key)`, so the same call is answered deduplicated and not performed again;
 * `not_happened` → withdrawn, so it is performed again. Idempotent; returns the rows settled.
 */
export async function settleEffectByVerdict({
  prisma,
  taskId,
  fingerprint,
  resultFor,
}: {
  prisma: PrismaClient;
  taskId: string;
  fingerprint: string;
  resultFor: (verdict: { idempotencyKey: string; confirmedBy: string }) => Prisma.InputJsonObject;
}): Promise<number> {
  const e = await prisma.escalation.findFirst({
    where: { taskId, fingerprint, reason: "unresolved_effect", status: "applied", decision: { in: ["approve", "reject"] } },
    orderBy: { decidedAt: "desc" },
    select: { decision: true, decidedBy: true, decidedAt: true },
  });
  if (!e?.decidedAt) return 0;
  const rows = await prisma.sideEffect.findMany({
    where: { taskId, fingerprint, status: "intent", createdAt: { lt: e.decidedAt } },
    select: { id: true, idempotencyKey: true },
  });
  if (e.decision === "reject") return (await prisma.sideEffect.deleteMany({ where: { id: { in: rows.map((r) => r.id) }, status: "intent" } })).count;
  let settled = 0;
  for (const r of rows) {
    const result = resultFor({ idempotencyKey: r.idempotencyKey, confirmedBy: e.decidedBy ?? "a handler" });
    settled += (await prisma.sideEffect.updateMany({ where: { id: r.id, status: "intent" }, data: { status: "committed", result, committedAt: new Date() } }))
      .count;
  }
  return settled;
}
