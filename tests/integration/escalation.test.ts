import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prismaCancelPorts } from "../../server/db/cancel-ports.ts";
import { SCENARIO_GOAL } from "../../server/db/seed.ts";
import { cancelTask } from "../../server/domain/cancel-task.ts";
import { resumeTask } from "../../server/domain/resume-task.ts";
import type { EscalationDecision } from "../../server/domain/decide-escalation.ts";
import { AppError } from "../../server/errors.ts";
import { findExecutorRuns, waitFor, type AgentStack } from "../support/agent-stack.ts";
import { testResumePorts } from "../support/checkpoint-helpers.ts";
import { startReceiver, useAgentStack, type Receiver } from "../support/fixtures.ts";

// Detectors and escalations on the real pieces (app process with the real agent-run function, the
// executor process, the scripted model, PostgreSQL). Scenarios are chosen by model name, as with any
// provider: scripted-loop, scripted-budget.

/** A local webhook receiver: what the app delivered (LONGHAUL_WEBHOOK_URL is inherited by the app child). */
let receiver: Receiver<{ text?: string; escalation?: { id: string; reason: string } }>;
beforeAll(async () => {
  receiver = await startReceiver();
  process.env.LONGHAUL_WEBHOOK_URL = `${receiver.url}/hook`;
});
afterAll(async () => {
  delete process.env.LONGHAUL_WEBHOOK_URL;
  await receiver.close();
});

let stack: AgentStack;
useAgentStack((started) => (stack = started));

async function launchScenario(profile: string): Promise<{ taskId: string; runId: string }> {
  return stack.launch({ input: { goal: SCENARIO_GOAL, profile }, actor: "escalation-test" });
}

function decide(escalationId: string, decision: EscalationDecision, extra: Record<string, unknown> = {}) {
  return stack.decide({ input: { escalationId, decision, ...extra }, actor: "handler-a" });
}

