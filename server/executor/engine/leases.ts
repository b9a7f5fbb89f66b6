import type { EngineContext, QueueItem, Tx } from "./context.ts";

/** Lease checks and release of a leased queue item, shared by the queue loop and the request driver. */

/** Puts a leased item back unchanged (same attempt) to run after `delayMs`. */
export async function release(ctx: EngineContext, item: QueueItem, delayMs: number): Promise<void> {
  await ctx.o.db.executorQueueItem.updateMany({
    where: { id: item.id, owner: item.owner },
    data: { leaseUntil: null, owner: null, availableAt: new Date(Date.now() + delayMs) },
  });
}

/** Locks the item row and checks this process still holds its lease. */
export async function ownItem(tx: Tx, item: QueueItem): Promise<boolean> {
  const rows = await tx.$queryRawUnsafe<{ id: bigint }[]>(`SELECT id FROM executor_queue_item WHERE id = $1 AND owner = $2 FOR UPDATE`, item.id, item.owner);
  return rows.length > 0;
}
