import { canonicalJsonText, effectFingerprint, NotCanonicalJsonError } from "../domain/effect-fingerprint.ts";
import type { z } from "zod";
import { Prisma, type PrismaClient } from "../db/client.ts";
import { crashPoint } from "../fault-injection.ts";
import { ToolError } from "./types.ts";
import type { JsonObject } from "../db/effect-queries.ts";
import { jsonColumnCodec, sideEffectArgumentsJson, sideEffectResultJson } from "../db/json-columns.ts";

/**
 * The side-effect ledger (docs/ARCHITECTURE.md "Idempotency"; table `side_effect`, model SideEffect).
 *
 * - Idempotency key = task id + run id + step id. Step ids are per call ("tool-3-1"), so one key is
 *   one effect; an executor retry or a replay after a crash reuses the key, two runs never collide.
 * - Fingerprint = sha256 of task id + tool + canonical arguments (RFC 8785 JSON canonicalization:
 *   sorted keys, no whitespace, ECMAScript number formatting, so `{"b":1.0,"a":2}` and
 *   `{"a":2,"b":1}` agree).
 * - Same key again → the recorded result, nothing written but `repeats + 1` (outcome "replayed").
 * - A new key whose fingerprint matches an effect the task already committed (a resumed or forked
 *   run, or the agent repeating itself) → the recorded result marked `deduplicated: true`, recorded
 *   under the new key too, no effect (outcome "deduplicated"), unless the tool is `repeatable`.
 * - Internal effects (rows in our own database, e.g. the outbox) run in one transaction with the
 *   ledger row: intent insert → effect → committed. An intent without a result can therefore never
 *   be seen for them. Concurrent calls are serialised by a transaction-scoped advisory lock on
 *   (task, fingerprint) and by the unique key, so exactly one effect happens.
 * - External effects (performExternalEffect) record the intent in its own transaction before the
 *   call and the result after it. A replay that finds an intent without a result asks the external
 *   system through `resolveByKey` when the tool has one, and otherwise throws UnresolvedEffectError
 *   so the agent loop escalates to a human instead of guessing. While such an intent is unresolved,
 *   the same effect under another key (a resumed run proposing it again) is refused the same way.
 *   `perform` throws EffectNotPerformedError when it knows nothing reached the external system
 *   (connection refused, a 5xx answer): the intent is withdrawn and a retry performs afresh.
 *   A human's verdict on an unresolved effect (it happened / it did not) is applied by
 *   server/db/approval-repository.ts `settleEffectByVerdict`.
 */

export type { JsonObject, JsonValue } from "../db/effect-queries.ts";
export { listCommittedEffects } from "../db/effect-queries.ts";

/** How a ledgered call was answered. */
export type EffectOutcome = "performed" | "replayed" | "deduplicated";

export interface EffectIdentity {
  taskId: string;
  runId: string;
  stepId: string;
}

/** What an effect's tool returns and the ledger records (SideEffect.result): a JSON object. */
export type EffectResult = Record<string, unknown>;

export interface LedgeredResult<R extends EffectResult> {
  result: R;
  outcome: EffectOutcome;
  idempotencyKey: string;
  fingerprint: string;
}

/** Idempotency key of the effect made by step `stepId` of run `runId` of task `taskId`. */
export function idempotencyKeyFor({ taskId, runId, stepId }: EffectIdentity): string {
  return `${taskId}:${runId}:${stepId}`;
}

/**
 * RFC 8785 canonical JSON of `value` (domain/effect-fingerprint.ts). Throws ToolError `invalid_arguments`
 * for values JSON cannot represent canonically (NaN, Infinity, lone surrogates in strings).
 */
export function canonicalJson(value: unknown): string {
  return asToolError(() => canonicalJsonText(value));
}

/** Fingerprint of an effect (domain/effect-fingerprint.ts `effectFingerprint`); ToolError `invalid_arguments` as canonicalJson. */
export function fingerprintFor(call: { taskId: string; tool: string; args: unknown }): string {
  return asToolError(() => effectFingerprint(call));
}

function asToolError<T>(body: () => T): T {
  try {
    return body();
  } catch (error) {
    if (error instanceof NotCanonicalJsonError) throw new ToolError("invalid_arguments", `arguments: cannot be canonicalised as JSON (${error.message})`);
    throw error;
  }
}

/** Default marking of a deduplicated result: the recorded object with `deduplicated: true`. */
function markDeduplicated<R extends EffectResult>(recorded: R): R {
  return { ...recorded, deduplicated: true };
}

/** Thrown when an external effect has an intent but no result and nobody can tell whether it happened. */
export class UnresolvedEffectError extends Error {
  readonly idempotencyKey: string;
  constructor(idempotencyKey: string, tool: string) {
    super(
      `side effect ${tool} with key ${idempotencyKey} was started but its result was never recorded, and the tool cannot ask the external system by key; a human must decide whether it happened`,
    );
    this.name = "UnresolvedEffectError";
    this.idempotencyKey = idempotencyKey;
  }
}

