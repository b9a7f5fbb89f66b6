import { AppError } from "../errors.ts";
import type { RunCause } from "../../lib/contracts/status.ts";

/** Run.cause of a run started from a checkpoint (lib/contracts/status.ts RUN_CAUSES without `initial`). */
export type ResumeCause = Exclude<RunCause, "initial">;

export interface ResumePorts {
  /** The checkpoint to start from: `checkpointId` when given (must belong to the task), else the latest good one; null when the task has none. */
  findCheckpoint(taskId: string, checkpointId: string | null): Promise<{ id: string } | null | "not_found">;
  /**
   * Guarded write, in one transaction: the task moves from one of `from` to `queued` and a new Run
   * (cause, checkpoint, guidance) is created. Returns false when the task was not in `from` (another
   * resume won the race, or it is running) — nothing is written then.
   */
  claimTaskAndCreateRun(data: {
    taskId: string;
    runId: string;
    from: string[];
    cause: ResumeCause;
    checkpointId: string | null;
    guidance: string | null;
    actor: string;
  }): Promise<boolean>;
  taskStatus(taskId: string): Promise<string | null>;
  sendRunStarted(event: { taskId: string; runId: string; checkpointId: string | null }): Promise<void>;
  failLaunch(ids: { taskId: string; runId: string }, error: string): Promise<void>;
  newRunId(): string;
}

/** Statuses a task can be resumed (or forked) from. */
export const RESUMABLE_STATUSES = ["failed", "waiting_for_human", "cancelled", "dead_end", "completed"];

/**
 * Starts a new run of a task from a checkpoint (default: the latest good one; none → from the
 * beginning) with optional human guidance. Its context is the checkpoint, never the old transcript
 * (docs/ARCHITECTURE.md "How a run works", step 7). `resume`/`auto_resume` continue a task that stopped (failed, waiting for
 * a human, cancelled); `fork` may also branch off a finished one. Two concurrent resumes produce one
 * run: the task status change is a compare-and-swap.
 *
 * @throws AppError NOT_FOUND (task or checkpoint), CONFLICT (a run is active, or another resume won),
 *   UNAVAILABLE (the event could not be delivered; the new run is marked failed).
 */
export async function resumeTask({
  taskId,
  checkpointId = null,
  guidance = null,
  cause,
  actor,
  ports,
}: {
  taskId: string;
  checkpointId?: string | null;
  guidance?: string | null;
  cause: ResumeCause;
  actor: string;
  ports: ResumePorts;
}): Promise<{ runId: string; checkpointId: string | null }> {
  const status = await ports.taskStatus(taskId);
  if (status === null) throw new AppError("NOT_FOUND", `task ${taskId} not found`);
  const checkpoint = await ports.findCheckpoint(taskId, checkpointId);
  if (checkpoint === "not_found") throw new AppError("NOT_FOUND", `checkpoint ${checkpointId} not found for task ${taskId}`);
  const from = cause === "fork" ? RESUMABLE_STATUSES : ["failed", "waiting_for_human", "cancelled"];
  const runId = ports.newRunId();
  const claimed = await ports.claimTaskAndCreateRun({ taskId, runId, from, cause, checkpointId: checkpoint?.id ?? null, guidance, actor });
  if (!claimed) {
    throw new AppError(
      "CONFLICT",
      `task ${taskId} cannot be ${cause === "fork" ? "forked" : "resumed"} now: it is ${(await ports.taskStatus(taskId)) ?? status}`,
    );
  }
  try {
    await ports.sendRunStarted({ taskId, runId, checkpointId: checkpoint?.id ?? null });
  } catch (error) {
    const reason = `could not deliver longhaul/run.started to the executor: ${error instanceof Error ? error.message : String(error)}`;
    await ports.failLaunch({ taskId, runId }, reason);
    throw new AppError("UNAVAILABLE", reason, { cause: error });
  }
  return { runId, checkpointId: checkpoint?.id ?? null };
}
