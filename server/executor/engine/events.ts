import { evalCel } from "../cel.ts";
import type { FunctionConfig } from "../registry.ts";
import { eventIds } from "../util.ts";
import { DEDUPE_WINDOW_MS, inTx, type EngineContext, type ExecutorEventPayload, type Tx } from "./context.ts";
import { cancelRun, insertRuns, planRun, resolveAsyncStep, startRun, type RunPlan } from "./runs.ts";
import { PAUSES_FOR_EVENT } from "./sql.ts";
import { isJsonObject } from "../../db/json-codec.ts";
import { executorEventDataJson, executorEventRawJson, executorFunctionConfigJson, executorStepValueJson } from "../json-columns.ts";

/** Event ingest: store, dedupe, then cancel pauses, wait pauses and triggers (§7.1 item 2). */

type PauseRow = { id: string; runId: string; kind: string; hashedId: string | null; expression: string | null; runEvent: unknown };
/** A function an event may trigger, its config decoded once when the rows are read. */
type FunctionRow = { id: string; config: FunctionConfig; retries: number };

/**
 * What the events of one `POST /e/{key}` share (one transaction): the functions and the pauses for
 * an event name, looked up once; and the runs they start, inserted together ({@link flushRuns}).
 * Consumed or ended pauses are skipped by the writes themselves (DELETE … RETURNING, the run's
 * status check). Runs planned but not yet inserted are flushed (and the pause lookups dropped)
 * before an event that one of their cancelOn pauses listens to, so a later event of the same batch
 * still cancels a run an earlier one started.
 */
interface BatchCache {
  functions: Map<string, FunctionRow[]>;
  pauses: Map<string, PauseRow[]>;
  /** Runs started by the batch, not inserted yet, and the event names their cancelOn pauses wait for. */
  planned: RunPlan[];
  cancelEvents: Set<string>;
}

async function flushRuns(ctx: EngineContext, tx: Tx, cache: BatchCache): Promise<void> {
  if (!cache.planned.length) return;
  const plans = cache.planned;
  cache.planned = [];
  await insertRuns(ctx, tx, plans);
  if (cache.cancelEvents.size) cache.pauses.clear();
  cache.cancelEvents.clear();
}

/** An event as a sender may give it to `POST /e/{key}`. */
export interface IncomingEvent {
  name: string;
  data?: unknown;
  id?: unknown;
  ts?: unknown;
  user?: unknown;
  v?: unknown;
}

/**
 * Ingests events from `POST /e/{key}`. Assigns ULIDs (derived from `x-inngest-event-id-seed` when
 * given, so a retried send gets the same ids and is not processed twice) and, in one transaction
 * per call, stores them, then for each event in order matches cancel pauses, then wait pauses, then
 * starts runs of functions triggered by it (CEL `expression`, `idempotency`). An event whose
 * user-supplied `id` was seen within 24 h (or earlier in the batch) is stored but triggers nothing (§2.10).
 *
 * A batch costs a fixed number of statements, not one per event: one advisory-lock statement and
 * one lookup for all user ids (dedupe), one multi-row insert of the events, one lookup of functions
 * and of pauses per event name, and three multi-row inserts for the runs it starts (runs with an
 * `idempotency` key are inserted one by one, under their key's lock).
 *
 * The event as stored and delivered is shaped as Inngest shapes it (Go `pkg/event/event.go`,
 * `NewOSSTrackedEvent`): `id` is the sender's `id` when given, else the ULID; `ts` the sender's
 * (ms) when a positive number, else now; `user` the sender's object, else `{}`; `data` `{}` when
 * missing. Returns the ULIDs (the internal ids, as `{ids}` reports them) in input order.
 */