/**
 * Thrown by an external effect's `perform` when nothing reached the external system (connection
 * refused, DNS failure, or an answer saying it was not done, e.g. a 5xx). The ledger withdraws the
 * intent, so the retried step performs the effect afresh instead of escalating.
 */
export class EffectNotPerformedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "EffectNotPerformedError";
  }
}

type Tx = Prisma.TransactionClient;

interface EffectInput<R extends EffectResult = EffectResult> extends EffectIdentity {
  prisma: PrismaClient;
  tool: string;
  /** Validated arguments; stored on the ledger row and fingerprinted. */
  args: JsonObject;
  /** Identical repeats by another step or run are legitimate: perform again instead of deduplicating. */
  repeatable?: boolean;
  /** Validates results read back from the ledger's JSON column (JSON read back from the database is parsed, never trusted to have the written shape). */
  resultSchema?: z.ZodType<R>;
}

const TX_OPTIONS = { maxWait: 10_000, timeout: 30_000 } as const;

/** The ledger row recording an effect's intent, before the effect is performed. */
function intentRow(input: EffectInput, idempotencyKey: string, fingerprint: string) {
  return {
    idempotencyKey,
    fingerprint,
    taskId: input.taskId,
    runId: input.runId,
    stepId: input.stepId,
    tool: input.tool,
    arguments: sideEffectArgumentsJson.encode(input.args),
    status: "intent",
  };
}

