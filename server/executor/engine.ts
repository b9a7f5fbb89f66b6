import { randomBytes } from "node:crypto";
import { Prisma, type PrismaClient } from "../db/client.ts";
import { crashPoint } from "../fault-injection.ts";
import { evalCel, evalCelValue } from "./cel.ts";
import { normalizeConcurrency, type FunctionConfig } from "./registry.ts";
import {
  backoffDelayMs,
  canonicalJson,
  eventIds,
  newUlid,
  parseDurationMs,
  parseRetryAfter,
  signBody,
  sleepUntil,
  stableUuid,
  MAX_SLEEP_MS,
} from "./util.ts";

type Tx = Prisma.TransactionClient;
type Json = Prisma.InputJsonValue;

/** An event as stored and sent to functions: `{name, data, id, ts, user?, v?}` (§2.10). */
export interface ExecutorEventPayload {
  name: string;
  data: Record<string, unknown>;
  id: string;
  ts: number;
  user?: unknown;
  v?: string;
}

/** A leased queue item (row of `executor_queue_item`). */
interface QueueItem {
  id: bigint;
  jobId: string;
  runId: string;
  kind: "discover" | "step" | "sleepWake" | "pauseTimeout";
  stepId: string;
  attempt: number;
  payload: Record<string, unknown>;
  owner: string;
}

interface RunRow {
  id: string;
  functionId: string;
  status: string;
  event: ExecutorEventPayload;
  events: ExecutorEventPayload[];
  requestVersion: number;
  forceStepPlan: boolean;
  pending: string[];
  maxAttempts: number;
  nextSeq: number;
}

/** An opcode as returned by the SDK in a 206 (INNGEST-PROTOCOL.md §2.5). */
interface Op {
  id: string;
  op: string;
  name?: string;
  displayName?: string;
  opts?: Record<string, unknown> | null;
  data?: unknown;
  error?: unknown;
  userland?: { id?: string };
}

const TERMINAL = new Set(["completed", "failed", "cancelled"]);
/** Inngest's idempotency window (Go `consts.FunctionIdempotencyPeriod`) and event-id dedupe window. */
const DEDUPE_WINDOW_MS = 24 * 3_600_000;
/** Default cancelOn expiry when no timeout is given (~1 year, Go `consts.CancelTimeout`). */
const DEFAULT_CANCEL_MS = 365 * 86_400_000;
/** Default waitForEvent timeout when none is given. */
const DEFAULT_WAIT_MS = 7 * 86_400_000;
/** Interactive transaction limits (Prisma's default 5 s is too tight under load). */
const TX = { timeout: 60_000, maxWait: 30_000 };
/** Maximum steps per run (Go `DefaultMaxStepLimit`, INNGEST-PROTOCOL.md §7.1 item 14). Cut longer runs into segments. */
export const MAX_STEPS_PER_RUN = 1000;
/** Maximum serialised size of one step output (4 MB, Go `consts.go:23-48`). */
export const MAX_STEP_OUTPUT_BYTES = 4 * 1024 * 1024;
/** SQL expression for "now" in UTC, matching Prisma's TIMESTAMP(3) columns (stored as UTC). */
const NOW = `(now() AT TIME ZONE 'UTC')`;

/** Options of {@link Executor}. */
export interface ExecutorEngineOptions {
  db: PrismaClient;
  signingKey: string;
  /** Retry backoff table in ms (default Inngest's, §2.8). */
  backoffMs: readonly number[];
  /** Add 0–30 s jitter to backoff (on for the default table, off when overridden). */
  jitter: boolean;
  /** Send `ctx.fn_id`/`ctx.qi_id` so the SDK uses async checkpointing (§2.13). Default true. */
  checkpointing: boolean;
  /** Lease length in ms; renewed by heartbeat every lease/3 while a request is in flight. */
  leaseMs: number;
  /** Maximum queue items processed at once by this process. */
  workers: number;
  /** Queue poll interval when idle, ms. */
  pollMs: number;
  /** Stable name of this executor instance; at start-up, leases held by a previous process of the same name are released. */
  instance: string;
  /** Retention of ended runs, events and the ops log, ms (housekeeping; at least 24 h). */
  retentionMs: number;
  /** On stop, how long in-flight requests may finish before they are aborted and released, ms. */
  stopGraceMs: number;
  /** Request timeout for one call to the app, ms (Go allows 2 h, `consts.MaxFunctionTimeout`). */
  requestTimeoutMs: number;
  log: (line: string) => void;
}

/**
 * The executor engine: event ingestion, run state, the durable leased queue and the HTTP driver
 * that speaks the Inngest protocol to an app's `serve()` endpoint. All state lives in PostgreSQL
 * (`executor_*` tables); the process holds only leases, so a `kill -9` loses nothing: leases expire
 * after `leaseMs` and the items are picked up again (INNGEST-PROTOCOL.md §7.1 items 2–11).
 */
export class Executor {
  private readonly o: ExecutorEngineOptions;
  private running = false;
  private inFlight = 0;
  private readonly inflightByKey = new Map<string, number>();
  private wakeResolve: (() => void) | undefined;
  private wakePending = false;
  private loopDone: Promise<void> | undefined;
  private batch = 0;
  private readonly active = new Set<Promise<void>>();
  private readonly controllers = new Set<AbortController>();
  /** The executor's own origin, used for nothing but logs (set by the HTTP layer). */
  url = "";

  constructor(options: ExecutorEngineOptions) {
    this.o = options;
  }

