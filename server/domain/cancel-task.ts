import { AppError } from "../errors.ts";

export interface CancelPorts {
  /** Guarded write: task → cancelled unless terminal; its running run → cancelled. Returns the run ids cancelled, or null when the task was already terminal. */
  cancelTaskAndRuns(taskId: string, actor: string): Promise<{ runIds: string[] } | null>;
  taskExists(taskId: string): Promise<boolean>;
  sendRunCancelled(event: { taskId: string; runId: string }): Promise<void>;
}

/**
 * Cancels a task: marks it and its running run cancelled (`cancelled_by_user`) with guarded writes,
 * then tells the executor (`longhaul/run.cancelled`, matched by the function's cancelOn). Cancelling
 * twice is a no-op. @throws AppError NOT_FOUND, PRECONDITION_FAILED (already ended).
 */
export async function cancelTask({ taskId, actor, ports }: { taskId: string; actor: string; ports: CancelPorts }): Promise<{ cancelledRuns: string[] }> {
  if (!(await ports.taskExists(taskId))) throw new AppError("NOT_FOUND", `task ${taskId} not found`);
  const result = await ports.cancelTaskAndRuns(taskId, actor);
  if (!result) throw new AppError("PRECONDITION_FAILED", `task ${taskId} has already ended`);
  for (const runId of result.runIds) await ports.sendRunCancelled({ taskId, runId });
  return { cancelledRuns: result.runIds };
}
