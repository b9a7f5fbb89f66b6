import { evalCel } from "../cel.ts";
import type { FunctionConfig } from "../registry.ts";
import { eventIds } from "../util.ts";
import { DEDUPE_WINDOW_MS, inTx, type EngineContext, type ExecutorEventPayload, type Json, type Tx } from "./context.ts";
import { cancelRun, resolveAsyncStep, startRun } from "./runs.ts";
import { PAUSES_FOR_EVENT } from "./sql.ts";

/** Event ingest: store, dedupe, then cancel pauses, wait pauses and triggers (§7.1 item 2). */

type PauseRow = { id: string; runId: string; kind: string; hashedId: string | null; expression: string | null; runEvent: unknown };
type FunctionRow = { id: string; config: unknown; retries: number };

/**
 * Lookups shared by the events of one `POST /e/{key}` (one transaction): the functions and the
 * pauses for an event name. Pauses are looked up again once a run with cancelOn pauses started in
 * the batch; consumed or ended ones are skipped by the writes themselves (DELETE … RETURNING, the
 * run's status check).
 */
interface BatchCache {
  functions: Map<string, FunctionRow[]>;
  pauses: Map<string, PauseRow[]>;
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
 * Ingests events from `POST /e/{key}` (or internal ones). Assigns ULIDs (derived from
 * `x-inngest-event-id-seed` when given, so a retried send gets the same ids and is not processed
 * twice), stores each event, and in one transaction per call: matches cancel pauses, then wait
 * pauses, then starts runs of functions triggered by it (CEL `expression`, `idempotency`). An
 * event whose user-supplied `id` was seen within 24 h is stored but triggers nothing (§2.10).
 *
 * The event as stored and delivered is shaped as Inngest shapes it (Go `pkg/event/event.go`,
 * `NewOSSTrackedEvent`): `id` is the sender's `id` when given, else the ULID; `ts` the sender's
 * (ms) when a positive number, else now; `user` the sender's object, else `{}`; `data` `{}` when
 * missing. Returns the ULIDs (the internal ids, as `{ids}` reports them) in input order.
 */
export async function ingest(ctx: EngineContext, raw: IncomingEvent[], seed?: string): Promise<string[]> {
  const ids = eventIds(seed, raw.length);
  const cache: BatchCache = { functions: new Map(), pauses: new Map() };
  await inTx(ctx, async (tx) => {
    for (const [i, r] of raw.entries()) {
      const userId = typeof r.id === "string" && r.id ? r.id : undefined;
      const event: ExecutorEventPayload = {
        name: r.name,
        data: r.data && typeof r.data === "object" ? (r.data as Record<string, unknown>) : {},
        id: userId ?? ids[i]!,
        ts: typeof r.ts === "number" && Number.isFinite(r.ts) && r.ts > 0 ? Math.trunc(r.ts) : Date.now(),
        user: r.user && typeof r.user === "object" && !Array.isArray(r.user) ? r.user : {},
        ...(typeof r.v === "string" ? { v: r.v } : {}),
      };
      await storeAndProcess(ctx, tx, event, userId, ids[i], cache);
    }
  });
  ctx.wake();
  return ids;
}

/**
 * Stores `event` under `internalId` (once per id: a retried seeded send is a no-op) and processes
 * it unless its user id was seen within 24 h.
 */
export async function storeAndProcess(
  ctx: EngineContext,
  tx: Tx,
  event: ExecutorEventPayload,
  userId?: string,
  internalId = event.id,
  cache?: BatchCache,
): Promise<void> {
  if (userId) {
    // Serialise concurrent sends of the same user id so the dedupe check is race-free.
    await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(hashtext($1))`, `event-id:${userId}`);
  }
  const duplicate = userId
    ? await tx.executorEvent.findFirst({ where: { userId, receivedAt: { gt: new Date(Date.now() - DEDUPE_WINDOW_MS) } }, select: { id: true } })
    : null;
  const inserted = await tx.executorEvent.createMany({
    data: [{ id: internalId, name: event.name, data: event.data as Json, raw: event as unknown as Json, ts: BigInt(Math.trunc(event.ts)), userId }],
    skipDuplicates: true,
  });
  if (inserted.count === 0) return; // a retried send with the same seed: already processed
  if (duplicate) {
    ctx.o.logger.info(`event ${event.name} ${internalId}: user id "${userId}" already seen within 24 h; not triggering`, { eventId: internalId });
    return;
  }
  await processEvent(ctx, tx, event, cache);
}

/** (a) cancel pauses, (b) wait pauses, (c) triggers — INNGEST-PROTOCOL.md §7.1 item 2. */
async function processEvent(ctx: EngineContext, tx: Tx, event: ExecutorEventPayload, cache?: BatchCache): Promise<void> {
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
    const d = event.data as { result?: unknown; error?: unknown };
    const value = d.error !== undefined ? { error: d.error } : { data: d.result ?? null };
    await resolveAsyncStep(tx, p.runId, p.hashedId!, value, "invoke");
  }
  for (const p of pauses.filter((x) => x.kind === "wait")) {
    if (cancelled.has(p.runId) || !pauseMatches(ctx, p, event)) continue;
    // Consume atomically: whoever deletes the pause (event or timeout) wins.
    const consumed = await tx.$queryRawUnsafe<{ id: string }[]>(`DELETE FROM executor_pause WHERE id = $1 RETURNING id`, p.id);
    if (!consumed.length) continue;
    await tx.executorQueueItem.deleteMany({ where: { jobId: `${p.runId}-${p.hashedId}-timeout` } });
    await resolveAsyncStep(tx, p.runId, p.hashedId!, { data: event } as unknown as Json, `waitForEvent ${event.name}`);
  }
  let fns = cache?.functions.get(event.name);
  if (!fns) {
    fns = await tx.executorFunction.findMany({ where: { events: { has: event.name } }, select: { id: true, config: true, retries: true } });
    cache?.functions.set(event.name, fns);
  }
  for (const fn of fns) {
    const config = fn.config as FunctionConfig;
    const triggered = (config.triggers ?? []).some((t) => {
      if (t.event !== event.name) return false;
      if (!t.expression) return true;
      const res = evalCel(t.expression, { event });
      if (res.error) ctx.o.logger.warn(`trigger expression of ${fn.id} on ${event.name}: ${res.error} → no match`, { fnId: fn.id });
      return res.match;
    });
    if (!triggered) continue;
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
