import type { PrismaClient } from "./client.ts";

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
export async function findRiskyVerdict({ prisma, taskId, fingerprint }: { prisma: PrismaClient; taskId: string; fingerprint: string }): Promise<RiskyVerdict | null> {
  const e = await prisma.escalation.findFirst({
    where: { taskId, fingerprint, reason: "risky_action", status: "applied", decision: { in: ["approve", "reject"] } },
    orderBy: { decidedAt: "desc" },
    select: { id: true, decision: true, decidedBy: true, guidance: true },
  });
  return e ? { decision: e.decision as "approve" | "reject", decidedBy: e.decidedBy, guidance: e.guidance, escalationId: e.id } : null;
}
