import type { AlertSeverity } from "../domain/detectors.ts";
import type { Prisma, PrismaClient } from "./client.ts";

/** Records an alert (idempotent per run + step + kind: a re-executed step finds the one it made). */
export async function recordAlert({
  prisma,
  ...data
}: {
  prisma: PrismaClient | Prisma.TransactionClient;
  taskId: string;
  runId: string;
  stepId: string;
  kind: string;
  severity: AlertSeverity;
  message: string;
  evidence: Prisma.InputJsonValue;
}): Promise<void> {
  await prisma.alert.upsert({
    where: { runId_stepId_kind: { runId: data.runId, stepId: data.stepId, kind: data.kind } },
    create: data,
    update: {},
  });
}
