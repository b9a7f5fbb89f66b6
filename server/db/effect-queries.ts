import type { PrismaClient } from "./client.ts";

// Reads of the side-effect ledger (table side_effect) the checkpoint repository needs; the ledger's
// writes, and what the rows mean, are server/tools/ledger.ts.

/** A JSON value as the ledger stores a call's arguments and result. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/**
 * Effects a task committed, oldest first, optionally only those after `since` (e.g. the last
 * checkpoint's time), so a resumed run can fold them into its completed steps.
 */
export async function listCommittedEffects({
  prisma,
  taskId,
  since,
}: {
  prisma: PrismaClient;
  taskId: string;
  since?: Date;
}): Promise<Array<{ idempotencyKey: string; runId: string; stepId: string; tool: string; arguments: JsonValue; result: JsonValue; committedAt: Date | null }>> {
  const rows = await prisma.sideEffect.findMany({
    where: { taskId, status: "committed", ...(since ? { committedAt: { gt: since } } : {}) },
    orderBy: [{ committedAt: "asc" }, { createdAt: "asc" }],
  });
  return rows.map((r) => ({
    idempotencyKey: r.idempotencyKey,
    runId: r.runId,
    stepId: r.stepId,
    tool: r.tool,
    arguments: r.arguments as JsonValue,
    result: (r.result ?? null) as JsonValue,
    committedAt: r.committedAt,
  }));
}
