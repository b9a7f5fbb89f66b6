import {
  MAX_STEPS_PER_RUN,
  errorText,
  isRetryableConflict,
  type CheckpointEntry,
  type CheckpointOutcome,
  type CheckpointWriter,
  type EngineContext,
} from "./context.ts";
import { CHECKPOINT_BATCH } from "./sql.ts";

/** At most this many checkpoints share one statement. */
export const MAX_BATCH_ENTRIES = 64;
/** A batch is closed once its rows reach this many bytes of JSON; a larger single checkpoint goes alone. */
export const MAX_BATCH_BYTES = 4 * 1024 * 1024;

interface Waiting {
  entry: CheckpointEntry;
  resolve: (o: CheckpointOutcome) => void;
  reject: (e: unknown) => void;
}

/**
 * Group commit of async checkpoints across runs: the checkpoints that arrive while one batch
 * statement is in flight are written together by the next, in **one statement and one commit**
 * ({@link CHECKPOINT_BATCH}), and each caller hears its own outcome only after that commit — so a
 * step is still durable before its 200 (docs/INNGEST-PROTOCOL.md §2.13), and a lone checkpoint does not
 * wait (nothing in flight → it is written at once). With 16 runs checkpointing at once this turns
 * 16 statements, round trips and WAL flushes into a few. Postgres's own group commit only merges
 * the flushes; this also merges the statements and the driver's work.
 *
 * Entries of the same run never share a batch (the second waits for the next). When a batch fails
 * for another reason than a deadlock (retried as a whole, it wrote nothing), its entries are written
 * one by one, so one bad checkpoint (say, a `\u0000` PostgreSQL's jsonb refuses) fails alone.
 */
export class CheckpointBatcher implements CheckpointWriter {
  private waiting: Waiting[] = [];
  private inFlight = false;
  /** Batches written and entries in them, for the metrics and the benchmark. */
  readonly stats = { batches: 0, entries: 0 };

  constructor(private readonly ctx: EngineContext) {}

  /** Queues `entry` for the next batch; resolves after the commit that holds it. @throws the statement's error for this entry. */
  submit(entry: CheckpointEntry): Promise<CheckpointOutcome> {
    return new Promise<CheckpointOutcome>((resolve, reject) => {
      this.waiting.push({ entry, resolve, reject });
      if (!this.inFlight) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.inFlight = true;
    try {
      while (this.waiting.length) {
        const batch = this.take();
        await this.write(batch);
      }
    } finally {
      this.inFlight = false;
    }
  }

  /** Takes the next batch off the queue: in arrival order, one entry per run, within the count and size bounds. */
  private take(): Waiting[] {
    const batch: Waiting[] = [];
    const rest: Waiting[] = [];
    const runs = new Set<string>();
    let bytes = 0;
    for (const w of this.waiting) {
      const fits = batch.length < MAX_BATCH_ENTRIES && (batch.length === 0 || bytes + w.entry.bytes <= MAX_BATCH_BYTES);
      if (fits && !runs.has(w.entry.runId)) {
        batch.push(w);
        runs.add(w.entry.runId);
        bytes += w.entry.bytes;
      } else rest.push(w);
    }
    this.waiting = rest;
    return batch;
  }

  private async write(batch: Waiting[]): Promise<void> {
    try {
      const outcomes = await this.statement(batch.map((w) => w.entry));
      batch.forEach((w, i) => w.resolve(outcomes[i]!));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      this.ctx.o.logger.warn(`checkpoint batch of ${batch.length} failed (${errorText(error).slice(0, 160)}); writing its checkpoints one by one`);
      for (const w of batch) {
        try {
          w.resolve((await this.statement([w.entry]))[0]!);
        } catch (e) {
          w.reject(e);
        }
      }
    }
  }

  /** Runs the batch statement for `entries` (retrying a deadlock abort, which wrote nothing); outcomes in entry order. */
  private async statement(entries: CheckpointEntry[]): Promise<CheckpointOutcome[]> {
    const list = entries.map((e, k) => ({ k, qi: e.qi.toString(), run: e.runId, owner: e.owner, n: e.rows.length }));
    const rows = entries.flatMap((e, k) => e.rows.map((r) => ({ k, ...r })));
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await this.ctx.o.hot.query<{ k: number; item: boolean; run: boolean; inserted: number }>("lh_checkpoint_batch", CHECKPOINT_BATCH, [
          JSON.stringify(list),
          JSON.stringify(rows),
          this.ctx.o.leaseMs,
          MAX_STEPS_PER_RUN,
        ]);
        this.stats.batches += 1;
        this.stats.entries += entries.length;
        this.ctx.o.metrics.checkpointBatch.observe(entries.length);
        const out: CheckpointOutcome[] = entries.map(() => ({ item: false, run: false, inserted: 0 }));
        for (const r of res) out[r.k] = { item: r.item, run: r.run, inserted: Number(r.inserted) };
        return out;
      } catch (error) {
        if (attempt >= 5 || !isRetryableConflict(error)) throw error;
        this.ctx.o.logger.warn(`checkpoint batch of ${entries.length}: ${errorText(error).slice(0, 120)}; retrying (attempt ${attempt + 1})`);
      }
    }
  }
}
