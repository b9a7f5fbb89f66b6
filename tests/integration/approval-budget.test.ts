import { describe, expect, it } from "vitest";
import type { EscalationDecision } from "../../server/domain/decide-escalation.ts";
import { expectedLicenseCsv } from "../../server/tools/demo/license-audit.ts";
import { loadRunEvidence, waitFor, WORKSPACE, type AgentStack } from "../support/agent-stack.ts";
import { useAgentStack } from "../support/fixtures.ts";

// Risky actions and dollar ceilings on the real pieces (app process with agent-run, executor process,
// scripted model, PostgreSQL): send_email is a risky tool — the run checkpoints before it and, when
// the task requires approval, asks a human first; a task's dollar budget stops the run at its ceiling.

const LIMIT = 5;
let stack: AgentStack;
useAgentStack((started) => (stack = started));

const launch = (extra: Record<string, unknown>) => stack.launch({ input: { demo: { kind: "license-audit", limit: LIMIT }, ...extra }, actor: "approval-test" });

function decide(escalationId: string, decision: EscalationDecision, extra: Record<string, unknown> = {}) {
  return stack.decide({ input: { escalationId, decision, ...extra }, actor: "handler-b" });
}

/** Launches the demo requiring approval and waits for its risky_action escalation; checks what it holds. */
async function untilApprovalAsked() {
  const { taskId, runId } = await launch({ requireApproval: true });
  expect(await stack.waitForTaskStatus(taskId, ["waiting_for_human", "completed", "failed", "dead_end"])).toBe("waiting_for_human");
  const escalation = await stack.db.escalation.findFirstOrThrow({ where: { taskId } });
  const evidence = escalation.evidence as { tool?: string; arguments?: { to?: string; subject?: string }; fingerprint?: string };
  expect({ reason: escalation.reason, status: escalation.status, tool: evidence.tool, to: evidence.arguments?.to }).toEqual({
    reason: "risky_action",
    status: "open",
    tool: "send_email",
    to: "compliance@example.com",
  });
  expect(escalation.fingerprint).toBe(evidence.fingerprint);
  expect(escalation.message).toMatch(/^Approval needed: send_email\(to: "compliance@example\.com", subject: "License audit: 5 packages", body: <\d+ chars>\)$/);
  // The run checkpointed right before the call and escalated from that checkpoint; nothing was sent.
  const checkpoint = await stack.db.checkpoint.findUniqueOrThrow({ where: { id: escalation.checkpointId! } });
  expect(checkpoint).toMatchObject({ reason: "before_risky", runId });
  expect(checkpoint.openQuestion).toMatch(/^About to run the risky action send_email\(to: "/);
  expect(await stack.db.outboxMessage.count({ where: { taskId } })).toBe(0);
  const run = await stack.db.run.findUniqueOrThrow({ where: { id: runId } });
  expect(run.status).toBe("escalated");
  return { taskId, runId, escalation, checkpoint };
}

describe("risky actions", () => {
  it("approved: the run resumes from the checkpoint before the email, sends it once, and completes", async () => {
    const { taskId, runId, escalation, checkpoint } = await untilApprovalAsked();
    await decide(escalation.id, "approve");
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    expect(await stack.db.task.findUniqueOrThrow({ where: { id: taskId } })).toMatchObject({ outcome: "completed", result: { summary: expect.any(String) } });

    const runs = await stack.db.run.findMany({ where: { taskId }, orderBy: { startedAt: "asc" } });
    expect(runs.map((r) => `${r.cause} ${r.status}`)).toEqual(["initial escalated", "resume completed"]);
    expect(runs[1]!.fromCheckpointId).toBe(checkpoint.id);
    expect(runs[1]!.guidance).toMatch(/approved by handler-b/);
    // One escalation only: the resumed run recognised the approved call by its fingerprint.
    expect(await stack.db.escalation.count({ where: { taskId } })).toBe(1);
    const resumed = await loadRunEvidence(stack.db, { taskId, runId: runs[1]!.id });
    expect(resumed.outbox).toHaveLength(1);
    expect(resumed.steps.filter((s) => s.tool === "send_email").map((s) => s.status)).toEqual(["completed"]);
    expect(resumed.csv).toBe(await expectedLicenseCsv(WORKSPACE, LIMIT));
    // The first run never ran the email step.
    const first = await loadRunEvidence(stack.db, { taskId, runId });
    expect(first.steps.filter((s) => s.tool === "send_email")).toEqual([]);
  });

  it("rejected: the call is refused without running, the agent finishes without it, nothing is sent", async () => {
    const { taskId, escalation } = await untilApprovalAsked();
    await decide(escalation.id, "reject", { guidance: "not to that address" });
    const status = await stack.waitForTaskStatus(taskId);
    expect(status).toBe("completed");
    const task = await stack.db.task.findUniqueOrThrow({ where: { id: taskId } });
    expect(JSON.stringify(task.result)).toContain("was not sent (rejected by a handler)");
    // Completed, with what was not done: the task list and /costs can tell it from a full success.
    expect(task.outcome).toBe("completed_with_gaps");
    expect((task.result as { gaps?: string[] }).gaps).toEqual([
      expect.stringMatching(/^the summary email to .+ was not sent: send_email was rejected by handler-\w+ and not run: not to that address$/),
    ]);
    const runs = await stack.db.run.findMany({ where: { taskId }, orderBy: { startedAt: "asc" } });
    const resumed = await loadRunEvidence(stack.db, { taskId, runId: runs[1]!.id });
    const refusals = resumed.steps.filter((s) => s.tool === "send_email");
    expect(refusals).toHaveLength(1);
    expect(refusals.every((s) => s.status === "failed" && JSON.stringify(s.output).includes("rejected_by_human"))).toBe(true);
    expect(resumed.csv).toBe(await expectedLicenseCsv(WORKSPACE, LIMIT));
    expect(JSON.stringify(refusals[0]!.output)).toContain("not to that address");
    expect(await stack.db.outboxMessage.count({ where: { taskId } })).toBe(0);
    expect(await stack.db.sideEffect.count({ where: { taskId } })).toBe(0);
    expect(await stack.db.escalation.count({ where: { taskId } })).toBe(1);
  });

  it("without approval required, the run checkpoints before the email and goes straight on", async () => {
    const { taskId, runId } = await launch({});
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    expect(await stack.db.escalation.count({ where: { taskId } })).toBe(0);
    const reasons = (await stack.db.checkpoint.findMany({ where: { taskId }, orderBy: { seq: "asc" } })).map((c) => c.reason);
    expect(reasons.filter((r) => r === "before_risky")).toHaveLength(1);
    expect((await loadRunEvidence(stack.db, { taskId, runId })).outbox).toHaveLength(1);
  });
});

describe("dollar ceiling", () => {
  it("stops at the task's dollar budget, overshooting by at most the call in flight, and escalates", async () => {
    // The scripted profile's notional prices make a 5-package audit cost a few tenths of a cent.
    const costBudgetUsd = 0.002;
    const { taskId, runId } = await launch({ costBudgetUsd });
    expect(await stack.waitForTaskStatus(taskId, ["waiting_for_human", "completed", "failed", "dead_end"])).toBe("waiting_for_human");
    const escalation = await stack.db.escalation.findFirstOrThrow({ where: { taskId } });
    const ceiling = (escalation.evidence as { ceiling?: { kind: string; used: number; limit: number } }).ceiling;
    expect({ reason: escalation.reason, kind: ceiling?.kind, limit: ceiling?.limit }).toEqual({ reason: "budget", kind: "cost", limit: costBudgetUsd });
    expect(escalation.message).toMatch(/dollar budget is reached: \$0\.\d{6} of \$0\.002000/);
    const run = await stack.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect({ status: run.status, endReason: run.endReason }).toEqual({ status: "escalated", endReason: "budget_exhausted" });

    // Spend before the last model call was under the budget; with it, at or over (the call in flight).
    const calls = await waitFor("model calls recorded", async () => {
      const rows = await stack.db.modelCall.findMany({ where: { runId }, orderBy: { createdAt: "asc" }, select: { costUsd: true, stepId: true } });
      return rows.length ? rows : undefined;
    });
    const total = calls.reduce((sum, c) => sum + Number(c.costUsd), 0);
    const beforeLast = total - Number(calls.at(-1)!.costUsd);
    expect(beforeLast).toBeLessThan(costBudgetUsd);
    expect(total).toBeGreaterThanOrEqual(costBudgetUsd);
    expect(ceiling!.used).toBeCloseTo(total, 8);
    // No model call after the ceiling was reached.
    expect(calls.at(-1)!.stepId).toMatch(/^model-\d+$/);
    expect(escalation.stepId).toBe(`escalate-${Number(calls.at(-1)!.stepId.split("-")[1]) + 1}`);
  });
});
