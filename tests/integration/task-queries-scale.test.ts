import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "../../server/db/client.ts";
import { taskSpend } from "../../server/db/run-repository.ts";
import { seedDefaults } from "../../server/db/seed.ts";
import { getModelPromptOrThrow, listSteps, listTasks, searchSteps } from "../../server/db/task-queries.ts";
import { decodeStepRows } from "../../components/tasks/step-rows.ts";
import { buildSegments } from "../../components/tasks/step-filter.ts";
import { profileIdOrThrow, seedLongTask, seedManyTasks, type SeededLongTask } from "../../scripts/lib/seed-ui.ts";
import { testDatabaseUrl } from "../support/database.ts";

const prisma = createPrismaClient(testDatabaseUrl(), { max: 4 });
const client = new pg.Client({ connectionString: testDatabaseUrl() });
const prefix = `q${Date.now().toString(36)}`;
/** Tasks of this file launch in the future, so other files' tasks never fall in its date range. */
const start = new Date(Date.UTC(2031, 0, 10, 12, 0, 0));
const from = new Date(start.getTime() - 400 * 60_000);
let long: SeededLongTask;

beforeAll(async () => {
  await client.connect();
  await seedDefaults(prisma);
  const profileId = await profileIdOrThrow(client);
  long = await seedLongTask(client, { prefix, steps: 600, profileId, start: new Date(start.getTime() - 200 * 60_000) });
  await seedManyTasks(client, { prefix, count: 240, profileId, start });
}, 120_000);
afterAll(async () => {
  await client.end();
  await prisma.$disconnect();
});

