import { TERMINAL, DEDUPE_WINDOW_MS, type EngineContext, type ExecutorEngineOptions, type Tx } from "./context.ts";
import { checkpoint } from "./async-checkpoint.ts";
import { CheckpointBatcher } from "./checkpoint-batch.ts";
import { ingest, storeAndProcess, type IncomingEvent } from "./events.ts";
import { OutageLog } from "./outage-log.ts";
import { Queue } from "./queue.ts";
import { cancelRun, cancelRunById } from "./runs.ts";

export type { ExecutorEngineOptions, ExecutorEventPayload } from "./context.ts";
export { MAX_STEP_OUTPUT_BYTES, MAX_STEPS_PER_RUN } from "./context.ts";

/**
 * The executor engine: event ingestion, run state, the durable leased queue and the HTTP driver
 * that speaks the Inngest protocol to an app's `serve()` endpoint. All state lives in PostgreSQL
 * (`executor_*` tables); the process holds only leases, so a `kill -9` loses nothing: leases expire
 * after `leaseMs` and the items are picked up again (docs/INNGEST-PROTOCOL.md §7.1 items 2–11).
 *
 * This class only composes the parts (engine/*.ts): events.ts (ingest), runs.ts (run lifecycle),
 * async-checkpoint.ts, queue.ts and leases.ts (queue and leases), request.ts and
 * apply-response.ts (the driver; opcode handlers as a table), sql.ts (hand-written SQL).
 */
export class Executor {
  private readonly ctx: EngineContext;
  private readonly queue: Queue;
  /** The executor's own origin, used for nothing but logs (set by the HTTP layer). */
  url = "";

  /** The process's PostgreSQL outage log (engine/outage-log.ts), shared with the HTTP layer. */
  get dbOutage(): OutageLog {
    return this.ctx.dbOutage;
  }

  constructor(options: ExecutorEngineOptions) {
    const state = {
      running: false,
      controllers: new Set<AbortController>(),
      inflightByKey: new Map<string, number>(),
      unreachableLog: new Map<string, { at: number; suppressed: number }>(),
    };
    const ctx: EngineContext = {
      o: options,
      state,
      dbOutage: new OutageLog((line, level) => options.logger[level](line)),
      wake: () => this.wake(),
      emit: (tx, event) => storeAndProcess(ctx, tx, event),
      get checkpoints() {
        return checkpoints;
      },
    };
    const checkpoints = new CheckpointBatcher(ctx);
    this.ctx = ctx;
    this.queue = new Queue(ctx);
  }

  /** Releases leases left by a previous process of this instance and starts the queue loop. */
  async start(): Promise<void> {
    const { o } = this.ctx;
    const released = await o.db.$executeRawUnsafe(`UPDATE executor_queue_item SET "leaseUntil" = NULL, owner = NULL WHERE owner LIKE $1`, `${o.instance}:%`);
    if (released) o.logger.info(`released ${released} lease(s) left by a previous process of ${o.instance}`);
    this.ctx.state.running = true;
    this.queue.start();
  }

  /**
   * Stops leasing, lets in-flight requests finish for up to `stopGraceMs` (their results are applied
   * as usual), then aborts the rest (their items are released unchanged, so they run again on the
   * next start with the same attempt) and waits for the workers to finish.
   */
  async stop(): Promise<void> {
    const { o, state } = this.ctx;
    state.running = false;
    this.wake();
    await this.queue.stopped();
    const all = Promise.allSettled([...this.queue.active]);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise<void>((resolve) => (timer = setTimeout(resolve, o.stopGraceMs)))]);
    clearTimeout(timer);
    if (state.controllers.size) o.logger.warn(`stopping: aborting ${state.controllers.size} request(s) still in flight; their items are released`);
    for (const c of state.controllers) c.abort(new Error("executor stopping"));
    await all;
  }

  /**
   * Housekeeping: deletes what is older than `retentionMs` (default 7 days, well past the 24 h
   * idempotency and event-dedupe windows): the ops log, ended runs with their memoized steps, and
   * events. Queue items and pauses of live runs are never touched. Returns the deleted row counts.
   */
  async housekeep(retentionMs = this.ctx.o.retentionMs): Promise<{ ops: number; runs: number; steps: number; events: number }> {
    const cutoff = new Date(Date.now() - Math.max(retentionMs, DEDUPE_WINDOW_MS));
    const db = this.ctx.o.db;
    const ops = await db.executorOp.deleteMany({ where: { createdAt: { lt: cutoff } } });
    const old = await db.executorRun.findMany({ where: { status: { in: [...TERMINAL] }, endedAt: { lt: cutoff } }, select: { id: true }, take: 10_000 });
    const ids = old.map((r) => r.id);
    const steps = ids.length ? await db.executorStepResult.deleteMany({ where: { runId: { in: ids } } }) : { count: 0 };
    const runs = ids.length ? await db.executorRun.deleteMany({ where: { id: { in: ids } } }) : { count: 0 };
    const events = await db.executorEvent.deleteMany({ where: { receivedAt: { lt: cutoff } } });
    const result = { ops: ops.count, runs: runs.count, steps: steps.count, events: events.count };
    if (result.ops + result.runs + result.events) this.ctx.o.logger.info(`housekeeping: deleted ${JSON.stringify(result)} older than ${cutoff.toISOString()}`);
    return result;
  }

  /** Wakes the queue loop (after a local enqueue). */
  wake(): void {
    this.queue.wake();
  }

  /** See events.ts {@link ingest}. Returns the event ids in input order. */
  ingest(raw: IncomingEvent[], seed?: string): Promise<string[]> {
    return ingest(this.ctx, raw, seed);
  }

  /** See async-checkpoint.ts {@link checkpoint}: "ok" (→ 200) once persisted, "stale" (→ 409). */
  checkpoint(runId: string, body: { qi_id?: unknown; steps?: unknown }): Promise<"ok" | "stale"> {
    return checkpoint(this.ctx, runId, body);
  }

  /** Cancels a run inside `tx` (see runs.ts {@link cancelRun}). Returns false if it was already over. */
  cancelRun(tx: Tx, runId: string, reason: string): Promise<boolean> {
    return cancelRun(this.ctx, tx, runId, reason);
  }

  /** Cancels a run through the API. Returns false when the run does not exist or already ended. */
  cancelRunById(runId: string, reason?: string): Promise<boolean> {
    return cancelRunById(this.ctx, runId, reason);
  }
}
