import { inngest } from "./client.ts";
import { batchItemRequested, escalationApplied, escalationDecided, evalStarted, runCancelled, runStarted } from "./events.ts";

/**
 * Sends `longhaul/run.started`. The event id is the run id, so a retried send is deduplicated by the
 * executor (Inngest: a user-supplied `id` dedupes for 24 h, docs/INNGEST-PROTOCOL.md §2.10).
 */
export async function sendRunStarted({ taskId, runId, checkpointId = null }: { taskId: string; runId: string; checkpointId?: string | null }): Promise<void> {
  await inngest.send(runStarted.create({ taskId, runId, checkpointId }, { id: `run-started-${runId}` }));
}

/** Sends `longhaul/run.cancelled` (matched by agent-run's cancelOn on data.runId). */
export async function sendRunCancelled({ taskId, runId }: { taskId: string; runId: string }): Promise<void> {
  await inngest.send(runCancelled.create({ taskId, runId }, { id: `run-cancelled-${runId}` }));
}

type Decision = "resume" | "approve" | "reject" | "dead_end" | "cancel";

/**
 * Sends `longhaul/escalation.decided`; with `applyAt` (ISO, end of the undo window) `escalation-apply`
 * applies it then. Event id `escalation-decided-<escalationId>-<applyAt ms>`: one decision (a retried
 * send dedupes), while a decision made again after an undo has a new window and so a new id.
 */
export async function sendEscalationDecided({
  escalationId,
  decision,
  applyAt,
}: {
  escalationId: string;
  decision: Decision;
  applyAt?: string;
}): Promise<void> {
  const id = applyAt ? `escalation-decided-${escalationId}-${new Date(applyAt).getTime()}` : undefined;
  await inngest.send(escalationDecided.create({ escalationId, decision, ...(applyAt ? { applyAt } : {}) }, id ? { id } : undefined));
}

/** Sends `longhaul/escalation.applied` (the escalated run waiting on it matches escalationId and ends). */
export async function sendEscalationApplied({ escalationId, decision }: { escalationId: string; decision: Decision }): Promise<void> {
  await inngest.send(escalationApplied.create({ escalationId, decision }));
}

/** Events per send request when a batch asks for its items (the executor takes a batch of events in one POST). */
const BATCH_SEND_CHUNK = 100;

/** Sends one `longhaul/batch.item.requested` per task, in chunks; ids `batch-item-<batchId>-<taskId>` make a resend a no-op. */
export async function sendBatchItems(batchId: string, taskIds: readonly string[]): Promise<void> {
  for (let i = 0; i < taskIds.length; i += BATCH_SEND_CHUNK) {
    const chunk = taskIds.slice(i, i + BATCH_SEND_CHUNK);
    await inngest.send(chunk.map((taskId) => batchItemRequested.create({ batchId, taskId }, { id: `batch-item-${batchId}-${taskId}` })));
  }
}

/** Sends `longhaul/eval.started`; event id `eval-started-<evalRunId>`, so a retried send starts one `eval-run`. */
export async function sendEvalStarted({ evalRunId }: { evalRunId: string }): Promise<void> {
  await inngest.send(evalStarted.create({ evalRunId }, { id: `eval-started-${evalRunId}` }));
}
