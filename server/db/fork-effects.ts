import type { Prisma, PrismaClient } from "./client.ts";
import { sideEffectArgumentsJson, type CheckpointEffect } from "./json-columns.ts";

/** One side effect a task committed after a checkpoint: what a fork from that checkpoint would do again. */
export interface EffectAfterCheckpoint {
  /** The ledger row's idempotency key (what a fork's `redoEffects` names). */
  idempotencyKey: string;
  /** `send_email`, `http_post`, or an MCP tool's qualified name. */
  tool: string;
  stepId: string;
  /** One line saying what it did: the recipient and subject of an email, the URL of a POST, else the arguments (at most 160 characters). */
  summary: string;
  committedAt: Date | null;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** One line for an effect from its tool and arguments (untrusted text, clipped; the caller redacts secrets before the browser). */
export function describeEffect(tool: string, args: Prisma.JsonValue): string {
  const a = args && typeof args === "object" && !Array.isArray(args) ? args : {};
  if (typeof a.to === "string" && typeof a.subject === "string") return clip(`email to ${a.to}: "${a.subject}"`, 160);
  if (typeof a.url === "string") return clip(`POST ${a.url}`, 160);
  return clip(`${tool} ${JSON.stringify(args ?? {})}`, 160);
}

/** The keys a checkpoint lists as committed by then (its decoded `sideEffects`; an empty key names nothing). */
export function checkpointEffectKeys(sideEffects: readonly Pick<CheckpointEffect, "idempotencyKey">[]): Set<string> {
  return new Set(sideEffects.map((e) => e.idempotencyKey).filter((k) => k.length > 0));
}

/**
 * The side effects task `taskId` committed that a checkpoint does not list (`listed`: its decoded
 * Checkpoint.sideEffects — they came after it), oldest first: what a fork from the checkpoint would
 * do again under new keys unless it reuses their recorded results. A fork's own copies of its
 * source's effects (keys `fork:<task>:<key>`) count as the effect they copy. At most `limit`
 * (default 200). @throws JsonColumnError for an effect whose stored arguments were not read.
 */
export async function effectsAfterCheckpoint({
  prisma,
  taskId,
  listed: listedEffects,
  limit = 200,
}: {
  prisma: PrismaClient;
  taskId: string;
  listed: readonly Pick<CheckpointEffect, "idempotencyKey">[];
  limit?: number;
}): Promise<EffectAfterCheckpoint[]> {
  const listed = checkpointEffectKeys(listedEffects);
  const prefix = `fork:${taskId}:`;
  const rows = await prisma.sideEffect.findMany({
    where: { taskId, status: "committed" },
    orderBy: [{ committedAt: "asc" }, { createdAt: "asc" }],
    select: { idempotencyKey: true, tool: true, stepId: true, arguments: true, committedAt: true },
  });
  return rows
    .filter((e) => !listed.has(e.idempotencyKey) && !(e.idempotencyKey.startsWith(prefix) && listed.has(e.idempotencyKey.slice(prefix.length))))
    .slice(0, limit)
    .map((e) => ({
      idempotencyKey: e.idempotencyKey,
      tool: e.tool,
      stepId: e.stepId,
      summary: describeEffect(e.tool, sideEffectArgumentsJson.decode(e.arguments, e.idempotencyKey)),
      committedAt: e.committedAt,
    }));
}