describe("escalations", () => {
  it("a loop escalates on the 3rd identical call, is resumed with guidance, and completes", async () => {
    const { taskId, runId } = await launchScenario("scripted-loop");
    expect(await stack.waitForTaskStatus(taskId, ["waiting_for_human", "completed", "failed", "dead_end"])).toBe("waiting_for_human");
    const esc = await stack.waitForOpenEscalation(taskId);
    expect(esc.reason).toBe("loop");

    // The third identical list_files call is the one that escalated: two before it, no fourth.
    const toolSteps = await stack.db.step.findMany({ where: { runId, kind: "tool" }, orderBy: { index: "asc" } });
    expect(toolSteps.map((s) => `${s.tool} ${JSON.stringify(s.arguments)}`)).toEqual(Array(3).fill('list_files {"path":"."}'));
    const alerts = await stack.db.alert.findMany({ where: { taskId, kind: "loop" }, orderBy: { createdAt: "asc" } });
    expect(alerts.map((a) => `${a.severity} ${a.stepId}`)).toEqual([`warning ${toolSteps[1]!.stepId}`, `critical ${toolSteps[2]!.stepId}`]);
    expect((await stack.db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("escalated");
    // The handlers were told, once, with a key that identifies the delivery.
    const told = await waitFor("the escalation webhook", async () => receiver.received.find((d) => d.body.escalation?.id === esc.id), 30_000, 100);
    expect(told.key).toBe(`${esc.id}:0`);
    expect(told.body.text).toContain("loop");

    await decide(esc.id, "resume", { guidance: "Stop listing the folder: read the README and finish." });
    expect(await stack.waitForTaskStatus(taskId, ["completed", "failed", "dead_end"], 60_000)).toBe("completed");
    const runs = await stack.db.run.findMany({ where: { taskId }, orderBy: { startedAt: "asc" } });
    expect(runs.map((r) => `${r.cause}:${r.status}`)).toEqual(["initial:escalated", "resume:completed"]);
    expect(runs[1]!.guidance).toBe("Stop listing the folder: read the README and finish.");
    const applied = await stack.db.escalation.findUniqueOrThrow({ where: { id: esc.id } });
    expect(applied).toMatchObject({ status: "applied", decision: "resume", decidedBy: "handler-a", resultRunId: runs[1]!.id });
    // The decision is a human step on the timeline.
    expect(await stack.db.step.count({ where: { runId, kind: "human" } })).toBe(1);
  });

  it("a budget scenario stops at exactly its step ceiling and escalates", async () => {
    const profile = await stack.db.agentProfile.findUniqueOrThrow({ where: { name: "scripted-budget" } });
    const { taskId } = await launchScenario("scripted-budget");
    expect(await stack.waitForTaskStatus(taskId, ["waiting_for_human", "completed", "failed"])).toBe("waiting_for_human");
    const esc = await stack.waitForOpenEscalation(taskId);
    expect(esc.reason).toBe("budget");
    const used = await stack.db.step.count({ where: { run: { taskId }, kind: { in: ["model", "tool"] } } });
    expect(used).toBe(profile.stepBudget);
    const runs = await stack.db.run.findMany({ where: { taskId } });
    expect(runs.map((r) => `${r.status}:${r.endReason}`)).toEqual(["escalated:budget_exhausted"]);
  });

  it("a decision sent right after the escalation opens is applied once, and a concurrent second decision is refused", async () => {
    const { taskId } = await launchScenario("scripted-loop");
    const esc = await stack.waitForOpenEscalation(taskId); // decide as soon as the row exists, racing the run's wait
    const [first, second] = await Promise.allSettled([
      decide(esc.id, "dead_end", { deadEndReason: "the folder listing is all there is" }),
      decide(esc.id, "resume", { guidance: "try again" }),
    ]);
    const outcomes = [first, second].map((r) => r.status);
    expect(outcomes.sort()).toEqual(["fulfilled", "rejected"]);
    const rejected = [first, second].find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(AppError);
    expect((rejected.reason as AppError).code).toBe("CONFLICT");
    const winner = (await stack.db.escalation.findUniqueOrThrow({ where: { id: esc.id } })).decision;
    const expected = winner === "dead_end" ? "dead_end" : "completed";
    expect(await stack.waitForTaskStatus(taskId, ["dead_end", "completed", "cancelled"], 60_000)).toBe(expected);
    await waitFor(
      "the decision applied",
      async () => ((await stack.db.escalation.findUniqueOrThrow({ where: { id: esc.id } })).status === "applied" ? true : undefined),
      30_000,
      100,
    );
    expect(await stack.db.run.count({ where: { taskId } })).toBe(winner === "dead_end" ? 1 : 2);
  });

  it("cancelling a task that waits for a human closes its escalation: a later Resume is refused and the task stays cancelled", async () => {
    const { taskId, runId } = await launchScenario("scripted-loop");
    const esc = await stack.waitForOpenEscalation(taskId);
    const ports = prismaCancelPorts({ prisma: stack.db, sendRunCancelled: (e) => stack.sendEvent("longhaul/run.cancelled", e, `run-cancelled-${e.runId}`) });
    await expect(cancelTask({ taskId, actor: "operator-z", ports })).resolves.toMatchObject({ status: "cancelled", cancelledRuns: [runId] });
    const cancelledAt = new Date();
    expect(await stack.db.escalation.findUniqueOrThrow({ where: { id: esc.id } })).toMatchObject({
      status: "applied",
      decision: "cancel",
      decidedBy: "operator-z",
    });
    const refused = await decide(esc.id, "resume", { guidance: "carry on" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).message).toMatch(/cancel by operator-z was already applied/);
    expect(await stack.db.run.count({ where: { taskId } })).toBe(1);
    expect((await stack.db.task.findUniqueOrThrow({ where: { id: taskId } })).status).toBe("cancelled");
    // The escalated run's function run ends either way, never waiting on: cancelled by the executor
    // (cancelOn) while it waits for the decision, or — when it had not reached its wait yet — by its
    // own `decision-*` step reading the applied cancel and returning. Which one wins is a race.
    const ended = await stack.waitForExecutorRun(runId);
    if (ended !== "cancelled") {
      expect(ended).toBe("completed");
      const last = (await findExecutorRuns(stack.db, runId)).at(-1);
      expect(last?.output).toMatchObject({ status: "escalated", escalationId: esc.id, decision: "cancel" });
    }
    expect(await stack.db.run.count({ where: { taskId } })).toBe(1);
    expect(await stack.db.modelCall.count({ where: { run: { taskId }, createdAt: { gt: cancelledAt } } })).toBe(0);
  });

  it("a resume started from the checkpoints tab while an escalation is open answers it: a later decision is refused, one new run", async () => {
    const { taskId } = await launchScenario("scripted-loop");
    const esc = await stack.waitForOpenEscalation(taskId);
    const resumed = await resumeTask({
      taskId,
      guidance: "list the files once, then read the README",
      cause: "resume",
      actor: "operator-y",
      ports: testResumePorts(stack),
    });
    expect(await stack.db.escalation.findUniqueOrThrow({ where: { id: esc.id } })).toMatchObject({
      status: "applied",
      decision: "resume",
      decidedBy: "operator-y",
      resultRunId: resumed.runId,
    });
    const refused = await decide(esc.id, "resume", { guidance: "again" }).catch((e: unknown) => e);
    expect((refused as AppError).code).toBe("CONFLICT");
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    expect(await stack.db.run.count({ where: { taskId } })).toBe(2);
  });
});
