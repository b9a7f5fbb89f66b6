import { describe, expect, it } from "vitest";
import { getEscalationCardOrThrow } from "../../server/db/escalation-queries.ts";
import { SCENARIO_GOAL } from "../../server/db/seed.ts";
import { listWorkingSetHistory } from "../../server/db/working-set-queries.ts";
import { AppError } from "../../server/errors.ts";
import type { AgentStack } from "../support/agent-stack.ts";
import { useAgentStack } from "../support/fixtures.ts";

// A handler's Resume with a dollar raise and fact edits, on the real pieces (app process with
// agent-run, executor process, scripted model, PostgreSQL): a demo stopped at its dollar ceiling
// resumes with more dollars and an edited fact, and completes from a human_edit checkpoint holding
// the edit; a dollar raise for a task without a dollar budget is refused before anything is recorded.

let stack: AgentStack;
useAgentStack((started) => (stack = started));

const launch = (input: Record<string, unknown>) => stack.launch({ input, actor: "budget-test" });
const decide = (input: Record<string, unknown>) => stack.decide({ input, actor: "handler-usd" });

describe("resume with a dollar raise and fact edits", () => {
  it("a demo stopped at its dollar ceiling resumes with $1 more and an edited fact, from a human_edit checkpoint holding it, and completes", async () => {
    const costBudgetUsd = 0.002;
    const { taskId, runId } = await launch({ demo: { kind: "license-audit", limit: 5 }, costBudgetUsd, facts: { "launch:note": "from the launch" } });
    expect(await stack.waitForTaskStatus(taskId, ["waiting_for_human", "completed", "failed", "dead_end"])).toBe("waiting_for_human");
    const esc = await stack.db.escalation.findFirstOrThrow({ where: { taskId } });
    expect(esc.reason).toBe("budget");
    expect(esc.checkpointId).not.toBeNull();

    // The card names the ceiling and shows dollars and tokens against the budgets.
    const card = await getEscalationCardOrThrow({ prisma: stack.db, escalationId: esc.id });
    expect(card.ceiling).toMatchObject({ kind: "cost", limit: costBudgetUsd });
    expect(card.ceiling!.used).toBeGreaterThanOrEqual(costBudgetUsd);
    expect(card.spend).toMatchObject({ costBudgetUsd, tokenBudget: null });
    expect(card.spend.usd).toBeCloseTo(card.ceiling!.used, 6);
    expect(card.spend.tokens).toBeGreaterThan(0);
    const before = card.checkpoint!.workingSet;
    expect(before).toMatchObject({ "launch:note": "from the launch" });

    // An edit of a fact of the working set, and a new one.
    const editedKey = "launch:note";
    const factEdits = { [editedKey]: { edited: true, by: "handler-usd" }, "handler:note": "checked by hand" };
    await decide({ escalationId: esc.id, decision: "resume", budgetIncrease: { usd: 1 }, factEdits, guidance: "Go on." });

    const applied = await stack.db.escalation.findUniqueOrThrow({ where: { id: esc.id } });
    expect(applied).toMatchObject({ status: "applied", decision: "resume", budgetIncrease: { usd: 1 } });
    const task = await stack.db.task.findUniqueOrThrow({ where: { id: taskId } });
    expect(task.costBudgetUsd?.toFixed(6)).toBe("1.002000");

    // Without the raise the resumed run would stop again at once; with it, it completes.
    expect(await stack.waitForTaskStatus(taskId, ["completed", "failed", "dead_end", "waiting_for_human"], 90_000)).toBe("completed");
    expect(await stack.db.escalation.count({ where: { taskId } })).toBe(1);
    const runs = await stack.db.run.findMany({ where: { taskId }, orderBy: { startedAt: "asc" } });
    expect(runs.map((r) => `${r.cause}:${r.status}`)).toEqual(["initial:escalated", "resume:completed"]);

    // The resumed run started from a human_edit checkpoint: the escalation's working set with the edits over it.
    const from = await stack.db.checkpoint.findUniqueOrThrow({ where: { id: runs[1]!.fromCheckpointId! } });
    expect(from).toMatchObject({ reason: "human_edit", afterStepId: `human-${esc.stepId}`, runId });
    expect(from.workingSet).toEqual({ ...before, ...factEdits });
    expect(applied.fromCheckpointForResult).toBe(from.id);

    // Its first working set (the run start's replay) holds the edits, blamed on the human step.
    const { changes } = await listWorkingSetHistory({ prisma: stack.db, taskId, limit: 500 });
    const human = changes.filter((c) => c.cause === "human_edit");
    expect(human.map((c) => [c.key, c.after])).toEqual(
      Object.entries(factEdits)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => [k, v]),
    );
    // The resumed run's start did not set the edited fact back (its start replays the human_edit checkpoint).
    expect(changes.filter((c) => c.runId === runs[1]!.id && c.cause === "run_start" && c.key in factEdits)).toEqual([]);
  });

  it("a dollar raise for a task without a dollar budget is refused BAD_INPUT and nothing is recorded; a token raise keeps no token ceiling", async () => {
    const { taskId } = await launch({ goal: SCENARIO_GOAL, profile: "scripted-loop" });
    expect(await stack.waitForTaskStatus(taskId, ["waiting_for_human", "completed", "failed", "dead_end"])).toBe("waiting_for_human");
    const esc = await stack.waitForOpenEscalation(taskId);
    const task = await stack.db.task.findUniqueOrThrow({ where: { id: taskId } });
    expect({ costBudgetUsd: task.costBudgetUsd, tokenBudget: task.tokenBudget }).toEqual({ costBudgetUsd: null, tokenBudget: null });

    const refused = await decide({ escalationId: esc.id, decision: "resume", budgetIncrease: { usd: 5 } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({
      code: "BAD_INPUT",
      message: `budgetIncrease.usd: task ${taskId} has no dollar budget, so there is no dollar ceiling to raise; leave it out`,
    });
    expect(await stack.db.escalation.findUniqueOrThrow({ where: { id: esc.id } })).toMatchObject({ status: "open", decision: null, budgetIncrease: null });

    await decide({
      escalationId: esc.id,
      decision: "resume",
      budgetIncrease: { steps: 7, tokens: 5_000 },
      guidance: "Stop listing the folder: read the README and finish.",
    });
    const after = await stack.db.task.findUniqueOrThrow({ where: { id: taskId } });
    expect({ stepBudget: after.stepBudget, tokenBudget: after.tokenBudget, costBudgetUsd: after.costBudgetUsd }).toEqual({
      stepBudget: task.stepBudget + 7,
      tokenBudget: null,
      costBudgetUsd: null,
    });
    expect(await stack.waitForTaskStatus(taskId, ["completed", "failed", "dead_end"], 60_000)).toBe("completed");
  });
});
