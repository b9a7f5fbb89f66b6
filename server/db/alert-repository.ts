import type { AlertRecord } from "../agent/ports.ts";
import type { Prisma, PrismaClient } from "./client.ts";
import { alertEvidenceJson } from "./json-columns.ts";

/** Records an alert (idempotent per run + step + kind: a re-executed step finds the one it made). */
export async function recordAlert({ prisma, ...data }: { prisma: PrismaClient | Prisma.TransactionClient } & AlertRecord): Promise<void> {
  await prisma.alert.upsert({
    where: { runId_stepId_kind: { runId: data.runId, stepId: data.stepId, kind: data.kind } },
    create: { ...data, evidence: alertEvidenceJson.encode(data.evidence) },
    update: {},
  });
}
