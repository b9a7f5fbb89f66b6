import { Prisma } from "../../db/client.ts";
import { evalCelValue } from "../cel.ts";
import type { FunctionConfig } from "../registry.ts";
import { MAX_SLEEP_MS, newUlid, parseDurationMs } from "../util.ts";
import {
  DEDUPE_WINDOW_MS,
  DEFAULT_CANCEL_MS,
  MAX_STEP_OUTPUT_BYTES,
  MAX_STEPS_PER_RUN,
  TERMINAL,
  TX,
  errorText,
  normalizeError,
  retryOnConflict,
  type EngineContext,
  type ExecutorEventPayload,
  type ExecutorRunStatus,
  type Json,
  type Op,
  type QueueItem,
  type RunRow,
  type Tx,
} from "./context.ts";
import { LOCK_RUN } from "./sql.ts";
import { executorQueuePayloadJson, executorRunErrorJson, executorRunEventJson, executorRunEventsJson } from "../json-columns.ts";

/**
 * Run lifecycle: start, lock, memoize a step, resolve an asynchronous step, end (complete, fail,
 * cancel) and the queue items that drive a run. Every function works inside the caller's
 * transaction `tx`.
 */

/**
 * Starts a run of `functionId` for `event` unless its idempotency key already started one in the
 * last 24 h: inserts the run, its cancelOn pauses and the first discovery item. Returns the run id
 * or undefined when skipped.
 */