describe("task.list at scale: server-side filters, keyset paging, totals", () => {
  it("pages newest first through every matching task exactly once, and oldest first in reverse", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listTasks({ prisma, from, limit: 50, cursor });
      expect(page.total).toBe(241);
      seen.push(...page.rows.map((r) => r.id));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor && pages < 20);
    expect(seen).toHaveLength(241);
    expect(new Set(seen).size).toBe(241);
    expect(seen[0]).toBe(`task_${prefix}000239`);
    const oldest = await listTasks({ prisma, from, sort: "oldest", limit: 241 });
    expect(oldest.rows.map((r) => r.id)).toEqual([...seen].reverse());
  });

  it("filters by status (any of several), profile, outcome, date range and text over goal and id", async () => {
    const failed = await listTasks({ prisma, from, status: ["failed", "dead_end"], limit: 200 });
    expect(failed.total).toBe(60);
    expect(new Set(failed.rows.map((r) => r.status))).toEqual(new Set(["failed", "dead_end"]));
    expect((await listTasks({ prisma, from, profile: "scripted-loop" })).total).toBe(0);
    expect((await listTasks({ prisma, from, profile: "scripted" })).total).toBe(241);
    const alerted = await listTasks({ prisma, from, outcome: "with_alerts", limit: 200 });
    expect(alerted.rows.every((r) => r.status === "completed" && r.outcome === "with_alerts" && r.alerts === 1)).toBe(true);
    expect(alerted.total).toBe(12); // every 10th short task has an alert; half of those completed (statuses cycle by 8)
    const gaps = await listTasks({ prisma, from, outcome: "completed_with_gaps", limit: 200 });
    expect(gaps.total).toBe(10); // every 24th short task from the 9th
    expect(gaps.rows.every((r) => r.status === "completed" && r.outcome === "completed_with_gaps")).toBe(true);
    const clean = await listTasks({ prisma, from, outcome: "clean", limit: 200 });
    expect(clean.rows.every((r) => r.outcome === "clean" && r.alerts === 0)).toBe(true);
    expect(clean.total + alerted.total + gaps.total).toBe(91); // 90 completed short tasks + the long one
    const window = await listTasks({ prisma, from: new Date(start.getTime() - 10 * 60_000), to: new Date(start.getTime() - 5 * 60_000) });
    expect(window.rows.map((r) => r.id)).toEqual([234, 233, 232, 231, 230].map((i) => `task_${prefix}000${i}`));
    // `since` is an instant, inclusive, and narrows with `from` (both apply).
    const since = await listTasks({ prisma, from, since: new Date(start.getTime() - 10 * 60_000), to: new Date(start.getTime() - 5 * 60_000) });
    expect(since.rows.map((r) => r.id)).toEqual(window.rows.map((r) => r.id));
    expect(
      (
        await listTasks({
          prisma,
          from: new Date(start.getTime() - 10 * 60_000),
          since: new Date(start.getTime() - 6 * 60_000),
          to: new Date(start.getTime() - 5 * 60_000),
        })
      ).total,
    ).toBe(1);
    const byGoal = await listTasks({ prisma, from, q: "INCIDENTS of last", limit: 200 });
    expect(byGoal.total).toBe(60);
    const byId = await listTasks({ prisma, from, q: `${prefix}000123` });
    expect(byId.rows.map((r) => r.id)).toEqual([`task_${prefix}000123`]);
    expect((await listTasks({ prisma, from, q: "100%_" })).total).toBe(0); // LIKE wildcards are literal
  });

  it("reports each task's steps, tokens and the same dollars as task.get (taskSpend)", async () => {
    const page = await listTasks({ prisma, q: `${prefix}long` });
    const row = page.rows[0]!;
    expect(row.id).toBe(long.taskId);
    expect(row.stepsUsed).toBe(long.steps - long.checkpoints);
    expect(row.costUsd).toBeGreaterThan(0);
    expect(row.costUsd).toBeCloseTo((await taskSpend({ prisma, taskId: long.taskId })).usd, 8);
    // Read from the trigger-maintained task_cost row: a change to it shows in the list (no per-page sum of model calls).
    const before = await client.query<{ usd: string }>(`SELECT "costUsd"::text AS usd FROM task_cost WHERE "taskId" = $1`, [long.taskId]);
    expect(Number(before.rows[0]!.usd)).toBeCloseTo(row.costUsd, 8);
    await client.query(`UPDATE task_cost SET "costUsd" = "costUsd" + 1000 WHERE "taskId" = $1`, [long.taskId]);
    try {
      expect((await listTasks({ prisma, q: `${prefix}long` })).rows[0]!.costUsd).toBeCloseTo(row.costUsd + 1000, 6);
    } finally {
      await client.query(`UPDATE task_cost SET "costUsd" = "costUsd" - 1000 WHERE "taskId" = $1`, [long.taskId]);
    }
  });

  it("filters by the model and failure class /costs groups by, so its links land on the same tasks", async () => {
    const expected = await client.query<{ model: string; n: string }>(
      `SELECT tc.model, count(*)::text AS n FROM task t JOIN task_cost tc ON tc."taskId" = t.id WHERE t.id LIKE $1 AND tc.model IS NOT NULL GROUP BY tc.model`,
      [`task_${prefix}%`],
    );
    expect(expected.rows.length).toBeGreaterThan(0);
    for (const { model, n } of expected.rows) expect((await listTasks({ prisma, from, model, limit: 200 })).total).toBe(Number(n));
    expect((await listTasks({ prisma, from, model: "no-such-model" })).total).toBe(0);
    const deadEnds = await client.query<{ n: string }>(`SELECT count(*)::text AS n FROM task WHERE id LIKE $1 AND status = 'dead_end'`, [`task_${prefix}%`]);
    expect(Number(deadEnds.rows[0]!.n)).toBeGreaterThan(0);
    const byFailure = await listTasks({ prisma, from, failure: "dead_end", limit: 200 });
    expect(byFailure.total).toBe(Number(deadEnds.rows[0]!.n));
    expect(byFailure.rows.every((r) => r.status === "dead_end")).toBe(true);
    // A failed task's class comes from its latest run's end reason; completed tasks have none.
    expect((await listTasks({ prisma, from, failure: "error", status: ["completed"] })).total).toBe(0);
  });

  it("refuses a cursor it did not make, naming the field", async () => {
    await expect(listTasks({ prisma, cursor: "nonsense" })).rejects.toThrow(/cursor/);
  });
});

