import { expect } from "vitest";
import { waitFor, type AgentStack } from "./agent-stack.ts";

/**
 * Launches the license-audit demo (`limit` packages) requiring approval as `actor`, waits for its
 * `risky_action` escalation (the email) and for the escalated run to wait on the decision (its read
 * of the row is behind it, so only the path under test applies the decision: the waiting run's own
 * safety net applies a decision it reads as due). Returns the task, the escalated run and the escalation row.
 */
export async function launchUntilApprovalAsked(stack: AgentStack, { limit, actor }: { limit: number; actor: string }) {
  const { taskId, runId } = await stack.launch({ input: { demo: { kind: "license-audit", limit }, requireApproval: true }, actor });
  expect(await stack.waitForTaskStatus(taskId, ["waiting_for_human", "completed", "failed", "dead_end"])).toBe("waiting_for_human");
  const escalation = await stack.db.escalation.findFirstOrThrow({ where: { taskId } });
  expect({ reason: escalation.reason, status: escalation.status }).toEqual({ reason: "risky_action", status: "open" });
  await waitFor(
    "the escalated run to wait for the decision",
    async () =>
      (await stack.db.executorPause.count({ where: { kind: "wait", event: "longhaul/escalation.applied", expression: { contains: escalation.id } } })) === 1,
    60_000,
    100,
  );
  return { taskId, runId, escalation };
}
