import { inngest } from "./client.ts";
import { escalationDecided, runCancelled, runStarted } from "./events.ts";

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

/** Sends `longhaul/escalation.decided` (the waiting run matches it on escalationId). */
export async function sendEscalationDecided({ escalationId, decision }: { escalationId: string; decision: "resume" | "approve" | "reject" | "dead_end" | "cancel" }): Promise<void> {
  await inngest.send(escalationDecided.create({ escalationId, decision }));
}