describe("run page queries", () => {
  it("lists every step in timeline order with its model dollars and checkpoint reasons", async () => {
    const listed = await listSteps({ prisma, taskId: long.taskId });
    const truncated = listed.truncated;
    const rows = decodeStepRows(listed);
    expect(truncated).toBe(false);
    expect(rows).toHaveLength(long.steps);
    expect(rows[0]!.runId).toBe(long.runIds[0]);
    expect(rows[0]!.startedAt.getTime()).toBe(start.getTime() - 200 * 60_000); // epoch ms survive the JSON round trip
    expect(rows[0]!.endedAt!.getTime() - rows[0]!.startedAt.getTime()).toBe(rows[0]!.durationMs);
    expect(rows.at(-1)!.runId).toBe(long.runIds[1]);
    expect(rows.filter((r) => r.kind === "checkpoint").every((r) => r.checkpointReason === "interval")).toBe(true);
    expect(rows.filter((r) => r.status === "failed")).toHaveLength(long.failedSteps);
    expect(rows.find((r) => r.kind === "model")!.costUsd).toBeGreaterThan(0);
    expect(rows.filter((r) => r.kind === "tool").every((r) => r.costUsd === 0)).toBe(true);
    expect(listed.before).toBe(0);
  });

  it("a shorter list holds the newest steps, and says where they start in the whole list", async () => {
    const whole = decodeStepRows(await listSteps({ prisma, taskId: long.taskId }));
    const wholeSegments = buildSegments(whole);
    // Tails that start in run 2 and in run 1 (600 steps: run 1 holds 360 of them), mid-segment and not.
    for (const limit of [10, 100, 300, 590]) {
      const some = await listSteps({ prisma, taskId: long.taskId, limit });
      const rows = decodeStepRows(some);
      expect(some.truncated).toBe(true);
      expect(some.before).toBe(long.steps - limit);
      expect(rows.map((r) => `${r.runId}:${r.stepId}`)).toEqual(whole.slice(-limit).map((r) => `${r.runId}:${r.stepId}`));
      // The first listed step's segment: its number, the checkpoint it started from, and whether it started earlier.
      const first = whole[long.steps - limit]!;
      const seg = wholeSegments.find((g) => g.steps.includes(first))!;
      expect(some.firstSegment).toEqual({ n: seg.n, fromReason: seg.fromReason, partial: seg.steps[0] !== first });
      // Numbered with it, the tail's segments are the whole list's.
      expect(buildSegments(rows, some).map((g) => g.key)).toEqual(
        wholeSegments.filter((g) => g.steps.some((x) => rows.some((r) => r.runId === x.runId && r.stepId === x.stepId))).map((g) => g.key),
      );
    }
  });

  it("searches arguments and output text on the server", async () => {
    const keys = await searchSteps({ prisma, taskId: long.taskId, text: "enoent" });
    expect(keys).toHaveLength(long.failedSteps);
    expect(keys).toContain(`${long.runIds[0]}:${long.aFailedStepId}`);
    expect(await searchSteps({ prisma, taskId: long.taskId, text: "src/file-6.ts" })).toEqual(
      expect.arrayContaining([`${long.runIds[0]}:tool-6-0`, `${long.runIds[0]}:model-6`]),
    );
  });

  it("rebuilds a model step's prompt: checkpoint context first, then the segment's earlier turns", async () => {
    // The first segment of run 1 starts from the task's start; model-3 follows three turns.
    const first = await getModelPromptOrThrow({ prisma, runId: long.runIds[0], stepId: "model-3" });
    expect(first.fromCheckpoint).toBeNull();
    expect(first.contextMessages).toBe(2);
    expect(first.messages[1]!.content).toContain("<goal>Audit the licenses");
    expect(first.messages.slice(2).map((m) => m.role)).toEqual(["assistant", "tool", "assistant", "tool", "assistant", "tool"]);
    // After an interval checkpoint the context is rebuilt from it: its working set is in the opening message.
    const later = await getModelPromptOrThrow({ prisma, runId: long.runIds[0], stepId: "model-25" });
    expect(later.fromCheckpoint?.reason).toBe("interval");
    expect(later.messages[1]!.content).toContain('"fact:20"');
    expect(later.messages.length).toBeLessThan(2 + 2 * 25);
    await expect(getModelPromptOrThrow({ prisma, runId: long.runIds[0], stepId: "tool-3-0" })).rejects.toThrow(/only model steps/);
  });
});