/** Serialises every ledger decision for one (task, fingerprint) until the transaction ends. */
async function lockFingerprint(tx: Tx, taskId: string, fingerprint: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`ledger:${taskId}:${fingerprint}`}, 0))`;
}

/**
 * A recorded result, checked with the tool's schema when it has one.
 * @throws JsonColumnError naming SideEffect.result and the row's key when it is not an object, or not of the schema's shape (data corruption).
 */
function readResult<R extends EffectResult>(input: EffectInput<R>, stored: unknown, row: string): R {
  const recorded = sideEffectResultJson.decode(stored, row);
  // Without a schema the tool's result type is what the tool itself recorded (R, a JSON object).
  return input.resultSchema ? jsonColumnCodec<R>(sideEffectResultJson.column, input.resultSchema).decode(recorded, row) : (recorded as R);
}

type LedgerDecision<R> = { kind: "answer"; result: R; outcome: "replayed" | "deduplicated" } | { kind: "intent-without-result" } | { kind: "new" };

/**
 * Looks at the ledger for `key`: a committed row answers with its result; a committed effect with
 * the same fingerprint under another key answers deduplicated (and is recorded under `key`).
 */
async function decide<R extends EffectResult>(tx: Tx, input: EffectInput<R>, key: string, fingerprint: string, external = false): Promise<LedgerDecision<R>> {
  const existing = await tx.sideEffect.findUnique({ where: { idempotencyKey: key } });
  if (existing) {
    if (existing.fingerprint !== fingerprint) {
      throw new ToolError(
        "idempotency_conflict",
        `step ${input.stepId} already performed ${existing.tool} with different arguments; an idempotency key cannot be reused for another effect`,
      );
    }
    if (existing.status === "committed") {
      await tx.sideEffect.update({ where: { id: existing.id }, data: { repeats: { increment: 1 } } });
      return { kind: "answer", result: readResult(input, existing.result, key), outcome: "replayed" };
    }
    return { kind: "intent-without-result" };
  }
  if (!input.repeatable) {
    const original = await tx.sideEffect.findFirst({
      where: { taskId: input.taskId, fingerprint, status: "committed" },
      orderBy: { createdAt: "asc" },
    });
    if (original) {
      const result = markDeduplicated(readResult(input, original.result, original.idempotencyKey));
      await tx.sideEffect.create({
        data: {
          idempotencyKey: key,
          fingerprint,
          taskId: input.taskId,
          runId: input.runId,
          stepId: input.stepId,
          tool: input.tool,
          arguments: sideEffectArgumentsJson.encode(input.args),
          status: "committed",
          result: sideEffectResultJson.encode(result),
          committedAt: new Date(),
        },
      });
      return { kind: "answer", result, outcome: "deduplicated" };
    }
    if (external) {
      // The same effect is in flight or unresolved under another key: never perform it twice.
      const pending = await tx.sideEffect.findFirst({ where: { taskId: input.taskId, fingerprint, status: "intent" }, select: { idempotencyKey: true } });
      if (pending) throw new UnresolvedEffectError(pending.idempotencyKey, input.tool);
    }
  }
  return { kind: "new" };
}

/**
 * Performs an effect that lives in Longhaul's own database exactly once per idempotency key, in one
 * transaction with its ledger row (intent → `perform(tx)` → committed), then reaches the crash point
 * `tool:after-side-effect`. `perform` must write only through `tx` and return a JSON object.
 *
 * Returns the result and how it was obtained (performed / replayed / deduplicated).
 * Throws ToolError `idempotency_conflict` when the key was used with other arguments; database
 * errors propagate (the durable step retries, and the rolled-back transaction left nothing behind).
 */
export async function performInternalEffect<R extends EffectResult>(
  input: EffectInput<R> & { perform: (tx: Tx, meta: { idempotencyKey: string }) => Promise<R> },
): Promise<LedgeredResult<R>> {
  const idempotencyKey = idempotencyKeyFor(input);
  const fingerprint = fingerprintFor({ taskId: input.taskId, tool: input.tool, args: input.args });
  const answer = await input.prisma.$transaction(async (tx) => {
    await lockFingerprint(tx, input.taskId, fingerprint);
    const decision = await decide<R>(tx, input, idempotencyKey, fingerprint);
    if (decision.kind === "answer") return { result: decision.result, outcome: decision.outcome };
    // "intent-without-result" cannot be seen here: intents of internal effects commit with their effect.
    if (decision.kind === "intent-without-result") throw new UnresolvedEffectError(idempotencyKey, input.tool);
    const inserted = await tx.sideEffect.createMany({
      data: [intentRow(input, idempotencyKey, fingerprint)],
      skipDuplicates: true,
    });
    if (inserted.count === 0) {
      // Another transaction committed the same key between our lookup and insert (different lock key
      // only if fingerprints differ, which decide() would have reported); read its answer.
      const again = await decide<R>(tx, input, idempotencyKey, fingerprint);
      if (again.kind === "answer") return { result: again.result, outcome: again.outcome };
      throw new UnresolvedEffectError(idempotencyKey, input.tool);
    }
    const result = await input.perform(tx, { idempotencyKey });
    await tx.sideEffect.update({
      where: { idempotencyKey },
      data: { status: "committed", result: sideEffectResultJson.encode(result), committedAt: new Date() },
    });
    return { result, outcome: "performed" as const };
  }, TX_OPTIONS);
  if (answer.outcome === "performed") crashPoint("tool:after-side-effect");
  return { ...answer, idempotencyKey, fingerprint };
}

/**
 * Performs an effect on an external system (mail provider, payment API) at most once per key, as far
 * as the system allows: the intent is committed before `perform` is called and the result after it.
 * - Same key, committed → the recorded result. Same fingerprint committed under another key →
 *   deduplicated, as for internal effects.
 * - Same key, intent without result (the process died mid-call) → `resolveByKey(key)`: a result means
 *   the effect happened (it is recorded and returned); `null` means it did not (it is performed now).
 *   Without `resolveByKey` → UnresolvedEffectError: stop and escalate, never guess.
 * `perform` should pass the idempotency key on to the external system when it accepts one.
 */
export async function performExternalEffect<R extends EffectResult>(
  input: EffectInput<R> & {
    perform: (meta: { idempotencyKey: string }) => Promise<R>;
    resolveByKey?: (meta: { idempotencyKey: string }) => Promise<R | null>;
  },
): Promise<LedgeredResult<R>> {
  const idempotencyKey = idempotencyKeyFor(input);
  const fingerprint = fingerprintFor({ taskId: input.taskId, tool: input.tool, args: input.args });
  const phase1 = await input.prisma.$transaction(async (tx) => {
    await lockFingerprint(tx, input.taskId, fingerprint);
    const decision = await decide<R>(tx, input, idempotencyKey, fingerprint, true);
    if (decision.kind !== "new") return decision;
    await tx.sideEffect.create({
      data: intentRow(input, idempotencyKey, fingerprint),
    });
    return decision;
  }, TX_OPTIONS);
  if (phase1.kind === "answer") return { result: phase1.result, outcome: phase1.outcome, idempotencyKey, fingerprint };

  let result: R | null = null;
  if (phase1.kind === "intent-without-result") {
    if (!input.resolveByKey) throw new UnresolvedEffectError(idempotencyKey, input.tool);
    result = await input.resolveByKey({ idempotencyKey });
  }
  const performed = result === null;
  if (result === null) {
    try {
      result = await input.perform({ idempotencyKey });
    } catch (error) {
      if (error instanceof EffectNotPerformedError) await input.prisma.sideEffect.deleteMany({ where: { idempotencyKey, status: "intent" } });
      throw error;
    }
    crashPoint("tool:external-after-call");
  }
  await input.prisma.sideEffect.updateMany({
    where: { idempotencyKey, status: "intent" },
    data: { status: "committed", result: sideEffectResultJson.encode(result), committedAt: new Date() },
  });
  if (performed) crashPoint("tool:after-side-effect");
  return { result, outcome: performed ? "performed" : "replayed", idempotencyKey, fingerprint };
}
