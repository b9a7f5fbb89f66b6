import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "../../server/db/client.ts";
import { costRollup, taskCostRows } from "../../server/db/cost-queries.ts";
import { beginStep, taskUsage } from "../../server/db/run-repository.ts";
import { taskStepCounts } from "../../server/db/step-counts.ts";
import { getTaskDetailOrThrow, listTasks } from "../../server/db/task-queries.ts";
import { costFiltersSchema } from "../../server/domain/cost-rollup.ts";
import { BUDGET_STEP_KINDS, isBudgetStepKind } from "../../lib/contracts/step-count.ts";
import { taskListJson, taskSummaryJson } from "../../scripts/lib/cli-task.ts";
import { testDatabaseUrl } from "../support/database.ts";

// One step count everywhere: a completed task of two runs with 4 model and 3 tool steps
// (the budget's 7), 2 checkpoint steps and 1 human step shows 7 budget steps — with 2 checkpoints and
// 1 human step counted apart — through task.get, task.list, the ceiling, /costs (rollup median and
// per-task rows) and the CLI's JSON, all counted by the one SQL rule longhaul_budget_step.

const prisma = createPrismaClient(testDatabaseUrl());
afterAll(() => prisma.$disconnect());

const tag = `stc${Date.now().toString(36)}`;
const taskId = `${tag}-t1`;
const profileName = `steps-${tag}`;

beforeAll(async () => {
  const profile = await prisma.agentProfile.create({ data: { name: profileName, model: `model-${tag}`, tools: [] } });
  await prisma.task.create({ data: { id: taskId, goal: "count steps", profileId: profile.id, stepBudget: 40, workspace: "/tmp", status: "running" } });
  const runs = [`${taskId}-r1`, `${taskId}-r2`];
  for (const id of runs) await prisma.run.create({ data: { id, taskId } });
  const steps: [string, string, "model" | "tool" | "checkpoint" | "human"][] = [
    [runs[0]!, "model-0", "model"],
    [runs[0]!, "tool-0-0", "tool"],
    [runs[0]!, "tool-0-1", "tool"],
    [runs[0]!, "checkpoint-1", "checkpoint"],
    [runs[0]!, "model-1", "model"],
    [runs[1]!, "human-1", "human"],
    [runs[1]!, "model-2", "model"],
    [runs[1]!, "tool-2-0", "tool"],
    [runs[1]!, "checkpoint-3", "checkpoint"],
    [runs[1]!, "model-3", "model"],
  ];
  let index = 0;
  for (const [runId, stepId, kind] of steps) await beginStep({ prisma, runId, stepId, index: index++, kind });
  // A re-executed step is one step, not two.
  await beginStep({ prisma, runId: runs[0]!, stepId: "model-0", index: 0, kind: "model" });
  await prisma.task.update({ where: { id: taskId }, data: { status: "completed" } });
});

describe("one step count everywhere", () => {
  it("the SQL rule and the client's list of budget step kinds agree", async () => {
    const rows = await prisma.$queryRaw<{ kind: string; budget: boolean }[]>`
      SELECT k AS kind, longhaul_budget_step(k) AS budget FROM unnest(ARRAY['model', 'tool', 'checkpoint', 'human']) AS k`;
    expect(rows.filter((r) => r.budget).map((r) => r.kind)).toEqual([...BUDGET_STEP_KINDS]);
    expect(rows.map((r) => isBudgetStepKind(r.kind))).toEqual(rows.map((r) => r.budget));
  });

  it("shows 7 budget steps, 2 checkpoints and 1 human step through task.get, task.list, the ceiling, /costs and the CLI", async () => {
    expect(await taskStepCounts({ prisma, taskId })).toEqual({ budget: 7, checkpoints: 2, human: 1 });

    const detail = await getTaskDetailOrThrow({ prisma, taskId });
    expect([detail.usage.steps, detail.usage.checkpointSteps, detail.usage.humanSteps]).toEqual([7, 2, 1]);
    // The step active last, of any kind (none has ended, so the one started last).
    expect(detail.usage.lastStep).toMatchObject({ runId: `${taskId}-r2`, stepId: "model-3" });

    const list = await listTasks({ prisma, q: taskId });
    expect(list.rows.map((r) => [r.id, r.stepsUsed, r.checkpointSteps, r.humanSteps])).toEqual([[taskId, 7, 2, 1]]);

    expect((await taskUsage({ prisma, taskId })).steps).toBe(7);

    const filters = costFiltersSchema.parse({ profile: profileName });
    const rows = await taskCostRows({ prisma, filters });
    expect(rows.map((r) => [r.taskId, r.steps, r.checkpointSteps, r.humanSteps])).toEqual([[taskId, 7, 2, 1]]);
    // The summary's repair path (longhaul_task_cost_rebuild) counts the same.
    await prisma.$queryRaw`SELECT longhaul_task_cost_rebuild()`;
    expect((await taskCostRows({ prisma, filters })).map((r) => [r.steps, r.checkpointSteps, r.humanSteps])).toEqual([[7, 2, 1]]);
    const rollup = await costRollup({ prisma, filters });
    expect([rollup.headline.completed, rollup.headline.stepsMedian]).toEqual([1, 7]);

    const cli = taskSummaryJson(detail);
    expect([cli.steps, cli.checkpointSteps, cli.humanSteps, cli.budgets.steps]).toEqual([7, 2, 1, 40]);
    expect(taskListJson(list.rows[0]!)).toEqual({ id: taskId, status: "completed", steps: 7, checkpointSteps: 2, humanSteps: 1, evalRunId: null });
  });

  it("task.get says what happens when an open escalation's wait times out", async () => {
    const createdAt = new Date(Date.UTC(2026, 11, 3, 9, 0, 0));
    await prisma.escalation.create({
      data: {
        id: `${tag}-e1`,
        taskId,
        runId: `${taskId}-r2`,
        stepId: "model-3",
        reason: "loop",
        message: "m",
        dueAt: new Date(createdAt.getTime() + 3_600_000),
        createdAt,
      },
    });
    const e = (await getTaskDetailOrThrow({ prisma, taskId })).escalations.find((x) => x.id === `${tag}-e1`)!;
    // The profile's defaults: 60 min per round, no chain (the reminder goes to the same role); 4 reminders in all.
    expect(e.timeout).toEqual({
      reminders: 4,
      remindersSent: 0,
      nextReminder: 1,
      nextRole: e.assigneeRole,
      nextTimeoutAt: new Date(createdAt.getTime() + 3_600_000),
      rearmMinutes: 60,
    });
    expect([e.decidedAt, e.appliedAt]).toEqual([null, null]);
  });
});
