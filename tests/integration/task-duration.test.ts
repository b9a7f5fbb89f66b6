import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runClock } from "../../lib/contracts/run-clock.ts";
import { taskSummaryJson } from "../../scripts/lib/cli-task.ts";
import { createPrismaClient } from "../../server/db/client.ts";
import { getTaskDetailOrThrow, listTasks } from "../../server/db/task-queries.ts";
import { testDatabaseUrl } from "../support/database.ts";

// One duration everywhere: a task that ran 60 s, waited 840 s for a human, then ran
// 95 s more has a duration of 155 s — in the task list's Duration column and the CLI's `durationMs`
// as in the run page's header (one formula, lib/contracts/run-clock.ts) — and the wait apart.

const prisma = createPrismaClient(testDatabaseUrl());
afterAll(() => prisma.$disconnect());

const tag = `dur${Date.now().toString(36)}`;
const taskId = `${tag}-t1`;
const T0 = Date.UTC(2026, 11, 3, 10, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000);

beforeAll(async () => {
  const profile = await prisma.agentProfile.create({ data: { name: `duration-${tag}`, model: `model-${tag}`, tools: [] } });
  await prisma.task.create({
    data: {
      id: taskId,
      goal: "wait for a human",
      profileId: profile.id,
      stepBudget: 40,
      workspace: "/tmp",
      status: "completed",
      startedAt: at(0),
      endedAt: at(1000),
    },
  });
  await prisma.run.create({ data: { id: `${taskId}-r1`, taskId, status: "escalated", startedAt: at(0), endedAt: at(60) } });
  await prisma.escalation.create({
    data: {
      id: `${taskId}-e1`,
      taskId,
      runId: `${taskId}-r1`,
      stepId: "model-3",
      reason: "request_human",
      message: "which license?",
      dueAt: at(3660),
      status: "applied",
      decision: "resume",
      createdAt: at(60),
      decidedAt: at(900),
      appliedAt: at(905),
    },
  });
  await prisma.run.create({ data: { id: `${taskId}-r2`, taskId, cause: "resume", status: "completed", startedAt: at(905), endedAt: at(1000) } });
});

describe("a task's duration leaves out the time it waited for a human", () => {
  it("the task list's Duration column: 155 s active, 840 s waiting apart", async () => {
    const { rows } = await listTasks({ prisma, q: taskId });
    expect(rows).toHaveLength(1);
    const clock = runClock(rows[0]!, at(5000).getTime());
    expect([clock.activeMs, clock.waitingMs]).toEqual([155_000, 840_000]);
  });

  it("the CLI's durationMs is the active time, waitingMs the wait", async () => {
    const detail = await getTaskDetailOrThrow({ prisma, taskId });
    const cli = taskSummaryJson(detail, at(5000));
    expect([cli.durationMs, cli.waitingMs]).toEqual([155_000, 840_000]);
  });
});