export async function ingest(ctx: EngineContext, raw: IncomingEvent[], seed?: string): Promise<string[]> {
  const ids = eventIds(seed, raw.length);
  const cache: BatchCache = { functions: new Map(), pauses: new Map(), planned: [], cancelEvents: new Set() };
  const now = Date.now();
  const batch = raw.map((r, i) => {
    const userId = typeof r.id === "string" && r.id ? r.id : undefined;
    const event: ExecutorEventPayload = {
      name: r.name,
      data: isJsonObject(r.data) ? r.data : {},
      id: userId ?? ids[i]!,
      ts: typeof r.ts === "number" && Number.isFinite(r.ts) && r.ts > 0 ? Math.trunc(r.ts) : now,
      user: r.user && typeof r.user === "object" && !Array.isArray(r.user) ? r.user : {},
      ...(typeof r.v === "string" ? { v: r.v } : {}),
    };
    return { event, userId, internalId: ids[i]! };
  });
  await inTx(ctx, async (tx) => {
    // Dedupe on user ids: serialise concurrent sends of the same ids (locks taken in one order, so
    // two batches cannot deadlock), then one lookup of those seen within 24 h.
    const userIds = [...new Set(batch.flatMap((b) => (b.userId ? [`event-id:${b.userId}`] : [])))].sort();
    const seen = new Set<string>();
    if (userIds.length) {
      await tx.$queryRawUnsafe(`SELECT pg_advisory_xact_lock(hashtext(k))::text FROM (SELECT k FROM unnest($1::text[]) AS k ORDER BY k) AS s`, userIds);
      const earlier = await tx.executorEvent.findMany({
        where: { userId: { in: userIds.map((u) => u.slice("event-id:".length)) }, receivedAt: { gt: new Date(Date.now() - DEDUPE_WINDOW_MS) } },
        select: { userId: true },
        distinct: ["userId"],
      });
      for (const e of earlier) if (e.userId) seen.add(e.userId);
    }
    const inserted = await tx.executorEvent.createManyAndReturn({
      data: batch.map(({ event, userId, internalId }) => ({
        id: internalId,
        name: event.name,
        data: executorEventDataJson.encode(event.data),
        raw: executorEventRawJson.encode(event),
        ts: BigInt(Math.trunc(event.ts)),
        userId,
      })),
      skipDuplicates: true,
      select: { id: true },
    });
    const fresh = new Set(inserted.map((e) => e.id));
    for (const { event, userId, internalId } of batch) {
      if (!fresh.has(internalId)) continue; // a retried send with the same seed: already processed
      if (userId) {
        if (seen.has(userId)) {
          ctx.o.logger.info(`event ${event.name} ${internalId}: user id "${userId}" already seen within 24 h; not triggering`, { eventId: internalId });
          continue;
        }
        seen.add(userId);
      }
      await processEvent(ctx, tx, event, cache);
    }
    await flushRuns(ctx, tx, cache);
  });
  ctx.wake();
  return ids;
}

/**
 * Stores one event under `internalId` (once per id) and processes it unless its user id was seen
 * within 24 h: the path of the executor's internal events (`inngest/function.*`, emitted one at a
 * time inside the transaction that ends a run).
 */
