import { inngest } from "./client.ts";
import { escalationApplied, escalationDecided, runCancelled, runStarted } from "./events.ts";

/**
 * Sends `longhaul/run.started`. The event id is the run id, so a retried send is deduplicated by the
 * executor (Inngest: a user-supplied `id` dedupes for 24 h, INNGEST-PROTOCOL.md §2.10).
 */
export async function sendRunStarted({ taskId, runId, checkpointId = null }: { taskId: string; runId: string; checkpointId?: string | null }): Promise<void> {
  await inngest.send(runStarted.create({ taskId, runId, checkpointId }, { id: `run-started-${runId}` }));
}

/** Sends `longhaul/run.cancelled` (matched by agent-run's cancelOn on data.runId). */
export async function sendRunCancelled({ taskId, runId }: { taskId: string; runId: string }): Promise<void> {
  await inngest.send(runCancelled.create({ taskId, runId }, { id: `run-cancelled-${runId}` }));
}

type Decision = "resume" | "approve" | "reject" | "dead_end" | "cancel";

/** Sends `longhaul/escalation.decided`; with `applyAt` (end of the undo window) `escalation-apply` applies it then. */
export async function sendEscalationDecided({ escalationId, decision, applyAt }: { escalationId: string; decision: Decision; applyAt?: string }): Promise<void> {
  await inngest.send(escalationDecided.create({ escalationId, decision, ...(applyAt ? { applyAt } : {}) }));
}

/** Sends `longhaul/escalation.applied` (the escalated run waiting on it matches escalationId and ends). */
export async function sendEscalationApplied({ escalationId, decision }: { escalationId: string; decision: Decision }): Promise<void> {
  await inngest.send(escalationApplied.create({ escalationId, decision }));
}
