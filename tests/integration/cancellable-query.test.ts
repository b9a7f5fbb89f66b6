import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cancellableQueryRaw } from "../../server/db/cancellable-query.ts";
import { Prisma, createPrismaClient } from "../../server/db/client.ts";
import { seedDefaults } from "../../server/db/seed.ts";
import { listSteps } from "../../server/db/task-queries.ts";
import { profileIdOrThrow, seedLongTask, type SeededLongTask } from "../../scripts/lib/seed-ui.ts";
import { testDatabaseUrl } from "../support/database.ts";

const prisma = createPrismaClient(testDatabaseUrl(), { max: 4 });
const client = new pg.Client({ connectionString: testDatabaseUrl() });
const prefix = `cq${Date.now().toString(36)}`;
let long: SeededLongTask;

/** Backends running a statement whose text contains `marker` (a comment in it: parameters are not in the text). */
async function runningWith(marker: string): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND position($1 in query) > 0",
    [marker],
  );
  return rows[0]?.n ?? 0;
}

/** Polls until `check` holds (each poll is a query: converges on the database's own state). */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setImmediate(r));
}

beforeAll(async () => {
  await client.connect();
  await seedDefaults(prisma);
  // Launched in 2029: in the future like task-queries-scale's tasks, but before the range that file
  // counts from (January 2031), which it must have to itself when the two share a worker's database.
  long = await seedLongTask(client, { prefix, steps: 300, profileId: await profileIdOrThrow(client), start: new Date(Date.UTC(2029, 2, 1)) });
}, 120_000);
afterAll(async () => {
  await client.end();
  await prisma.$disconnect();
});

describe("reads a request gave up on stop in PostgreSQL", () => {
  it("cancels the running statement when the signal aborts, and rejects with the signal's reason", async () => {
    const marker = `cq-sleep-${prefix}`;
    const abort = new AbortController();
    const read = cancellableQueryRaw(prisma, Prisma.sql`SELECT pg_sleep(60) ${Prisma.raw(`/* ${marker} */`)}`, abort.signal);
    const outcome = read.then(
      () => "resolved",
      (e: unknown) => e,
    );
    await until(async () => (await runningWith(marker)) === 1);
    const reason = new Error("the browser went away");
    abort.abort(reason);
    expect(await outcome).toBe(reason);
    // The backend is free again: no statement of this read is left running.
    expect(await runningWith(marker)).toBe(0);
  });

  it("leaves a statement alone once it has ended, and other statements on the pool alone", async () => {
    const abort = new AbortController();
    const rows = await cancellableQueryRaw<{ one: number }[]>(prisma, Prisma.sql`SELECT 1::int AS one`, abort.signal);
    abort.abort();
    expect(rows).toEqual([{ one: 1 }]);
    // A statement of someone else's running at the abort is not touched.
    const otherMarker = `cq-other-${prefix}`;
    const mineMarker = `cq-mine-${prefix}`;
    // .then starts it: a Prisma query runs only once something awaits it.
    const other = prisma
      .$queryRaw<{ done: boolean }[]>(Prisma.sql`SELECT pg_sleep(3) IS NOT NULL AS done ${Prisma.raw(`/* ${otherMarker} */`)}`)
      .then((rows) => rows);
    await until(async () => (await runningWith(otherMarker)) === 1);
    const second = new AbortController();
    const mine = cancellableQueryRaw(prisma, Prisma.sql`SELECT pg_sleep(60) ${Prisma.raw(`/* ${mineMarker} */`)}`, second.signal).catch((e: unknown) => e);
    await until(async () => (await runningWith(mineMarker)) === 1);
    second.abort();
    expect(await mine).toBeInstanceOf(DOMException);
    expect(await runningWith(mineMarker)).toBe(0);
    expect(await runningWith(otherMarker)).toBe(1);
    expect(await other).toEqual([{ done: true }]);
  });

  it("task.steps' list: an aborted request asks nothing more and rejects; without a signal it lists", async () => {
    const abort = new AbortController();
    abort.abort(new Error("gone"));
    await expect(listSteps({ prisma, taskId: long.taskId, signal: abort.signal })).rejects.toThrow("gone");
    const listed = await listSteps({ prisma, taskId: long.taskId, signal: new AbortController().signal });
    expect(JSON.parse(listed.rowsJson)).toHaveLength(long.steps);
  });
});