  private tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.o.db.$transaction(fn, TX);
  }

  /** Releases leases left by a previous process of this instance and starts the queue loop. */
  async start(): Promise<void> {
    const released = await this.o.db.$executeRawUnsafe(
      `UPDATE executor_queue_item SET "leaseUntil" = NULL, owner = NULL WHERE owner LIKE $1`,
      `${this.o.instance}:%`,
    );
    if (released) this.o.log(`released ${released} lease(s) left by a previous process of ${this.o.instance}`);
    this.running = true;
    this.loopDone = this.loop();
  }

  /**
   * Stops leasing, lets in-flight requests finish for up to `stopGraceMs` (their results are applied
   * as usual), then aborts the rest (their items are released unchanged, so they run again on the
   * next start with the same attempt) and waits for the workers to finish.
   */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loopDone;
    const all = Promise.allSettled([...this.active]);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise<void>((resolve) => (timer = setTimeout(resolve, this.o.stopGraceMs)))]);
    clearTimeout(timer);
    if (this.controllers.size) this.o.log(`stopping: aborting ${this.controllers.size} request(s) still in flight; their items are released`);
    for (const c of this.controllers) c.abort(new Error("executor stopping"));
    await all;
  }

  /**
   * Housekeeping: deletes what is older than `retentionMs` (default 7 days, well past the 24 h
   * idempotency and event-dedupe windows): the ops log, ended runs with their memoized steps, and
   * events. Queue items and pauses of live runs are never touched. Returns the deleted row counts.
   */
  async housekeep(retentionMs = this.o.retentionMs): Promise<{ ops: number; runs: number; steps: number; events: number }> {
    const cutoff = new Date(Date.now() - Math.max(retentionMs, DEDUPE_WINDOW_MS));
    const db = this.o.db;
    const ops = await db.executorOp.deleteMany({ where: { createdAt: { lt: cutoff } } });
    const old = await db.executorRun.findMany({ where: { status: { in: [...TERMINAL] }, endedAt: { lt: cutoff } }, select: { id: true }, take: 10_000 });
    const ids = old.map((r) => r.id);
    const steps = ids.length ? await db.executorStepResult.deleteMany({ where: { runId: { in: ids } } }) : { count: 0 };
    const runs = ids.length ? await db.executorRun.deleteMany({ where: { id: { in: ids } } }) : { count: 0 };
    const events = await db.executorEvent.deleteMany({ where: { receivedAt: { lt: cutoff } } });
    const result = { ops: ops.count, runs: runs.count, steps: steps.count, events: events.count };
    if (result.ops + result.runs + result.events) this.o.log(`housekeeping: deleted ${JSON.stringify(result)} older than ${cutoff.toISOString()}`);
    return result;
  }

  /** Wakes the queue loop (after a local enqueue). */
  wake(): void {
    this.wakePending = true;
    this.wakeResolve?.();
  }

  // ───────────────────────────── events ─────────────────────────────

  /**
   * Ingests events from `POST /e/{key}` (or internal ones). Assigns ULIDs (derived from
   * `x-inngest-event-id-seed` when given, so a retried send gets the same ids and is not processed
   * twice), stores each event, and in one transaction per call: matches cancel pauses, then wait
   * pauses, then starts runs of functions triggered by it (CEL `expression`, `idempotency`). An
   * event whose user-supplied `id` was seen within 24 h is stored but triggers nothing (§2.10).
   * Returns the ids in input order.
   */
  async ingest(raw: { name: string; data?: unknown; id?: unknown; ts?: unknown; user?: unknown; v?: unknown }[], seed?: string): Promise<string[]> {
    const ids = eventIds(seed, raw.length);
    await this.tx(async (tx) => {
      for (const [i, r] of raw.entries()) {
        const event: ExecutorEventPayload = {
          name: r.name,
          data: r.data && typeof r.data === "object" ? (r.data as Record<string, unknown>) : {},
          id: ids[i]!,
          ts: typeof r.ts === "number" ? r.ts : Date.now(),
          ...(r.user !== undefined ? { user: r.user } : {}),
          ...(typeof r.v === "string" ? { v: r.v } : {}),
        };
        const userId = typeof r.id === "string" && r.id ? r.id : undefined;
        await this.storeAndProcess(tx, event, userId);
      }
    });
    this.wake();
    return ids;
  }

  private async storeAndProcess(tx: Tx, event: ExecutorEventPayload, userId?: string): Promise<void> {
    if (userId) {
      // Serialise concurrent sends of the same user id so the dedupe check is race-free.
      await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(hashtext($1))`, `event-id:${userId}`);
    }
    const duplicate = userId
      ? await tx.executorEvent.findFirst({ where: { userId, receivedAt: { gt: new Date(Date.now() - DEDUPE_WINDOW_MS) } }, select: { id: true } })
      : null;
    const inserted = await tx.executorEvent.createMany({
      data: [{ id: event.id, name: event.name, data: event.data as Json, raw: event as unknown as Json, ts: BigInt(Math.trunc(event.ts)), userId }],
      skipDuplicates: true,
    });
    if (inserted.count === 0) return; // a retried send with the same seed: already processed
    if (duplicate) {
      this.o.log(`event ${event.name} ${event.id}: user id "${userId}" already seen within 24 h; not triggering`);
      return;
    }
    await this.processEvent(tx, event);
  }

  /** (a) cancel pauses, (b) wait pauses, (c) triggers — INNGEST-PROTOCOL.md §7.1 item 2. */
  private async processEvent(tx: Tx, event: ExecutorEventPayload): Promise<void> {
    const pauses = await tx.$queryRawUnsafe<{ id: string; runId: string; kind: string; hashedId: string | null; expression: string | null; runEvent: unknown }[]>(
      `SELECT p.id, p."runId", p.kind, p."hashedId", p.expression, r.event AS "runEvent"
         FROM executor_pause p JOIN executor_run r ON r.id = p."runId"
        WHERE p.event = $1 AND p."expiresAt" > ${NOW} AND r.status IN ('queued','running')
        ORDER BY p.kind ASC, p."createdAt" ASC`,
      event.name,
    );
    const cancelled = new Set<string>();
    for (const p of pauses.filter((x) => x.kind === "cancel")) {
      if (cancelled.has(p.runId) || !this.pauseMatches(p, event)) continue;
      if (await this.cancelRun(tx, p.runId, `cancelOn event ${event.name} ${event.id}`)) cancelled.add(p.runId);
    }
    for (const p of pauses.filter((x) => x.kind === "wait")) {
      if (cancelled.has(p.runId) || !this.pauseMatches(p, event)) continue;
      // Consume atomically: whoever deletes the pause (event or timeout) wins.
      const consumed = await tx.$queryRawUnsafe<{ id: string }[]>(`DELETE FROM executor_pause WHERE id = $1 RETURNING id`, p.id);
      if (!consumed.length) continue;
      await tx.executorQueueItem.deleteMany({ where: { jobId: `${p.runId}-${p.hashedId}-timeout` } });
      await this.resolveAsyncStep(tx, p.runId, p.hashedId!, { data: event } as unknown as Json, `waitForEvent ${event.name}`);
    }
    const fns = await tx.executorFunction.findMany({ where: { events: { has: event.name } } });
    for (const fn of fns) {
      const config = fn.config as unknown as FunctionConfig;
      const triggered = (config.triggers ?? []).some((t) => {
        if (t.event !== event.name) return false;
        if (!t.expression) return true;
        const res = evalCel(t.expression, { event });
        if (res.error) this.o.log(`trigger expression of ${fn.id} on ${event.name}: ${res.error} → no match`);
        return res.match;
      });
      if (triggered) await this.startRun(tx, fn.id, config, fn.retries, event);
    }
  }

  private pauseMatches(p: { id: string; expression: string | null; runEvent: unknown }, event: ExecutorEventPayload): boolean {
    if (!p.expression) return true;
    const res = evalCel(p.expression, { event: p.runEvent, async: event });
    if (res.error) this.o.log(`pause ${p.id}: "${p.expression}": ${res.error} → no match`);
    return res.match;
  }

  /**
   * Starts a run of `functionId` for `event` unless its idempotency key already started one in the
   * last 24 h: inserts the run, its cancelOn pauses and the first discovery item. Returns the run id
   * or undefined when skipped.
   */
  private async startRun(tx: Tx, functionId: string, config: FunctionConfig, retries: number, event: ExecutorEventPayload): Promise<string | undefined> {
    let idempotencyKey: string | undefined;
    if (config.idempotency) {
      const value = evalCelValue(config.idempotency, { event });
      if (value !== undefined && value !== null) {
        idempotencyKey = `${functionId}:${typeof value === "string" ? value : JSON.stringify(value)}`;
        await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(hashtext($1))`, `idem:${idempotencyKey}`);
        const existing = await tx.executorRun.findFirst({
          where: { idempotencyKey, createdAt: { gt: new Date(Date.now() - DEDUPE_WINDOW_MS) } },
          select: { id: true },
        });
        if (existing) {
          this.o.log(`run of ${functionId} skipped: idempotency key already used by run ${existing.id}`);
          return undefined;
        }
      }
    }
    const runId = newUlid();
    await tx.executorRun.create({
      data: {
        id: runId,
        functionId,
        event: event as unknown as Json,
        events: [event] as unknown as Json,
        maxAttempts: retries + 1,
        idempotencyKey,
      },
    });
    const now = Date.now();
    for (const [i, c] of (config.cancel ?? []).entries()) {
      await tx.executorPause.create({
        data: {
          id: `${runId}-cancel-${i}`,
          runId,
          kind: "cancel",
          event: c.event,
          expression: c.if ?? null,
          expiresAt: new Date(now + Math.min(parseDurationMs(c.timeout) ?? DEFAULT_CANCEL_MS, MAX_SLEEP_MS)),
        },
      });
    }
    await this.enqueue(tx, { jobId: `${runId}-start`, runId, kind: "discover" });
    this.o.log(`run ${runId} started for ${functionId} (event ${event.name} ${event.id})`);
    return runId;
  }

  private async enqueue(
    tx: Tx,
    item: { jobId: string; runId: string; kind: QueueItem["kind"]; stepId?: string; availableAt?: Date; payload?: Record<string, unknown> },
  ): Promise<void> {
    await tx.executorQueueItem.createMany({
      data: [{ jobId: item.jobId, runId: item.runId, kind: item.kind, stepId: item.stepId ?? "step", availableAt: item.availableAt ?? new Date(), payload: (item.payload ?? {}) as Json }],
      skipDuplicates: true,
    });
  }

  // ───────────────────────────── run lifecycle ─────────────────────────────

  private async lockRun(tx: Tx, runId: string): Promise<RunRow | undefined> {
    const rows = await tx.$queryRawUnsafe<RunRow[]>(
      `SELECT id, "functionId", status, event, events, "requestVersion", "forceStepPlan", pending, "maxAttempts", "nextSeq"
         FROM executor_run WHERE id = $1 FOR UPDATE`,
      runId,
    );
    const row = rows[0];
    if (row) row.pending ??= [];
    return row;
  }

  private async endRun(tx: Tx, runId: string, status: "completed" | "failed" | "cancelled", fields: { output?: unknown; error?: unknown }): Promise<RunRow | undefined> {
    const run = await this.lockRun(tx, runId);
    if (!run || TERMINAL.has(run.status)) return undefined;
    await tx.executorRun.update({
      where: { id: runId },
      data: {
        status,
        endedAt: new Date(),
        pending: [],
        ...(fields.output !== undefined ? { output: (fields.output ?? Prisma.JsonNull) } : {}),
        ...(fields.error !== undefined ? { error: fields.error as Json } : {}),
      },
    });
    await tx.executorQueueItem.deleteMany({ where: { runId } });
    await tx.executorPause.deleteMany({ where: { runId } });
    return run;
  }

  private async emitInternal(tx: Tx, name: string, data: Record<string, unknown>, id = newUlid()): Promise<void> {
    await this.storeAndProcess(tx, { name, data, id, ts: Date.now() });
  }

  /** Marks the run completed with `output` and emits `inngest/function.finished` (Go `finalize.go`). */
  private async completeRun(tx: Tx, runId: string, output: unknown): Promise<void> {
    const run = await this.endRun(tx, runId, "completed", { output: output === undefined ? null : output });
    if (!run) return;
    await this.emitInternal(tx, "inngest/function.finished", { function_id: run.functionId, run_id: runId, result: output ?? null, event: run.event });
    this.o.log(`run ${runId} completed`);
  }

  /**
   * Marks the run failed and emits `inngest/function.failed` (event id = run id, data
   * `{function_id, run_id, error, event, events}`) and `inngest/function.finished`
   * (INNGEST-PROTOCOL.md §2.8 onFailure; Go `finalize.go:555-620`).
   */
  private async failRun(tx: Tx, runId: string, error: unknown): Promise<void> {
    const err = normalizeError(error);
    const run = await this.endRun(tx, runId, "failed", { error: err });
    if (!run) return;
    await this.emitInternal(tx, "inngest/function.failed", { function_id: run.functionId, run_id: runId, error: err, event: run.event, events: run.events }, runId);
    await this.emitInternal(tx, "inngest/function.finished", { function_id: run.functionId, run_id: runId, error: err, event: run.event });
    this.o.log(`run ${runId} failed: ${JSON.stringify(err.message ?? "")}`);
  }

  /**
   * Cancels a run (cancelOn match or the API): status `cancelled`, its queue items and pauses
   * deleted, `inngest/function.cancelled` and `finished` emitted. An HTTP request already in flight
   * is not interrupted; its result is discarded (§2.11). Returns false if the run was already over.
   */
  async cancelRun(tx: Tx, runId: string, reason: string): Promise<boolean> {
    const run = await this.endRun(tx, runId, "cancelled", { error: { name: "Cancelled", message: reason } });
    if (!run) return false;
    await this.emitInternal(tx, "inngest/function.cancelled", { function_id: run.functionId, run_id: runId, event: run.event, reason });
    await this.emitInternal(tx, "inngest/function.finished", { function_id: run.functionId, run_id: runId, error: { name: "Cancelled", message: reason }, event: run.event });
    this.o.log(`run ${runId} cancelled (${reason})`);
    return true;
  }

  /** Cancels a run through the API. Returns false when the run does not exist or already ended. */
  async cancelRunById(runId: string, reason = "cancelled through the API"): Promise<boolean> {
    const ok = await this.o.db.$transaction((tx) => this.cancelRun(tx, runId, reason), TX);
    this.wake();
    return ok;
  }

  /** Saves a memoized step unless it exists (never overwrites). Returns true when inserted. */
  private async saveStep(tx: Tx, run: RunRow, hashedId: string, value: Json | null, name: string): Promise<boolean> {
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
  private limitError(run: RunRow, op: Op): Record<string, unknown> | undefined {
    if (run.nextSeq >= MAX_STEPS_PER_RUN) {
      return { name: "StepLimitExceeded", message: `run reached ${MAX_STEPS_PER_RUN} steps; cut long runs into segments (continue-as-new)` };
    }
    const size = Buffer.byteLength(JSON.stringify(op.data ?? op.error ?? null) ?? "");
    if (size > MAX_STEP_OUTPUT_BYTES) {
      return { name: "OutputTooLarge", message: `step ${op.displayName ?? op.name ?? op.id} output is ${size} bytes (max ${MAX_STEP_OUTPUT_BYTES}); store large data elsewhere and return a reference` };
    }
    return undefined;
  }

  /** Writes back `nextSeq`, `pending`, `forceStepPlan` (and the request version) of a locked run. */
  private async saveRunState(tx: Tx, run: RunRow, extra: { requestVersion?: number } = {}): Promise<void> {
    await tx.executorRun.update({
      where: { id: run.id },
      data: { nextSeq: run.nextSeq, pending: run.pending, forceStepPlan: run.forceStepPlan, ...extra },
    });
  }

  /**
   * Completes an asynchronous step (sleep wake, wait match or timeout): saves `value`, removes the
   * step from the pending set and enqueues discovery once nothing is pending (fan-in, §2.7).
   */
  private async resolveAsyncStep(tx: Tx, runId: string, hashedId: string, value: Json | null, name: string): Promise<void> {
    const run = await this.lockRun(tx, runId);
    if (!run || TERMINAL.has(run.status)) return;
    await this.saveStep(tx, run, hashedId, value, name);
    run.pending = run.pending.filter((p) => p !== hashedId);
    if (run.pending.length === 0) {
      run.forceStepPlan = false;
      await this.enqueue(tx, { jobId: `${runId}-${hashedId}-discover`, runId, kind: "discover" });
    }
    await this.saveRunState(tx, run);
  }

  // ───────────────────────────── checkpointing ─────────────────────────────

  /**
   * `POST /v1/checkpoint/{runId}/async` (§2.13): persists every checkpointed step durably, in one
   * transaction, **before** the caller answers 200. Returns "stale" (→ 409) when the queue item
   * `qi_id` is no longer leased or the run is over, so the SDK stops (`StaleDispatchError`).
   */
  async checkpoint(runId: string, body: { qi_id?: unknown; steps?: unknown }): Promise<"ok" | "stale"> {
    crashPoint("executor:checkpoint-received");
    const m = typeof body.qi_id === "string" ? /^(\d+)~(.+)$/.exec(body.qi_id) : null;
    const qi = m ? BigInt(m[1]!) : undefined;
    const owner = m ? m[2]! : "";
    const steps = Array.isArray(body.steps) ? (body.steps as Op[]) : [];
    if (qi === undefined) return "stale";
    const fast = await this.checkpointFast(runId, qi, owner, steps);
    if (fast !== "slow") {
      if (fast.inserted) crashPoint("executor:after-step-saved");
      return fast.result;
    }
    let saved = 0;
    const result = await this.tx(async (tx) => {
      const item = await tx.$queryRawUnsafe<{ id: bigint }[]>(
        `UPDATE executor_queue_item SET "leaseUntil" = ${NOW} + ($3 * interval '1 millisecond')
          WHERE id = $1 AND "runId" = $2 AND owner = $4 AND "leaseUntil" > ${NOW} RETURNING id`,
        qi,
        runId,
        this.o.leaseMs,
        owner,
      );
      if (!item.length) return "stale" as const;
      const run = await this.lockRun(tx, runId);
      if (!run || TERMINAL.has(run.status)) return "stale" as const;
      for (const op of steps) {
        const limit = op.op === "StepRun" || op.op === "StepFailed" ? this.limitError(run, op) : undefined;
        if (limit) {
          await this.failRun(tx, runId, limit);
          return "stale" as const;
        }
        if (op.op === "StepRun") saved += (await this.saveStep(tx, run, op.id, { data: op.data ?? null }, op.displayName ?? op.name ?? "")) ? 1 : 0;
        else if (op.op === "StepFailed") saved += (await this.saveStep(tx, run, op.id, { error: op.error ?? null }, op.displayName ?? op.name ?? "")) ? 1 : 0;
        else this.o.log(`run ${runId}: checkpointed op ${op.op} ignored (only StepRun/StepFailed are checkpointed)`);
      }
      await this.saveRunState(tx, run);
      return "ok" as const;
    });
    if (saved) crashPoint("executor:after-step-saved");
    return result;
  }

  /**
   * The checkpoint hot path in **one SQL statement** (atomic on its own, one round trip): renews the
   * lease of queue item `qi` (only if still leased), locks the run (only if not ended), inserts the
   * StepRun/StepFailed results that do not exist yet with consecutive `seq`, and advances `nextSeq`.
   * Returns "slow" when a limit may be hit or an op needs the general path (then {@link checkpoint}
   * uses the transaction-based path, which also fails the run on a limit).
   */
  private async checkpointFast(runId: string, qi: bigint, owner: string, steps: Op[]): Promise<{ result: "ok" | "stale"; inserted: number } | "slow"> {
    const rows: { ord: number; hashedId: string; value: unknown; name: string }[] = [];
    for (const [ord, op] of steps.entries()) {
      if (op.op !== "StepRun" && op.op !== "StepFailed") return "slow";
      const value = op.op === "StepRun" ? { data: op.data === undefined ? null : op.data } : { error: op.error ?? null };
      if (Buffer.byteLength(JSON.stringify(value)) > MAX_STEP_OUTPUT_BYTES) return "slow";
      rows.push({ ord, hashedId: op.id, value, name: op.displayName ?? op.name ?? "" });
    }
    const res = await this.o.db.$queryRawUnsafe<{ item: bigint; run: bigint; inserted: bigint; next_seq: number | null }[]>(
      `WITH item AS (
         UPDATE executor_queue_item SET "leaseUntil" = ${NOW} + ($3 * interval '1 millisecond')
          WHERE id = $1 AND "runId" = $2 AND owner = $7 AND "leaseUntil" > ${NOW} RETURNING id
       ), run AS (
         SELECT id, "nextSeq" FROM executor_run
          WHERE id = $2 AND status IN ('queued','running') AND "nextSeq" + $5 <= $6 AND EXISTS (SELECT 1 FROM item)
          FOR UPDATE
       ), input AS (
         SELECT x.ord, x."hashedId", x.value, x.name FROM jsonb_to_recordset($4::jsonb) AS x(ord int, "hashedId" text, value jsonb, name text)
          WHERE NOT EXISTS (SELECT 1 FROM executor_step_result s WHERE s."runId" = $2 AND s."hashedId" = x."hashedId")
       ), ins AS (
         INSERT INTO executor_step_result ("runId", "hashedId", seq, value, name)
         SELECT $2, i."hashedId", run."nextSeq" + (row_number() OVER (ORDER BY i.ord))::int - 1, i.value, i.name FROM input i, run
         ON CONFLICT DO NOTHING RETURNING seq
       ), upd AS (
         UPDATE executor_run r SET "nextSeq" = r."nextSeq" + (SELECT count(*) FROM ins)::int FROM run WHERE r.id = run.id RETURNING r.id
       )
       SELECT (SELECT count(*) FROM item) AS item, (SELECT count(*) FROM upd) AS run, (SELECT count(*) FROM ins) AS inserted,
              (SELECT "nextSeq" FROM executor_run WHERE id = $2) AS next_seq`,
      qi,
      runId,
      this.o.leaseMs,
      JSON.stringify(rows),
      rows.length,
      MAX_STEPS_PER_RUN,
      owner,
    );
    const r = res[0];
    if (!r || Number(r.item) === 0) return { result: "stale", inserted: 0 };
    if (Number(r.run) === 0) {
      // Run ended (→ stale) or the step limit would be exceeded (→ slow path fails the run).
      const run = await this.o.db.executorRun.findUnique({ where: { id: runId }, select: { status: true } });
      return run && !TERMINAL.has(run.status) ? "slow" : { result: "stale", inserted: 0 };
    }
    return { result: "ok", inserted: Number(r.inserted) };
  }

  // ───────────────────────────── queue ─────────────────────────────

  private async loop(): Promise<void> {
    while (this.running) {
      const free = this.o.workers - this.inFlight;
      let leased: QueueItem[] = [];
      if (free > 0) {
        try {
          leased = await this.lease(free);
        } catch (error) {
          this.o.log(`lease failed: ${errorText(error)}`);
          await delay(500);
        }
      }
      for (const item of leased) {
        this.inFlight += 1;
        const heartbeat = this.heartbeat(item);
        const p = this.process(item)
          .catch(async (error: unknown) => {
            this.o.log(`item ${item.jobId} (${item.kind}) failed unexpectedly: ${errorText(error)}; released, same attempt, retry in 1 s`);
            await this.release(item, 1000).catch(() => {});
          })
          .finally(() => {
            clearInterval(heartbeat);
            this.inFlight -= 1;
            this.active.delete(p);
            this.wake();
          });
        this.active.add(p);
      }
      if (leased.length === 0 || this.inFlight >= this.o.workers) await this.waitForWake();
    }
  }

  private async waitForWake(): Promise<void> {
    if (this.wakePending) {
      this.wakePending = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.o.pollMs);
      this.wakeResolve = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wakeResolve = undefined;
    this.wakePending = false;
  }

  /** Leases up to `limit` due items with `SELECT … FOR UPDATE SKIP LOCKED` (expired leases are due again). */
  private async lease(limit: number): Promise<QueueItem[]> {
    const owner = `${this.o.instance}:${process.pid}:${++this.batch}:${randomBytes(3).toString("hex")}`;
    return this.o.db.$queryRawUnsafe<QueueItem[]>(
      `UPDATE executor_queue_item q SET "leaseUntil" = ${NOW} + ($1 * interval '1 millisecond'), owner = $2
         FROM (SELECT id FROM executor_queue_item
                WHERE "availableAt" <= ${NOW} AND ("leaseUntil" IS NULL OR "leaseUntil" < ${NOW})
                ORDER BY "availableAt", id LIMIT $3 FOR UPDATE SKIP LOCKED) due
        WHERE q.id = due.id
        RETURNING q.id, q."jobId", q."runId", q.kind, q."stepId", q.attempt, q.payload, q.owner`,
      this.o.leaseMs,
      owner,
      limit,
    );
  }

  /**
   * Renews the lease of `item` every leaseMs/3 while it is being processed (a request may run for
   * hours, §7.1 item 4); an executor that dies stops renewing and the item is reclaimed.
   */
  private heartbeat(item: QueueItem): NodeJS.Timeout {
    return setInterval(() => {
      this.o.db
        .$executeRawUnsafe(
          `UPDATE executor_queue_item SET "leaseUntil" = ${NOW} + ($1 * interval '1 millisecond') WHERE id = $2 AND owner = $3`,
          this.o.leaseMs,
          item.id,
          item.owner,
        )
        .catch((error: unknown) => this.o.log(`heartbeat for ${item.jobId} failed: ${errorText(error)}`));
    }, Math.max(50, Math.floor(this.o.leaseMs / 3)));
  }

  /** Puts a leased item back unchanged (same attempt) to run after `delayMs`. */
  private async release(item: QueueItem, delayMs: number): Promise<void> {
    await this.o.db.executorQueueItem.updateMany({
      where: { id: item.id, owner: item.owner },
      data: { leaseUntil: null, owner: null, availableAt: new Date(Date.now() + delayMs) },
    });
  }

  private async process(item: QueueItem): Promise<void> {
    if (item.kind === "sleepWake") {
      await this.tx(async (tx) => {
        if (!(await this.ownItem(tx, item))) return;
        await tx.executorQueueItem.delete({ where: { id: item.id } });
        await this.resolveAsyncStep(tx, item.runId, String(item.payload.hashedId), null, "sleep");
      });
      return;
    }
    if (item.kind === "pauseTimeout") {
      await this.tx(async (tx) => {
        if (!(await this.ownItem(tx, item))) return;
        await tx.executorQueueItem.delete({ where: { id: item.id } });
        const consumed = await tx.$queryRawUnsafe<{ id: string }[]>(`DELETE FROM executor_pause WHERE id = $1 RETURNING id`, String(item.payload.pauseId));
        if (consumed.length) await this.resolveAsyncStep(tx, item.runId, String(item.payload.hashedId), null, "waitForEvent timeout");
      });
      return;
    }
    await this.call(item);
  }

  /** Locks the item row and checks this process still holds its lease. */
  private async ownItem(tx: Tx, item: QueueItem): Promise<boolean> {
    const rows = await tx.$queryRawUnsafe<{ id: bigint }[]>(`SELECT id FROM executor_queue_item WHERE id = $1 AND owner = $2 FOR UPDATE`, item.id, item.owner);
    return rows.length > 0;
  }

  private concurrencyKeys(fnId: string, config: FunctionConfig, event: unknown): { key: string; limit: number }[] {
    return normalizeConcurrency(config.concurrency)
      .filter((c) => c.limit > 0)
      .map((c, i) => {
        const value = c.key ? evalCelValue(c.key, { event }) : "";
        return { key: `${fnId}#${i}#${typeof value === "string" ? value : JSON.stringify(value ?? null)}`, limit: c.limit };
      });
  }

  // ───────────────────────────── driver ─────────────────────────────

  /** Sends one request (discovery or a planned step) to the app and applies the response. */
  private async call(item: QueueItem): Promise<void> {
    const db = this.o.db;
    // One round trip for the run and its function.
    const rows = await db.$queryRawUnsafe<
      {
        id: string;
        status: string;
        event: unknown;
        events: unknown;
        requestVersion: number;
        forceStepPlan: boolean;
        maxAttempts: number;
        functionId: string;
        fnId: string | null;
        fnUrl: string | null;
        fnConfig: unknown;
        steps: { h: string; v: unknown }[] | null;
      }[]
    >(
      // Run, function and memoized steps (in stack order) in one round trip.
      `SELECT r.id, r.status, r.event, r.events, r."requestVersion", r."forceStepPlan", r."maxAttempts", r."functionId",
              f.id AS "fnId", f.url AS "fnUrl", f.config AS "fnConfig",
              (SELECT json_agg(json_build_object('h', s."hashedId", 'v', s.value) ORDER BY s.seq)
                 FROM executor_step_result s WHERE s."runId" = r.id) AS steps
         FROM executor_run r LEFT JOIN executor_function f ON f.id = r."functionId" WHERE r.id = $1`,
      item.runId,
    );
    const run = rows[0];
    if (!run || TERMINAL.has(run.status)) {
      await db.executorQueueItem.deleteMany({ where: { id: item.id, owner: item.owner } });
      return;
    }
    const fn = run.fnId && run.fnUrl ? { id: run.fnId, url: run.fnUrl, config: run.fnConfig } : undefined;
    if (!fn) {
      await this.tx(async (tx) => {
        if (await this.ownItem(tx, item)) await this.failRun(tx, run.id, { name: "FunctionNotFound", message: `function ${run.functionId} is no longer registered` });
      });
      return;
    }
    const config = fn.config as FunctionConfig;
    // Concurrency (single executor process): a per-function / per-key limit on items in flight.
    const keys = this.concurrencyKeys(fn.id, config, run.event);
    if (keys.some((k) => (this.inflightByKey.get(k.key) ?? 0) >= k.limit)) {
      await this.release(item, 100);
      return;
    }
    for (const k of keys) this.inflightByKey.set(k.key, (this.inflightByKey.get(k.key) ?? 0) + 1);
    try {
      await this.callLimited(item, run, fn.url, fn.id);
    } finally {
      for (const k of keys) {
        const n = (this.inflightByKey.get(k.key) ?? 1) - 1;
        if (n <= 0) this.inflightByKey.delete(k.key);
        else this.inflightByKey.set(k.key, n);
      }
    }
  }

  private async callLimited(
    item: QueueItem,
    run: {
      id: string;
      status: string;
      event: unknown;
      events: unknown;
      requestVersion: number;
      forceStepPlan: boolean;
      maxAttempts: number;
      steps: { h: string; v: unknown }[] | null;
    },
    fnUrl: string,
    fnId: string,
  ): Promise<void> {
    const db = this.o.db;
    if (run.status === "queued") await db.executorRun.updateMany({ where: { id: run.id, status: "queued" }, data: { status: "running", startedAt: new Date() } });
    const stepRows = run.steps ?? [];
    const steps: Record<string, unknown> = {};
    for (const s of stepRows) steps[s.h] = s.v;
    const stack = stepRows.map((s) => s.h);
    const discovery = item.stepId === "step";
    const checkpointing = this.o.checkpointing && discovery && !run.forceStepPlan;
    const requestId = newUlid();
    const body = {
      event: run.event,
      events: run.events,
      steps,
      ctx: {
        run_id: run.id,
        attempt: item.attempt,
        max_attempts: run.maxAttempts,
        disable_immediate_execution: run.forceStepPlan || !discovery,
        use_api: false,
        stack: { stack, current: stack.length },
        // qi_id names this dispatch, not just the queue item: `<item id>~<lease owner>`. A request left
        // running by a dead executor must not checkpoint into a lease a restarted executor has taken
        // since (its steps would run twice): a different owner is stale (409).
        ...(checkpointing ? { fn_id: stableUuid(fnId), qi_id: `${item.id}~${item.owner}` } : {}),
      },
      version: run.requestVersion,
      request_id: requestId,
      job_id: item.jobId,
    };
    const text = canonicalJson(body);
    const url = new URL(fnUrl);
    url.searchParams.set("fnId", fnId);
    url.searchParams.set("stepId", item.stepId);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "x-inngest-signature": signBody(text, this.o.signingKey),
      "x-run-id": run.id,
      "x-request-id": requestId,
      "x-inngest-job-id": item.jobId,
      "x-inngest-step-id": item.stepId,
      "x-inngest-server-kind": "cloud",
    };
    if (run.requestVersion >= 0) headers["x-inngest-req-version"] = String(run.requestVersion);

    const controller = new AbortController();
    this.controllers.add(controller);
    const timeout = setTimeout(() => controller.abort(new Error("request timeout")), this.o.requestTimeoutMs);
    const started = Date.now();
    let status: number;
    let resHeaders: Headers;
    let resText: string;
    try {
      const res = await fetch(url, { method: "POST", headers, body: text, signal: controller.signal });
      status = res.status;
      resHeaders = res.headers;
      resText = await res.text();
    } catch (error) {
      clearTimeout(timeout);
      this.controllers.delete(controller);
      if (!this.running) {
        await this.release(item, 0).catch(() => {});
        return;
      }
      if (controller.signal.aborted) {
        // Timed out: counts as an attempt, like a function-level error.
        await this.applyResponse(item, 0, new Headers(), { name: "RequestTimeout", message: `no response within ${this.o.requestTimeoutMs} ms` }, started, fnId);
        return;
      }
      // The app could not be reached or the connection broke before a response (web down, restarting):
      // the step was not (reliably) attempted, so the attempt is not used up; retry the same item shortly.
      const wait = Math.min(5000, 250 * 2 ** Math.min(5, Number(item.payload.connectFailures ?? 0)));
      this.o.log(`run ${run.id}: app unreachable at ${url.origin} (${errorText(error)}); retrying ${item.jobId} in ${wait} ms, attempt ${item.attempt} kept`);
      await db.executorQueueItem.updateMany({
        where: { id: item.id, owner: item.owner },
        data: {
          leaseUntil: null,
          owner: null,
          availableAt: new Date(Date.now() + wait),
          payload: { ...item.payload, connectFailures: Number(item.payload.connectFailures ?? 0) + 1 },
        },
      });
      return;
    }
    clearTimeout(timeout);
    this.controllers.delete(controller);
    let parsed: unknown = null;
    try {
      parsed = resText ? JSON.parse(resText) : null;
    } catch {
      parsed = { name: "InvalidResponse", message: `non-JSON response body (HTTP ${status}): ${resText.slice(0, 200)}` };
      if (status === 200 || status === 206) status = 500;
    }
    await this.applyResponse(item, status, resHeaders, parsed, started, fnId);
  }

  /**
   * Hot path for the commonest response, a discovery answered with a single `StepRun` (§2.7
   * immediate execution), in **one SQL statement**: deletes the request item (only while this
   * process holds its lease), memoizes the result (never overwriting), advances `nextSeq`, records
   * the request version, enqueues the next discovery and logs the op — all or nothing. Returns the
   * number of steps inserted (0 or 1), or -1 when the general path must handle it (lease lost, run
   * ended, fan-out open, limits), in which case nothing was written.
   */
  private async stepRunFast(item: QueueItem, op: Op, requestVersion: number | null, durationMs: number): Promise<number> {
    const value = { data: op.data === undefined ? null : op.data };
    const json = JSON.stringify(value);
    if (Buffer.byteLength(json) > MAX_STEP_OUTPUT_BYTES) return -1;
    const name = op.displayName ?? op.name ?? op.userland?.id ?? "";
    const res = await this.o.db.$queryRawUnsafe<{ run: bigint; inserted: bigint }[]>(
      `WITH run AS (
         SELECT id, "nextSeq" FROM executor_run
          WHERE id = $3 AND status IN ('queued','running') AND cardinality(pending) = 0 AND "nextSeq" < $10
            AND EXISTS (SELECT 1 FROM executor_queue_item WHERE id = $1 AND owner = $2)
          FOR UPDATE
       ), item AS (
         DELETE FROM executor_queue_item WHERE id = $1 AND owner = $2 AND EXISTS (SELECT 1 FROM run) RETURNING id
       ), ins AS (
         INSERT INTO executor_step_result ("runId", "hashedId", seq, value, name)
         SELECT $3, $4, run."nextSeq", $5::jsonb, $6 FROM run, item
          WHERE NOT EXISTS (SELECT 1 FROM executor_step_result WHERE "runId" = $3 AND "hashedId" = $4)
         ON CONFLICT DO NOTHING RETURNING seq
       ), upd AS (
         UPDATE executor_run r SET "nextSeq" = r."nextSeq" + (SELECT count(*) FROM ins)::int,
                "requestVersion" = COALESCE($7::int, r."requestVersion"), "forceStepPlan" = false
           FROM run, item WHERE r.id = run.id RETURNING r.id
       ), enq AS (
         INSERT INTO executor_queue_item ("jobId", "runId", kind, "stepId", attempt, "availableAt", payload)
         SELECT $8, $3, 'discover', 'step', 0, ${NOW}, '{}'::jsonb FROM upd
         ON CONFLICT DO NOTHING RETURNING id
       ), oplog AS (
         INSERT INTO executor_op ("runId", kind, "stepId", status, ops, "durationMs")
         SELECT $3, 'discover', 'step', 206, $9::jsonb, $11 FROM upd RETURNING id
       )
       SELECT (SELECT count(*) FROM upd) AS run, (SELECT count(*) FROM ins) AS inserted, (SELECT count(*) FROM enq) AS enq, (SELECT count(*) FROM oplog) AS oplog`,
      item.id,
      item.owner,
      item.runId,
      op.id,
      json,
      name,
      requestVersion,
      `${item.runId}-${op.id}-discover`,
      JSON.stringify([{ id: op.id, op: op.op, name }]),
      MAX_STEPS_PER_RUN,
      durationMs,
    );
    const r = res[0];
    if (!r || Number(r.run) === 0) return -1;
    this.wake();
    return Number(r.inserted);
  }

  /**
   * Applies one SDK response (INNGEST-PROTOCOL.md §2.4–2.5, §2.7–2.8) in **one transaction**: step
   * results are memoized (never overwritten) together with the follow-up queue item, the request item
   * is deleted or rescheduled, and the run state updated. A lost lease aborts without writing.
   */
  private async applyResponse(item: QueueItem, status: number, headers: Headers, body: unknown, started: number, fnId: string): Promise<void> {
    const noRetryHeader = headers.get("x-inngest-no-retry");
    const retryAt = parseRetryAfter(headers.get("retry-after"));
    const reqVersion = Number(headers.get("x-inngest-req-version"));
    const versionUpdate = Number.isInteger(reqVersion) && reqVersion > 0 ? { requestVersion: reqVersion } : {};
    const ops = status === 206 && Array.isArray(body) ? (body as Op[]) : [];
    if (ops.some((o) => o.op === "StepRun" || o.op === "StepFailed")) crashPoint("executor:before-step-saved");
    let savedSteps = 0;
    let outcome = "";
    const only = ops.length === 1 ? ops[0]! : undefined;
    if (only?.op === "StepRun" && discoveryOf(item)) {
      const fast = await this.stepRunFast(item, only, Number.isInteger(reqVersion) && reqVersion > 0 ? reqVersion : null, Date.now() - started);
      if (fast >= 0) {
        if (fast > 0) crashPoint("executor:after-step-saved");
        this.o.log(`run ${item.runId} ${fnId} discovery attempt ${item.attempt} → 206 StepRun ${only.displayName ?? only.name ?? ""} saved (${Date.now() - started} ms)`);
        return;
      }
    }
    await this.tx(async (tx) => {
      if (!(await this.ownItem(tx, item))) {
        outcome = "lease lost; response discarded";
        return;
      }
      const run = await this.lockRun(tx, item.runId);
      if (!run || TERMINAL.has(run.status)) {
        await tx.executorQueueItem.delete({ where: { id: item.id } });
        outcome = "run already ended; response discarded";
        return;
      }
      await tx.executorOp.create({
        data: { runId: run.id, kind: item.kind, stepId: item.stepId, status, ops: status === 206 ? (ops.map((o) => ({ id: o.id, op: o.op, name: o.displayName ?? o.name })) as Json) : Prisma.DbNull, durationMs: Date.now() - started },
      });
      const retryItem = async (reason: string): Promise<void> => {
        const at = retryAt ?? new Date(Date.now() + backoffDelayMs(item.attempt, this.o.backoffMs, this.o.jitter));
        await tx.executorQueueItem.update({ where: { id: item.id }, data: { attempt: item.attempt + 1, availableAt: at, leaseUntil: null, owner: null } });
        await this.saveRunState(tx, run, versionUpdate);
        outcome = `${reason}; retry attempt ${item.attempt + 1}/${run.maxAttempts - 1} at ${at.toISOString()}`;
      };
      const canRetry = item.attempt + 1 < run.maxAttempts;

      if (status === 200) {
        await tx.executorQueueItem.delete({ where: { id: item.id } });
        await this.saveRunState(tx, run, versionUpdate);
        await this.completeRun(tx, run.id, body);
        outcome = "function returned";
        return;
      }
      if (status !== 206) {
        // Function-level error. An explicit x-inngest-no-retry wins; otherwise 4xx = no retry (Go util.go:45-92).
        const noRetry = noRetryHeader !== null ? noRetryHeader === "true" : status >= 400 && status < 500;
        if (!noRetry && canRetry) return retryItem(`HTTP ${status} ${errorMessageOf(body)}`);
        await tx.executorQueueItem.delete({ where: { id: item.id } });
        await this.saveRunState(tx, run, versionUpdate);
        await this.failRun(tx, run.id, status === 401 ? { name: "Unauthorized", message: "the app rejected the executor's signature (check INNGEST_SIGNING_KEY)" } : body);
        outcome = `HTTP ${status}: run failed`;
        return;
      }
      if (!Array.isArray(body) || ops.length === 0) {
        await tx.executorQueueItem.delete({ where: { id: item.id } });
        await this.failRun(tx, run.id, { name: "ProtocolError", message: "206 response without opcodes" });
        outcome = "empty 206: run failed";
        return;
      }
      const completed: string[] = [];
      const added: string[] = [];
      let discoveryRequested = false;
      const asyncOps = ops.filter((o) => ["StepPlanned", "Sleep", "WaitForEvent"].includes(o.op)).length;
      for (const op of ops) {
        const name = op.displayName ?? op.name ?? op.userland?.id ?? "";
        const limit = ["StepRun", "StepFailed", "StepError"].includes(op.op) ? this.limitError(run, op) : undefined;
        if (limit) {
          await tx.executorQueueItem.delete({ where: { id: item.id } });
          await this.saveRunState(tx, run, versionUpdate);
          await this.failRun(tx, run.id, limit);
          outcome = `${String(limit.name)}: run failed`;
          return;
        }
        switch (op.op) {
          case "StepRun":
            savedSteps += (await this.saveStep(tx, run, op.id, { data: op.data === undefined ? null : op.data }, name)) ? 1 : 0;
            completed.push(op.id);
            break;
          case "StepError": {
            const noRetry = noRetryHeader === "true";
            if (!noRetry && canRetry) {
              // Re-run the same request with attempt+1 (§2.8). Nothing is saved for this step.
              return retryItem(`step ${name} error: ${errorMessageOf(op.error)}`);
            }
            savedSteps += (await this.saveStep(tx, run, op.id, { error: op.error ?? null }, name)) ? 1 : 0;
            completed.push(op.id);
            break;
          }
          case "StepFailed":
            savedSteps += (await this.saveStep(tx, run, op.id, { error: op.error ?? null }, name)) ? 1 : 0;
            completed.push(op.id);
            break;
          case "StepPlanned":
            await this.enqueue(tx, { jobId: `${run.id}-${op.id}-plan`, runId: run.id, kind: "step", stepId: op.id });
            added.push(op.id);
            break;
          case "Sleep": {
            const until = sleepUntil({ name: op.name, opts: op.opts });
            if (!until) {
              await tx.executorQueueItem.delete({ where: { id: item.id } });
              await this.failRun(tx, run.id, { name: "ProtocolError", message: `Sleep op ${op.id}: unparseable duration ${JSON.stringify(op.opts?.duration ?? op.name ?? null)}` });
              outcome = "bad sleep: run failed";
              return;
            }
            await this.enqueue(tx, { jobId: `${run.id}-${op.id}-sleep`, runId: run.id, kind: "sleepWake", availableAt: until, payload: { hashedId: op.id } });
            added.push(op.id);
            break;
          }
          case "WaitForEvent": {
            const timeoutMs = Math.min(parseDurationMs(op.opts?.timeout) ?? DEFAULT_WAIT_MS, MAX_SLEEP_MS);
            const expiresAt = new Date(Date.now() + timeoutMs);
            const pauseId = `${run.id}-${op.id}`;
            const eventName = typeof op.opts?.event === "string" ? op.opts.event : String(op.name);
            await tx.executorPause.createMany({
              data: [{ id: pauseId, runId: run.id, kind: "wait", hashedId: op.id, event: eventName, expression: typeof op.opts?.if === "string" ? op.opts.if : null, expiresAt }],
              skipDuplicates: true,
            });
            await this.enqueue(tx, { jobId: `${run.id}-${op.id}-timeout`, runId: run.id, kind: "pauseTimeout", availableAt: expiresAt, payload: { pauseId, hashedId: op.id } });
            added.push(op.id);
            break;
          }
          case "DiscoveryRequest":
            // Checkpointing maxRuntime reached: the SDK asks for a fresh discovery request (§2.5).
            discoveryRequested = true;
            break;
          case "RunComplete":
            await tx.executorQueueItem.delete({ where: { id: item.id } });
            await this.saveRunState(tx, run, versionUpdate);
            await this.completeRun(tx, run.id, op.data);
            outcome = `RunComplete (${savedSteps} buffered step(s) saved)`;
            return;
          default:
            // Unknown or unsupported opcode (InvokeFunction, AIGateway, Gateway, WaitForSignal, DeferAdd, …): a run error, never a silent skip (§7.2).
            await tx.executorQueueItem.delete({ where: { id: item.id } });
            await this.saveRunState(tx, run, versionUpdate);
            await this.failRun(tx, run.id, { name: "UnsupportedOpcode", message: `opcode ${op.op} (step ${name}) is not supported by the embedded executor` });
            outcome = `unsupported opcode ${op.op}: run failed`;
            return;
        }
      }
      await tx.executorQueueItem.delete({ where: { id: item.id } });
      const pending = new Set(run.pending);
      for (const id of added) pending.add(id);
      for (const id of completed) pending.delete(id);
      if (!discoveryOf(item)) pending.delete(item.stepId);
      run.pending = [...pending];
      if (asyncOps > 1) run.forceStepPlan = true;
      if (run.pending.length === 0 && (completed.length > 0 || added.length === 0 || discoveryRequested)) {
        run.forceStepPlan = false;
        const last = completed[completed.length - 1];
        const jobId = last ? `${run.id}-${last}-discover` : `${run.id}-seq${run.nextSeq}-${item.id}-discover`;
        await this.enqueue(tx, { jobId, runId: run.id, kind: "discover" });
      }
      await this.saveRunState(tx, run, versionUpdate);
      outcome = `${ops.map((o) => o.op).join(",")}; pending ${run.pending.length}`;
    });
    if (savedSteps) crashPoint("executor:after-step-saved");
    this.o.log(`run ${item.runId} ${fnId} ${item.stepId === "step" ? "discovery" : `step ${item.stepId.slice(0, 8)}`} attempt ${item.attempt} → ${status} ${outcome} (${Date.now() - started} ms)`);
  }
}

function discoveryOf(item: QueueItem): boolean {
  return item.stepId === "step";
}

function normalizeError(error: unknown): Record<string, unknown> {
  if (error && typeof error === "object" && !Array.isArray(error)) {
    const e = error as Record<string, unknown>;
    return { name: typeof e.name === "string" ? e.name : "Error", message: typeof e.message === "string" ? e.message : JSON.stringify(e).slice(0, 2000), ...e };
  }
  return { name: "Error", message: typeof error === "string" ? error : JSON.stringify(error ?? null) };
}

function errorMessageOf(body: unknown): string {
  if (body && typeof body === "object" && "message" in body) return String((body).message);
  return "";
}

/** Message of an error including its `cause` code (e.g. `fetch failed (ECONNREFUSED)`). */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: string; message?: string } | undefined;
  return cause ? `${error.message} (${cause.code ?? cause.message ?? ""})` : error.message;
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