export async function startRun(
  ctx: EngineContext,
  tx: Tx,
  functionId: string,
  config: FunctionConfig,
  retries: number,
  event: ExecutorEventPayload,
  { skipIdempotency = false }: { skipIdempotency?: boolean } = {},
): Promise<string | undefined> {
  let idempotencyKey: string | undefined;
  if (config.idempotency && !skipIdempotency) {
    const value = evalCelValue(config.idempotency, { event });
    if (value !== undefined && value !== null) {
      idempotencyKey = `${functionId}:${typeof value === "string" ? value : JSON.stringify(value)}`;
      await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(hashtext($1))`, `idem:${idempotencyKey}`);
      const existing = await tx.executorRun.findFirst({
        where: { idempotencyKey, createdAt: { gt: new Date(Date.now() - DEDUPE_WINDOW_MS) } },
        select: { id: true },
      });
      if (existing) {
        ctx.o.logger.info(`run of ${functionId} skipped: idempotency key already used by run ${existing.id}`, { fnId: functionId, eventId: event.id });
        return undefined;
      }
    }
  }
  const plan = planRun(functionId, config, retries, event, idempotencyKey);
  await insertRuns(ctx, tx, [plan]);
  return plan.run.id;
}

/** The rows that start one run: the run, its cancelOn pauses and its first discovery item. */
export interface RunPlan {
  run: Prisma.ExecutorRunCreateManyInput & { id: string; functionId: string };
  pauses: Prisma.ExecutorPauseCreateManyInput[];
  item: Prisma.ExecutorQueueItemCreateManyInput;
  eventName: string;
  eventId: string;
}

/**
 * The rows of a new run of `functionId` for `event` (a fresh ULID; cancelOn pauses expiring at
 * their `timeout`, default {@link DEFAULT_CANCEL_MS}, at most 366 days). Writes nothing: see {@link insertRuns}.
 */
export function planRun(functionId: string, config: FunctionConfig, retries: number, event: ExecutorEventPayload, idempotencyKey?: string): RunPlan {
  const runId = newUlid();
  const now = Date.now();
  return {
    run: {
      id: runId,
      functionId,
      event: executorRunEventJson.encode(event),
      events: executorRunEventsJson.encode([event]),
      maxAttempts: retries + 1,
      idempotencyKey,
    },
    pauses: (config.cancel ?? []).map((c, i) => ({
      id: `${runId}-cancel-${i}`,
      runId,
      kind: "cancel",
      event: c.event,
      expression: c.if ?? null,
      expiresAt: new Date(now + Math.min(parseDurationMs(c.timeout) ?? DEFAULT_CANCEL_MS, MAX_SLEEP_MS)),
    })),
    item: { jobId: `${runId}-start`, runId, kind: "discover", stepId: "step", availableAt: new Date(now), payload: {} },
    eventName: event.name,
    eventId: event.id,
  };
}

/**
 * Inserts planned runs in three multi-row statements whatever their number (runs, cancelOn pauses,
 * first queue items; an item whose job id exists is skipped) and logs one line per run.
 */
export async function insertRuns(ctx: EngineContext, tx: Tx, plans: RunPlan[]): Promise<void> {
  if (!plans.length) return;
  await tx.executorRun.createMany({ data: plans.map((p) => p.run) });
  const pauses = plans.flatMap((p) => p.pauses);
  if (pauses.length) await tx.executorPause.createMany({ data: pauses });
  await tx.executorQueueItem.createMany({ data: plans.map((p) => p.item), skipDuplicates: true });
  for (const p of plans) {
    ctx.o.logger.info(`run ${p.run.id} started for ${p.run.functionId} (event ${p.eventName} ${p.eventId})`, {
      runId: p.run.id,
      fnId: p.run.functionId,
      eventId: p.eventId,
    });
  }
}

/** Inserts a queue item unless one with the same `jobId` exists (idempotent job ids, §7.1 item 4). */
export async function enqueue(
  tx: Tx,
  item: { jobId: string; runId: string; kind: QueueItem["kind"]; stepId?: string; availableAt?: Date; payload?: Record<string, unknown> },
): Promise<void> {
  await tx.executorQueueItem.createMany({
    data: [
      {
        jobId: item.jobId,
        runId: item.runId,
        kind: item.kind,
        stepId: item.stepId ?? "step",
        availableAt: item.availableAt ?? new Date(),
        payload: executorQueuePayloadJson.encode(item.payload ?? {}),
      },
    ],
    skipDuplicates: true,
  });
}

/** Locks the run row (`FOR UPDATE`) and returns it, or undefined when it does not exist. */
export async function lockRun(tx: Tx, runId: string): Promise<RunRow | undefined> {
  const rows = await tx.$queryRawUnsafe<RunRow[]>(LOCK_RUN, runId);
  const row = rows[0];
  if (row) row.pending ??= [];
  return row;
}

async function endRun(
  tx: Tx,
  runId: string,
  status: Exclude<ExecutorRunStatus, "queued" | "running">,
  fields: { output?: unknown; error?: unknown },
): Promise<RunRow | undefined> {
  const run = await lockRun(tx, runId);
  if (!run || TERMINAL.has(run.status)) return undefined;
  await tx.executorRun.update({
    where: { id: runId },
    data: {
      status,
      endedAt: new Date(),
      pending: [],
      ...(fields.output !== undefined ? { output: fields.output ?? Prisma.JsonNull } : {}),
      ...(fields.error !== undefined ? { error: executorRunErrorJson.encode(fields.error) } : {}),
    },
  });
  await tx.executorQueueItem.deleteMany({ where: { runId } });
  await tx.executorPause.deleteMany({ where: { runId } });
  return run;
}

function emitInternal(ctx: EngineContext, tx: Tx, name: string, data: Record<string, unknown>, id = newUlid()): Promise<void> {
  return ctx.emit(tx, { name, data, id, ts: Date.now(), user: {} });
}

/** Marks the run completed with `output` and emits `inngest/function.finished` (Go `finalize.go`). */
export async function completeRun(ctx: EngineContext, tx: Tx, runId: string, output: unknown): Promise<void> {
  const run = await endRun(tx, runId, "completed", { output: output === undefined ? null : output });
  if (!run) return;
  ctx.o.metrics.runsEnded.inc({ status: "completed" });
  await emitInternal(ctx, tx, "inngest/function.finished", { function_id: run.functionId, run_id: runId, result: output ?? null, event: run.event });
  ctx.o.logger.info(`run ${runId} completed`, { runId, fnId: run.functionId });
}

/**
 * Marks the run failed and emits `inngest/function.failed` (event id = run id, data
 * `{function_id, run_id, error, event, events}`) and `inngest/function.finished`
 * (docs/INNGEST-PROTOCOL.md §2.8 onFailure; Go `finalize.go:555-620`).
 */
export async function failRun(ctx: EngineContext, tx: Tx, runId: string, error: unknown): Promise<void> {
  const err = normalizeError(error);
  const run = await endRun(tx, runId, "failed", { error: err });
  if (!run) return;
  ctx.o.metrics.runsEnded.inc({ status: "failed" });
  await emitInternal(
    ctx,
    tx,
    "inngest/function.failed",
    { function_id: run.functionId, run_id: runId, error: err, event: run.event, events: run.events },
    runId,
  );
  await emitInternal(ctx, tx, "inngest/function.finished", { function_id: run.functionId, run_id: runId, error: err, event: run.event });
  ctx.o.logger.warn(`run ${runId} failed: ${JSON.stringify(err.message ?? "")}`, { runId, fnId: run.functionId, error: err.name });
}

/**
 * Cancels a run (cancelOn match or the API): status `cancelled`, its queue items and pauses
 * deleted, `inngest/function.cancelled` and `finished` emitted. An HTTP request already in flight
 * is not interrupted; its result is discarded (§2.11). Returns false if the run was already over.
 */
export async function cancelRun(ctx: EngineContext, tx: Tx, runId: string, reason: string): Promise<boolean> {
  const run = await endRun(tx, runId, "cancelled", { error: { name: "Cancelled", message: reason } });
  if (!run) return false;
  ctx.o.metrics.runsEnded.inc({ status: "cancelled" });
  await emitInternal(ctx, tx, "inngest/function.cancelled", { function_id: run.functionId, run_id: runId, event: run.event, reason });
  await emitInternal(ctx, tx, "inngest/function.finished", {
    function_id: run.functionId,
    run_id: runId,
    error: { name: "Cancelled", message: reason },
    event: run.event,
  });
  ctx.o.logger.info(`run ${runId} cancelled (${reason})`, { runId, fnId: run.functionId });
  return true;
}

/** Cancels a run through the API. Returns false when the run does not exist or already ended. */
export async function cancelRunById(ctx: EngineContext, runId: string, reason = "cancelled through the API"): Promise<boolean> {
  // The cancel locks the run, then its queue items; a response being applied at the same moment
  // locks its item, then the run. PostgreSQL resolves that deadlock by aborting one transaction:
  // when it is this one, try again (the run is then usually still live, or already ended → false).
  const ok = await retryOnConflict(
    () => ctx.o.db.$transaction((tx) => cancelRun(ctx, tx, runId, reason), TX),
    5,
    (error, attempt) => ctx.o.logger.warn(`cancel of run ${runId}: ${errorText(error).slice(0, 120)}; retrying (attempt ${attempt})`, { runId }),
  );
  ctx.wake();
  return ok;
}

/** Saves a memoized step unless it exists (never overwrites). Returns true when inserted. */
export async function saveStep(tx: Tx, run: RunRow, hashedId: string, value: Json | null, name: string): Promise<boolean> {
  const res = await tx.executorStepResult.createMany({
    data: [{ runId: run.id, hashedId, seq: run.nextSeq, value: value === null ? Prisma.DbNull : value, name }],
    skipDuplicates: true,
  });
  if (res.count) run.nextSeq += 1;
  return res.count > 0;
}

/**
 * Housekeeping limits (§7.1 item 14): a run may memoize at most {@link MAX_STEPS_PER_RUN} steps and
 * one step output may be at most {@link MAX_STEP_OUTPUT_BYTES} of JSON. Returns the error to fail
 * the run with, or undefined.
 */
export function limitError(run: RunRow, op: Op): Record<string, unknown> | undefined {
  if (run.nextSeq >= MAX_STEPS_PER_RUN) {
    return { name: "StepLimitExceeded", message: `run reached ${MAX_STEPS_PER_RUN} steps; cut long runs into segments (continue-as-new)` };
  }
  const size = Buffer.byteLength(JSON.stringify(op.data ?? op.error ?? null) ?? "");
  if (size > MAX_STEP_OUTPUT_BYTES) {
    return {
      name: "OutputTooLarge",
      message: `step ${op.displayName ?? op.name ?? op.id} output is ${size} bytes (max ${MAX_STEP_OUTPUT_BYTES}); store large data elsewhere and return a reference`,
    };
  }
  return undefined;
}

/** Writes back `nextSeq`, `pending`, `forceStepPlan` (and the request version) of a locked run. */
export async function saveRunState(tx: Tx, run: RunRow, extra: { requestVersion?: number } = {}): Promise<void> {
  await tx.executorRun.update({
    where: { id: run.id },
    data: { nextSeq: run.nextSeq, pending: run.pending, forceStepPlan: run.forceStepPlan, ...extra },
  });
}

/**
 * Completes an asynchronous step (sleep wake, wait match or timeout): saves `value`, removes the
 * step from the pending set and enqueues discovery once nothing is pending (fan-in, §2.7).
 */
export async function resolveAsyncStep(tx: Tx, runId: string, hashedId: string, value: Json | null, name: string): Promise<void> {
  const run = await lockRun(tx, runId);
  if (!run || TERMINAL.has(run.status)) return;
  await saveStep(tx, run, hashedId, value, name);
  run.pending = run.pending.filter((p) => p !== hashedId);
  if (run.pending.length === 0) {
    run.forceStepPlan = false;
    await enqueue(tx, { jobId: `${runId}-${hashedId}-discover`, runId, kind: "discover" });
  }
  await saveRunState(tx, run);
}
