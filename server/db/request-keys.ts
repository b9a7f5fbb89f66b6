import { createHash } from "node:crypto";
import superjson from "superjson";
import { canonicalJsonText } from "../domain/effect-fingerprint.ts";
import { AppError } from "../errors.ts";
import { Prisma, type PrismaClient } from "./client.ts";
import { requestResultJson } from "./json-columns.ts";

/** IdempotentRequest.status: claimed `running` before the action, `done` with its result (also a CHECK constraint, migration status_checks). */
export const REQUEST_KEY_STATUSES = ["running", "done"] as const;
export type RequestKeyStatus = (typeof REQUEST_KEY_STATUSES)[number];

/** How long a repeat waits for the first request with its key to finish before it is told to try again (ms). */
export const REQUEST_KEY_WAIT_MS = 30_000;
/** A `running` claim older than this (ms) is taken over: the process that held it died mid-action. */
export const REQUEST_KEY_TAKEOVER_MS = 120_000;
/** Keyed requests are kept this long (ms), then pruned: a key is for a retry or a double click, not for ever. */
export const REQUEST_KEY_RETENTION_MS = 7 * 24 * 3600_000;

const POLL_MS = 50;
let lastPrune = 0;

const isUniqueViolation = (e: unknown) => e instanceof Prisma.PrismaClientKnownRequestError && e.code === "P2002";

/** sha256 (hex) of the request's input as canonical JSON (RFC 8785), without its idempotency key. */
export function requestInputHash(input: Record<string, unknown>): string {
  const { idempotencyKey: _key, ...rest } = input;
  void _key;
  return createHash("sha256")
    .update(canonicalJsonText(JSON.parse(JSON.stringify(rest)) as unknown))
    .digest("hex");
}

/**
 * Runs `run` once per (`actor`, `action`, `key`) — the idempotency key a caller sent with a mutation
 * (Stripe's and the IETF draft "The Idempotency-Key HTTP Header Field"'s model): the first request
 * claims the key in `idempotent_request` (a unique row, so two requests arriving in the same
 * millisecond cannot both claim it), runs, and stores its result; a repeat gets that result — after
 * waiting for the first to finish when it is still running — without acting again. A request that
 * failed leaves no claim behind, so a retry with the same key runs again. Without a key, `run` just runs.
 *
 * @param input the request's input (the key in it is ignored): a repeat with the same key and another
 *   input is refused, since it is not the same request.
 * @returns `run`'s result, or the first request's result (through superjson: Dates and the like survive).
 * @throws AppError CONFLICT when the key was used for another input, or when the first request is still
 *   running after REQUEST_KEY_WAIT_MS; whatever `run` throws.
 */
export async function onceByKey<T>({
  prisma,
  actor,
  action,
  key,
  input,
  run,
  waitMs = REQUEST_KEY_WAIT_MS,
}: {
  prisma: PrismaClient;
  actor: string;
  action: string;
  key: string | null | undefined;
  input: Record<string, unknown>;
  run: () => Promise<T>;
  waitMs?: number;
}): Promise<T> {
  if (!key) return run();
  await pruneOld(prisma);
  const inputHash = requestInputHash(input);
  const where = { actor_action_key: { actor, action, key } };
  const deadline = Date.now() + waitMs;
  for (;;) {
    let claimedId: string | null = null;
    try {
      claimedId = (await prisma.idempotentRequest.create({ data: { actor, action, key, inputHash }, select: { id: true } })).id;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    if (!claimedId) {
      const row = await prisma.idempotentRequest.findUnique({ where });
      if (!row) continue; // the first request failed and let go of the key: claim it again
      if (row.inputHash !== inputHash)
        throw new AppError("CONFLICT", `idempotencyKey: "${key}" was already used for a different ${action} request; send a new key for a new request`);
      if (row.status === "done") return superjson.deserialize<T>(requestResultJson.decode(row.result));
      // Still running. Taken over when its claim is stale (the process that held it died); else wait.
      if (Date.now() - row.claimedAt.getTime() > REQUEST_KEY_TAKEOVER_MS) {
        const taken = await prisma.idempotentRequest.updateMany({
          where: { id: row.id, status: "running", claimedAt: row.claimedAt },
          data: { claimedAt: new Date() },
        });
        if (taken.count === 1) claimedId = row.id;
      }
      if (!claimedId) {
        if (Date.now() > deadline)
          throw new AppError("CONFLICT", `the ${action} request with idempotencyKey "${key}" is still being processed; ask again in a moment`);
        await new Promise((r) => setTimeout(r, POLL_MS));
        continue;
      }
    }
    let result: T;
    try {
      result = await run();
    } catch (error) {
      await prisma.idempotentRequest.deleteMany({ where: { id: claimedId, status: "running" } }).catch(() => undefined);
      throw error;
    }
    await prisma.idempotentRequest.update({
      where: { id: claimedId },
      data: { status: "done", result: requestResultJson.encode(superjson.serialize(result)), finishedAt: new Date() },
    });
    return result;
  }
}

/** Deletes keyed requests older than REQUEST_KEY_RETENTION_MS, at most once a minute per process. */
async function pruneOld(prisma: PrismaClient): Promise<void> {
  if (Date.now() - lastPrune < 60_000) return;
  lastPrune = Date.now();
  await prisma.idempotentRequest.deleteMany({ where: { createdAt: { lt: new Date(Date.now() - REQUEST_KEY_RETENTION_MS) } } });
}

/** The actor a key is scoped to: the user, else the API token (the local CLI token has no user), else the name. */
export function requestKeyActor(principal: { userId: string | null; tokenId?: string | undefined; name: string }): string {
  return principal.userId ? `user:${principal.userId}` : principal.tokenId ? `token:${principal.tokenId}` : `name:${principal.name}`;
}
