import { ulid } from "ulid";
import { describe, expect, it } from "vitest";
import { prismaLaunchPorts } from "../../server/db/launch-ports.ts";
import { beginStep } from "../../server/db/run-repository.ts";
import { createTemplate, launchTemplate } from "../../server/db/template-repository.ts";
import { launchTools } from "../../server/tools/launch-tools.ts";
import { WORKSPACE, type AgentStack } from "../support/agent-stack.ts";
import { useAgentStack } from "../support/fixtures.ts";

// Budgets from a template's history, applied on the real pieces (app child with agent-run, executor
// child, scripted model, PostgreSQL): a template whose completed tasks took 4, 6 and 10 steps
// launches — with the budget fields untouched, sent as `undefined` as the launch form and the CLI
// send them — with ceil(p90 9.2 × 1.25) = 12 steps; its run, which needs more, stops at 12 and the
// escalation says the task is not like the others; a budget the operator gives wins.

let stack: AgentStack;
useAgentStack((started) => (stack = started));

const suffix = ulid().toLowerCase().slice(-8);
const untouched = { stepBudget: undefined, tokenBudget: undefined, costBudgetUsd: undefined };

describe("a template launched with budgets from its history", () => {
  it("takes the history's step budget, escalates at it with the p90 in words, and an explicit budget wins", async () => {
    const name = `hist-run-${suffix}`;
    await createTemplate({ prisma: stack.db, name, launch: { demo: { kind: "license-audit", limit: 5 }, profile: "scripted", stepBudget: 400 }, actor: "t" });
    // History: three completed tasks of the template (launched, never run), of 4, 6 and 10 steps.
    const idle = prismaLaunchPorts({ prisma: stack.db, tools: launchTools, defaultWorkspace: WORKSPACE, sendRunStarted: async () => {} });
    for (const steps of [4, 6, 10]) {
      const t = await launchTemplate({ prisma: stack.db, template: name, overrides: untouched, actor: "t", ports: idle });
      for (let i = 0; i < steps; i++) await beginStep({ prisma: stack.db, runId: t.runId, stepId: `model-${i}`, index: i, kind: "model" });
      await stack.db.run.update({ where: { id: t.runId }, data: { status: "completed" } });
      await stack.db.task.update({ where: { id: t.taskId }, data: { status: "completed" } });
    }

    const live = prismaLaunchPorts({
      prisma: stack.db,
      tools: launchTools,
      defaultWorkspace: WORKSPACE,
      sendRunStarted: ({ taskId, runId }) => stack.sendEvent("longhaul/run.started", { taskId, runId }, `run-started-${runId}`),
    });
    // Tokens and dollars the operator chose (large, so the step ceiling is the one reached); steps untouched.
    const launched = await launchTemplate({
      prisma: stack.db,
      template: name,
      overrides: { ...untouched, tokenBudget: 50_000_000, costBudgetUsd: 100, launchKey: `hist-run-${suffix}` },
      actor: "t",
      ports: live,
    });
    const task = await stack.db.task.findUniqueOrThrow({ where: { id: launched.taskId } });
    expect([task.stepBudget, task.tokenBudget, Number(task.costBudgetUsd)]).toEqual([12, 50_000_000, 100]);
    expect(task.budgetBasis).toMatchObject({ source: "template", name, samples: 3, stepsP90: 9.2, ceilings: ["steps"] });

    expect(await stack.waitForTaskStatus(launched.taskId, ["waiting_for_human", "completed", "failed", "dead_end"], 120_000)).toBe("waiting_for_human");
    const esc = await stack.waitForOpenEscalation(launched.taskId);
    expect(esc.reason).toBe("budget");
    expect(esc.message).toContain("The steps budget is reached: 12 of 12.");
    expect(esc.message).toContain(
      `This task is not like the others: 12 steps against a p90 of 9.2 steps (3 completed tasks of template ${name}; ceiling p90 × 1.25).`,
    );

    // The operator's step budget wins over the history's; nothing else came from history (those runs
    // recorded no tokens or dollars, so no such ceiling is suggested), so the task records no basis.
    const chosen = await launchTemplate({ prisma: stack.db, template: name, overrides: { ...untouched, stepBudget: 300 }, actor: "t", ports: idle });
    const chosenTask = await stack.db.task.findUniqueOrThrow({ where: { id: chosen.taskId } });
    expect(chosenTask.stepBudget).toBe(300);
    expect(chosenTask.budgetBasis).toBeNull();
  }, 240_000);
});
