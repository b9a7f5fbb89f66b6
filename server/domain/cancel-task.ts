import type { TERMINAL_TASK_STATUSES } from "../../lib/contracts/status.ts";
import { AppError } from "../errors.ts";

/** Task statuses after which a task never runs again (lib/contracts/status.ts TERMINAL_TASK_STATUSES). */
export type EndedTaskStatus = (typeof TERMINAL_TASK_STATUSES)[number];

/** What the guarded cancel write found. */
export type CancelWriteOutcome =
  /** The task was live: it is now cancelled, and so are these runs (those that were running or escalated). */
  | { kind: "cancelled"; runIds: string[] }
  /** The task had already ended with `status`; nothing was written. `runIds`: runs a user cancel ended (`cancelled_by_user`), when `status` is cancelled. */
  | { kind: "ended"; status: EndedTaskStatus; runIds: string[] }
  | { kind: "not_found" };

export interface CancelPorts {
  /**
   * Guarded write: task → cancelled unless it has ended; its running/escalated runs → cancelled
   * (`cancelled_by_user`). One transaction; a duplicate or concurrent call finds the task ended.
   */
  cancelTaskAndRuns(taskId: string, actor: string): Promise<CancelWriteOutcome>;
  /** Tells the executor (`longhaul/run.cancelled`, event id per run, so a repeat is deduplicated). */
  sendRunCancelled(event: { taskId: string; runId: string }): Promise<void>;
}

/** Result of `cancelTask`: the task's status (always cancelled), the runs this call cancelled, and a note when nothing changed. */
export interface CancelTaskResult {
  taskId: string;
  status: "cancelled";
  /** Runs this call moved to cancelled; empty when the task was already cancelled. */
  cancelledRuns: string[];
  alreadyCancelled: boolean;
  /** "already cancelled" when the task was cancelled before this call (nothing changed). */
  note?: string;
}

/**
 * Cancels a task: marks it and its running run cancelled (`cancelled_by_user`) with a guarded write,
 * then tells the executor (`longhaul/run.cancelled`, matched by the function's cancelOn).
 *
 * Idempotent: cancelling a task that is already cancelled changes nothing and returns
 * `{ alreadyCancelled: true, cancelledRuns: [], note: "already cancelled" }`; it re-sends the
 * (deduplicated) cancel events of the runs a user cancel ended, so a retry after a send that failed
 * still reaches the executor.
 *
 * @throws AppError NOT_FOUND (no such task); CONFLICT naming the status when the task already ended
 *   otherwise (completed, dead_end, failed) — there is nothing left to cancel; whatever
 *   `sendRunCancelled` throws (the task stays cancelled; calling again re-sends).
 */
export async function cancelTask({ taskId, actor, ports }: { taskId: string; actor: string; ports: CancelPorts }): Promise<CancelTaskResult> {
  const outcome = await ports.cancelTaskAndRuns(taskId, actor);
  if (outcome.kind === "not_found") throw new AppError("NOT_FOUND", `task ${taskId} not found`);
  if (outcome.kind === "ended" && outcome.status !== "cancelled") {
    throw new AppError("CONFLICT", `task ${taskId} cannot be cancelled: it has already ended with status ${outcome.status}`);
  }
  for (const runId of outcome.runIds) await ports.sendRunCancelled({ taskId, runId });
  return outcome.kind === "cancelled"
    ? { taskId, status: "cancelled", cancelledRuns: outcome.runIds, alreadyCancelled: false }
    : { taskId, status: "cancelled", cancelledRuns: [], alreadyCancelled: true, note: "already cancelled" };
}