export async function storeAndProcess(ctx: EngineContext, tx: Tx, event: ExecutorEventPayload, userId?: string, internalId = event.id): Promise<void> {
  if (userId) {
    // Serialise concurrent sends of the same user id so the dedupe check is race-free.
    await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(hashtext($1))`, `event-id:${userId}`);
  }
  const duplicate = userId
    ? await tx.executorEvent.findFirst({ where: { userId, receivedAt: { gt: new Date(Date.now() - DEDUPE_WINDOW_MS) } }, select: { id: true } })
    : null;
  const inserted = await tx.executorEvent.createMany({
    data: [
      {
        id: internalId,
        name: event.name,
        data: executorEventDataJson.encode(event.data),
        raw: executorEventRawJson.encode(event),
        ts: BigInt(Math.trunc(event.ts)),
        userId,
      },
    ],
    skipDuplicates: true,
  });
  if (inserted.count === 0) return; // a retried send with the same seed: already processed
  if (duplicate) {
    ctx.o.logger.info(`event ${event.name} ${internalId}: user id "${userId}" already seen within 24 h; not triggering`, { eventId: internalId });
    return;
  }
  await processEvent(ctx, tx, event);
}

/**
 * (a) cancel pauses, (b) wait pauses, (c) triggers — docs/INNGEST-PROTOCOL.md §7.1 item 2. With a batch
 * `cache`, lookups are shared and runs without an idempotency key are planned for {@link flushRuns}.
 */
async function processEvent(ctx: EngineContext, tx: Tx, event: ExecutorEventPayload, cache?: BatchCache): Promise<void> {
  if (cache?.cancelEvents.has(event.name)) await flushRuns(ctx, tx, cache);
  let pauses = cache?.pauses.get(event.name);
  if (!pauses) {
    pauses = await tx.$queryRawUnsafe<PauseRow[]>(PAUSES_FOR_EVENT, event.name);
    cache?.pauses.set(event.name, pauses);
  }
  const cancelled = new Set<string>();
  for (const p of pauses.filter((x) => x.kind === "cancel")) {
    if (cancelled.has(p.runId) || !pauseMatches(ctx, p, event)) continue;
    if (await cancelRun(ctx, tx, p.runId, `cancelOn event ${event.name} ${event.id}`)) cancelled.add(p.runId);
  }
  for (const p of pauses.filter((x) => x.kind === "invoke")) {
    // step.invoke: the invoked run finished (completed, failed or cancelled).
    if (cancelled.has(p.runId) || !pauseMatches(ctx, p, event)) continue;
    const consumed = await tx.$queryRawUnsafe<{ id: string }[]>(`DELETE FROM executor_pause WHERE id = $1 RETURNING id`, p.id);
    if (!consumed.length) continue;
    await tx.executorQueueItem.deleteMany({ where: { jobId: `${p.runId}-${p.hashedId}-timeout` } });
    // inngest/function.finished: `data.result` when the invoked run completed, `data.error` when it did not.
    const { result, error } = event.data;
    const value = error !== undefined ? { error } : { data: result ?? null };
    await resolveAsyncStep(tx, p.runId, p.hashedId!, value, "invoke");
  }
  for (const p of pauses.filter((x) => x.kind === "wait")) {
    if (cancelled.has(p.runId) || !pauseMatches(ctx, p, event)) continue;
    // Consume atomically: whoever deletes the pause (event or timeout) wins.
    const consumed = await tx.$queryRawUnsafe<{ id: string }[]>(`DELETE FROM executor_pause WHERE id = $1 RETURNING id`, p.id);
    if (!consumed.length) continue;
    await tx.executorQueueItem.deleteMany({ where: { jobId: `${p.runId}-${p.hashedId}-timeout` } });
    await resolveAsyncStep(tx, p.runId, p.hashedId!, executorStepValueJson.encode({ data: event }), `waitForEvent ${event.name}`);
  }
  let fns = cache?.functions.get(event.name);
  if (!fns) {
    const rows = await tx.executorFunction.findMany({ where: { events: { has: event.name } }, select: { id: true, config: true, retries: true } });
    fns = rows.map((f) => ({ ...f, config: executorFunctionConfigJson.decode(f.config, f.id) }));
    cache?.functions.set(event.name, fns);
  }
  for (const fn of fns) {
    const config = fn.config;
    const triggered = (config.triggers ?? []).some((t) => {
      if (t.event !== event.name) return false;
      if (!t.expression) return true;
      const res = evalCel(t.expression, { event });
      if (res.error) ctx.o.logger.warn(`trigger expression of ${fn.id} on ${event.name}: ${res.error} → no match`, { fnId: fn.id });
      return res.match;
    });
    if (!triggered) continue;
    if (cache && !config.idempotency) {
      cache.planned.push(planRun(fn.id, config, fn.retries, event));
      for (const c of config.cancel ?? []) cache.cancelEvents.add(c.event);
      continue;
    }
    await startRun(ctx, tx, fn.id, config, fn.retries, event);
    // Its cancelOn pauses may match later events of the batch.
    if (config.cancel?.length) cache?.pauses.clear();
  }
}

function pauseMatches(
  ctx: EngineContext,
  p: { id: string; runId: string; expression: string | null; runEvent: unknown },
  event: ExecutorEventPayload,
): boolean {
  if (!p.expression) return true;
  const res = evalCel(p.expression, { event: p.runEvent, async: event });
  if (res.error) ctx.o.logger.warn(`pause ${p.id}: "${p.expression}": ${res.error} → no match`, { runId: p.runId });
  return res.match;
}
