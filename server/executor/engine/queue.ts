import { randomBytes } from "node:crypto";
import { delay, errorText, inTx, type EngineContext, type QueueItem } from "./context.ts";
import { ownItem, release } from "./leases.ts";
import { call } from "./request.ts";
import { resolveAsyncStep } from "./runs.ts";
import { HEARTBEAT, LEASE } from "./sql.ts";

/**
 * The durable leased queue: a loop that leases due items (`FOR UPDATE SKIP LOCKED`), processes up
 * to `workers` of them at once, renews their leases by heartbeat and releases them on failure
 * (§7.1 item 4).
 */
export class Queue {
  private inFlight = 0;
  private wakeResolve: (() => void) | undefined;
  private wakePending = false;
  private loopDone: Promise<void> | undefined;
  private batch = 0;
  /** Items being processed (awaited on stop). */
  readonly active = new Set<Promise<void>>();

  constructor(private readonly ctx: EngineContext) {}

  /** Starts the loop (ctx.state.running must be true). */
  start(): void {
    this.loopDone = this.loop();
  }

  /** Resolves when the loop has stopped leasing (after ctx.state.running became false and wake()). */
  async stopped(): Promise<void> {
    await this.loopDone;
  }

  /** Wakes the loop (after a local enqueue). */
  wake(): void {
    this.wakePending = true;
    this.wakeResolve?.();
  }

  private async loop(): Promise<void> {
    const { o, state } = this.ctx;
    while (state.running) {
      const free = o.workers - this.inFlight;
      let leased: QueueItem[] = [];
      if (free > 0) {
        try {
          leased = await this.lease(free);
          this.ctx.dbOutage.ok();
        } catch (error) {
          if (!this.ctx.dbOutage.failure("lease", error)) o.logger.error(`lease failed: ${errorText(error)}`);
          await delay(500);
        }
      }
      for (const item of leased) {
        this.inFlight += 1;
        const heartbeat = this.heartbeat(item);
        const p = processItem(this.ctx, item)
          .catch(async (error: unknown) => {
            if (!this.ctx.dbOutage.failure(`item ${item.kind}`, error)) {
              o.logger.error(`item ${item.jobId} (${item.kind}) failed unexpectedly: ${errorText(error)}; released, same attempt, retry in 1 s`, {
                runId: item.runId,
                stepId: item.stepId,
                jobId: item.jobId,
              });
            }
            await release(this.ctx, item, 1000).catch(() => {});
          })
          .finally(() => {
            clearInterval(heartbeat);
            this.inFlight -= 1;
            this.active.delete(p);
            this.wake();
          });
        this.active.add(p);
      }
      if (leased.length === 0 || this.inFlight >= o.workers) await this.waitForWake();
    }
  }

  private async waitForWake(): Promise<void> {
    if (this.wakePending) {
      this.wakePending = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.ctx.o.pollMs);
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
    const owner = `${this.ctx.o.instance}:${process.pid}:${++this.batch}:${randomBytes(3).toString("hex")}`;
    const rows = await this.ctx.o.hot.query<Omit<QueueItem, "id"> & { id: string }>("lh_lease", LEASE, [this.ctx.o.leaseMs, owner, limit]);
    return rows.map((r) => ({ ...r, id: BigInt(r.id) }));
  }

  /**
   * Renews the lease of `item` every leaseMs/3 while it is being processed (a request may run for
   * hours, §7.1 item 4); an executor that dies stops renewing and the item is reclaimed.
   */
  private heartbeat(item: QueueItem): NodeJS.Timeout {
    const { o } = this.ctx;
    return setInterval(
      () => {
        o.hot
          .query("lh_heartbeat", HEARTBEAT, [o.leaseMs, item.id, item.owner])
          .then(() => {
            o.metrics.leaseRenewals.inc();
            this.ctx.dbOutage.ok();
          })
          .catch((error: unknown) => {
            if (!this.ctx.dbOutage.failure("heartbeat", error))
              o.logger.error(`heartbeat for ${item.jobId} failed: ${errorText(error)}`, { runId: item.runId, jobId: item.jobId });
          });
      },
      Math.max(50, Math.floor(o.leaseMs / 3)),
    );
  }
}

/** Processes one leased item: a timer (sleep wake, wait timeout) in one transaction, or a request to the app. */
async function processItem(ctx: EngineContext, item: QueueItem): Promise<void> {
  if (item.kind === "sleepWake") {
    await inTx(ctx, async (tx) => {
      if (!(await ownItem(tx, item))) return;
      await tx.executorQueueItem.delete({ where: { id: item.id } });
      await resolveAsyncStep(tx, item.runId, String(item.payload.hashedId), null, "sleep");
    });
    return;
  }
  if (item.kind === "pauseTimeout") {
    await inTx(ctx, async (tx) => {
      if (!(await ownItem(tx, item))) return;
      await tx.executorQueueItem.delete({ where: { id: item.id } });
      const consumed = await tx.$queryRawUnsafe<{ id: string }[]>(`DELETE FROM executor_pause WHERE id = $1 RETURNING id`, String(item.payload.pauseId));
      if (!consumed.length) return;
      if (item.payload.invoke) {
        // step.invoke timed out: the step errors (the SDK throws it into the function).
        const error = { name: "InngestInvokeTimeoutError", message: "Timed out waiting for invoked function to complete" };
        await resolveAsyncStep(tx, item.runId, String(item.payload.hashedId), { error }, "invoke timeout");
      } else await resolveAsyncStep(tx, item.runId, String(item.payload.hashedId), null, "waitForEvent timeout");
    });
    return;
  }
  await call(ctx, item);
}
