import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type PrismaClient } from "../../server/db/client.ts";
import { CheckpointBatcher } from "../../server/executor/engine/checkpoint-batch.ts";
import type { CheckpointEntry, EngineContext } from "../../server/executor/engine/context.ts";
import { createExecutorMetrics } from "../../server/executor/engine/metrics.ts";
import { createHotSql, type HotSql } from "../../server/executor/engine/pg.ts";
import { createExecutorLogger } from "../../server/executor/logger.ts";
import { newUlid } from "../../server/executor/util.ts";
import { testDatabaseUrl } from "../support/database.ts";

// The group commit of async checkpoints (engine/checkpoint-batch.ts) against the real PostgreSQL:
// checkpoints of different runs that arrive while a batch is in flight share the next statement,
// each resolves only once its rows are committed, and every per-run rule of the one-run statement
// (lease owner, live run, step limit, never overwrite, consecutive seq) holds inside a batch.
describe("executor: checkpoint group commit", () => {
  let db: PrismaClient;
  let hot: HotSql;
  let batcher: CheckpointBatcher;
  const warnings: string[] = [];

  beforeAll(() => {
    const url = testDatabaseUrl();
    db = createPrismaClient(url, { max: 4 });
    hot = createHotSql(url, 4);
    const logger = createExecutorLogger({ format: "text", level: "warn", write: (line) => warnings.push(line) });
    // The batcher uses only these parts of the engine context.
    const ctx = { o: { hot, leaseMs: 5000, logger, metrics: createExecutorMetrics(db) } } as unknown as EngineContext;
    batcher = new CheckpointBatcher(ctx);
  });
  afterAll(async () => {
    await hot.end();
    await db.$disconnect();
  });

  /** A live run with a leased discovery item; returns what a checkpoint of it needs. */
  async function leasedRun({ status = "running", nextSeq = 0 }: { status?: string; nextSeq?: number } = {}) {
    const runId = newUlid();
    const owner = `test-owner-${runId}`;
    await db.executorRun.create({ data: { id: runId, functionId: "batch-fn", status, event: {}, events: [], maxAttempts: 1, nextSeq } });
    const item = await db.executorQueueItem.create({
      data: { jobId: `${runId}-start`, runId, kind: "discover", leaseUntil: new Date(Date.now() + 60_000), owner },
    });
    return { runId, qi: item.id, owner };
  }

  function entry(run: { runId: string; qi: bigint; owner: string }, steps: { id: string; data: unknown }[]): CheckpointEntry {
    const rows = steps.map((s, ord) => ({ ord, hashedId: s.id, value: { data: s.data }, name: s.id }));
    return { ...run, rows, bytes: Buffer.byteLength(JSON.stringify(rows)) };
  }

  const stepsOf = (runId: string) =>
    db.executorStepResult.findMany({ where: { runId }, orderBy: { seq: "asc" }, select: { hashedId: true, seq: true, value: true } });

  it("writes the checkpoints that arrive during a batch in one statement, each committed before it resolves", async () => {
    const runs = await Promise.all([leasedRun(), leasedRun({ nextSeq: 3 }), leasedRun(), leasedRun()]);
    const before = { ...batcher.stats };
    // The first goes at once; the other three arrive while it is in flight and share the next batch.
    const pending = runs.map((r, i) =>
      batcher.submit(
        entry(
          r,
          i === 1
            ? [
                { id: "a", data: 1 },
                { id: "b", data: { x: [2] } },
              ]
            : [{ id: "a", data: i }],
        ),
      ),
    );
    const seen: { hashedId: string; seq: number }[][] = [];
    for (const [i, p] of pending.entries()) {
      const outcome = await p;
      expect(outcome).toEqual({ item: true, run: true, inserted: i === 1 ? 2 : 1 });
      seen.push((await stepsOf(runs[i]!.runId)).map(({ hashedId, seq }) => ({ hashedId, seq })));
    }
    expect({ batches: batcher.stats.batches - before.batches, entries: batcher.stats.entries - before.entries }).toEqual({ batches: 2, entries: 4 });
    expect(seen[1]).toEqual([
      { hashedId: "a", seq: 3 },
      { hashedId: "b", seq: 4 },
    ]);
    expect(seen[2]).toEqual([{ hashedId: "a", seq: 0 }]);
    const second = await db.executorRun.findUniqueOrThrow({ where: { id: runs[1].runId } });
    expect(second.nextSeq).toBe(5);
    expect((await stepsOf(runs[1].runId)).map((s) => s.value)).toEqual([{ data: 1 }, { data: { x: [2] } }]);
    // Each item's lease was renewed by its checkpoint.
    const items = await db.executorQueueItem.findMany({ where: { id: { in: runs.map((r) => r.qi) } } });
    for (const item of items) expect(item.leaseUntil!.getTime()).toBeGreaterThan(Date.now() + 2000);
  });

  it("keeps every rule of a single checkpoint inside a batch: lease owner, ended run, step limit, no overwrite", async () => {
    const good = await leasedRun();
    const stolen = await leasedRun();
    const ended = await leasedRun({ status: "completed" });
    const full = await leasedRun({ nextSeq: 999 });
    const again = await leasedRun();
    await batcher.submit(entry(again, [{ id: "s1", data: "first" }]));
    const blocker = batcher.submit(entry(await leasedRun(), [{ id: "x", data: 0 }]));
    const [g, s, e, f, a] = await Promise.all([
      batcher.submit(entry(good, [{ id: "s1", data: 1 }])),
      batcher.submit(entry({ ...stolen, owner: "someone-else" }, [{ id: "s1", data: 1 }])),
      batcher.submit(entry(ended, [{ id: "s1", data: 1 }])),
      batcher.submit(
        entry(full, [
          { id: "s1", data: 1 },
          { id: "s2", data: 2 },
        ]),
      ),
      batcher.submit(
        entry(again, [
          { id: "s1", data: "second" },
          { id: "s2", data: "new" },
        ]),
      ),
    ]);
    await blocker;
    expect(g).toEqual({ item: true, run: true, inserted: 1 });
    expect(s).toEqual({ item: false, run: false, inserted: 0 });
    expect(e).toEqual({ item: true, run: false, inserted: 0 });
    expect(f).toEqual({ item: true, run: false, inserted: 0 });
    expect(a).toEqual({ item: true, run: true, inserted: 1 });
    expect(await stepsOf(stolen.runId)).toEqual([]);
    expect(await stepsOf(ended.runId)).toEqual([]);
    expect(await stepsOf(full.runId)).toEqual([]);
    expect(await stepsOf(again.runId)).toEqual([
      { hashedId: "s1", seq: 0, value: { data: "first" } },
      { hashedId: "s2", seq: 1, value: { data: "new" } },
    ]);
    expect((await db.executorRun.findUniqueOrThrow({ where: { id: full.runId } })).nextSeq).toBe(999);
    // The stolen lease was not renewed.
    const stolenItem = await db.executorQueueItem.findUniqueOrThrow({ where: { id: stolen.qi } });
    expect(stolenItem.leaseUntil!.getTime()).toBeLessThan(Date.now() + 61_000);
    expect(stolenItem.owner).toBe(stolen.owner);
  });

  it("never puts two checkpoints of one run in the same batch, and a checkpoint PostgreSQL refuses fails alone", async () => {
    const [lone, twice, bad, fine] = await Promise.all([leasedRun(), leasedRun(), leasedRun(), leasedRun()]);
    const before = { ...batcher.stats };
    const blocker = batcher.submit(entry(lone, [{ id: "x", data: 0 }]));
    const first = batcher.submit(entry(twice, [{ id: "t1", data: 1 }]));
    const second = batcher.submit(entry(twice, [{ id: "t2", data: 2 }]));
    // jsonb refuses the NUL character: the whole statement fails, then each entry is written alone.
    const poisoned = batcher.submit(entry(bad, [{ id: "p1", data: "nul \u0000 here" }]));
    const ok = batcher.submit(entry(fine, [{ id: "f1", data: "fine" }]));
    await blocker;
    await expect(poisoned).rejects.toThrow(/unicode|\\u0000/i);
    expect(await ok).toEqual({ item: true, run: true, inserted: 1 });
    expect(await first).toEqual({ item: true, run: true, inserted: 1 });
    expect(await second).toEqual({ item: true, run: true, inserted: 1 });
    expect((await stepsOf(twice.runId)).map((s) => [s.hashedId, s.seq])).toEqual([
      ["t1", 0],
      ["t2", 1],
    ]);
    expect(await stepsOf(bad.runId)).toEqual([]);
    expect((await stepsOf(fine.runId)).map((s) => s.value)).toEqual([{ data: "fine" }]);
    // [lone], then [twice#1, bad, fine] failed as one batch and went one by one (2 written), then [twice#2].
    expect(batcher.stats.batches - before.batches).toBe(4);
    expect(warnings.some((w) => /checkpoint batch of 3 failed .*one by one/.test(w))).toBe(true);
  });
});
