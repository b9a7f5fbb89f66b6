import type { Prisma, PrismaClient } from "./client.ts";
import { sideEffectArgumentsJson, sideEffectResultJson } from "./json-columns.ts";

// Reads of the side-effect ledger (table side_effect) the checkpoint repository needs; the ledger's
// writes, and what the rows mean, are server/tools/ledger.ts.

/** A JSON value as the ledger stores a call's arguments and result (Prisma's, so a decoded column is one as it is). */
export type JsonValue = Prisma.JsonValue;
export type JsonObject = { [key: string]: JsonValue };

/** A committed effect as the ledger recorded it. */
export interface CommittedEffect {
  idempotencyKey: string;
  runId: string;
  stepId: string;
  tool: string;
  /** The arguments the effect was fingerprinted over. */
  arguments: JsonValue;
  /** The recorded result, a JSON object; null for a row without one. */
  result: Record<string, unknown> | null;
  committedAt: Date | null;
}

/**
 * Effects a task committed, oldest first, optionally only those after `since` (e.g. the last
 * checkpoint's time), so a resumed run can fold them into its completed steps.
 * @throws JsonColumnError naming SideEffect.result and the effect's idempotency key for a result that is not an object.
 */
export async function listCommittedEffects({ prisma, taskId, since }: { prisma: PrismaClient; taskId: string; since?: Date }): Promise<CommittedEffect[]> {
  const rows = await prisma.sideEffect.findMany({
    where: { taskId, status: "committed", ...(since ? { committedAt: { gt: since } } : {}) },
    orderBy: [{ committedAt: "asc" }, { createdAt: "asc" }],
  });
  return rows.map((r) => ({
    idempotencyKey: r.idempotencyKey,
    runId: r.runId,
    stepId: r.stepId,
    tool: r.tool,
    arguments: sideEffectArgumentsJson.decode(r.arguments, r.idempotencyKey),
    result: r.result === null ? null : sideEffectResultJson.decode(r.result, r.idempotencyKey),
    committedAt: r.committedAt,
  }));
}
