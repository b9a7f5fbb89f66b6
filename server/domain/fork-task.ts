import { AppError } from "../errors.ts";

/** The task a fork created and where it came from. */
export interface ForkTaskResult {
  /** The new task (the branch) and its first run. */
  taskId: string;
  runId: string;
  /** The new task's own copy of the checkpoint it starts from (its checkpoint #1). */
  checkpointId: string;
  forkedFrom: { taskId: string; checkpointId: string };
  /**
   * What the fork does with the side effects the source committed after the checkpoint: `reused`
   * (their recorded results are the branch's, so repeating one sends nothing — marked deduplicated)
   * and `redone` (done again under new keys, when the branch repeats them), as idempotency keys.
   */
  effects: { reused: string[]; redone: string[] };
}

export interface ForkPorts {
  /** The checkpoint to branch from, when it belongs to `taskId`; null when the task has no such checkpoint. */
  findCheckpoint(taskId: string, checkpointId: string): Promise<{ id: string } | null>;
  /** The idempotency keys of the side effects the task committed after the checkpoint (fork-effects.ts effectsAfterCheckpoint). */
  effectsAfterCheckpoint(taskId: string, checkpointId: string): Promise<string[]>;
  taskExists(taskId: string): Promise<boolean>;
  /**
   * One transaction: a new Task copying the source's goal, profile version, budgets, workspace,
   * input and approval setting, created by `actor`, linked to the source task and checkpoint; its
   * checkpoint #1 a copy of the source checkpoint's state (budgets used start at zero — the branch
   * has its own budget); the side effects the source had committed by then, copied under the new
   * task (so the branch recognises them by fingerprint and does not send them again), and so are those
   * it committed after the checkpoint that `reuseEffectKeys` names; and its first Run (cause `fork`)
   * from that copy. The source task is not written.
   */
  createForkTask(data: {
    sourceTaskId: string;
    sourceCheckpointId: string;
    taskId: string;
    runId: string;
    guidance: string | null;
    actor: string;
    reuseEffectKeys: string[];
  }): Promise<{
    checkpointId: string;
  }>;
  sendRunStarted(event: { taskId: string; runId: string; checkpointId: string | null }): Promise<void>;
  failLaunch(ids: { taskId: string; runId: string }, error: string): Promise<void>;
  newId(prefix: "task" | "run"): string;
}

/**
 * Forks a task: a new task branched off one of its checkpoints, with optional guidance (a
 * fork is a new task). The original keeps its status, result, step count and cost — nothing of it
 * is written, none of its spend is re-labelled — and any status is fine (a branch of a running task
 * does not disturb it). Both are linked: the fork's `forkedFromTaskId`/`forkedFromCheckpointId`, the
 * original's `forks`.
 *
 * The side effects the original committed after the checkpoint (emails, HTTP POSTs, MCP side effects)
 * are reused by default: the branch gets their recorded results when it repeats one (same tool and
 * arguments), so nothing is sent twice. `redoEffects` names those to do again instead ("all" for
 * every one): the branch then does them under new keys.
 *
 * @throws AppError NOT_FOUND (task, or a checkpoint of that task), BAD_INPUT (`redoEffects` names an
 *   effect that is not one committed after the checkpoint), UNAVAILABLE (the start event could not
 *   be delivered: the new task is marked failed, naming why).
 */
export async function forkTask({
  taskId,
  checkpointId,
  guidance = null,
  redoEffects = [],
  actor,
  ports,
}: {
  taskId: string;
  checkpointId: string;
  guidance?: string | null;
  /** Side effects after the checkpoint to do again (their idempotency keys), or "all"; the others are reused. */
  redoEffects?: readonly string[] | "all";
  actor: string;
  ports: ForkPorts;
}): Promise<ForkTaskResult> {
  if (!(await ports.taskExists(taskId))) throw new AppError("NOT_FOUND", `task ${taskId} not found`);
  const source = await ports.findCheckpoint(taskId, checkpointId);
  if (!source) throw new AppError("NOT_FOUND", `checkpoint ${checkpointId} not found for task ${taskId}`);
  const after = await ports.effectsAfterCheckpoint(taskId, source.id);
  const redo = new Set(redoEffects === "all" ? after : redoEffects);
  const unknown = [...redo].filter((k) => !after.includes(k));
  if (unknown.length)
    throw new AppError(
      "BAD_INPUT",
      `redoEffects: ${unknown.map((k) => `"${k}"`).join(", ")} ${unknown.length === 1 ? "is not a side effect" : "are not side effects"} task ${taskId} committed after checkpoint ${source.id}`,
    );
  const reused = after.filter((k) => !redo.has(k));
  const newTaskId = ports.newId("task");
  const runId = ports.newId("run");
  const { checkpointId: copyId } = await ports.createForkTask({
    sourceTaskId: taskId,
    sourceCheckpointId: source.id,
    taskId: newTaskId,
    runId,
    guidance,
    actor,
    reuseEffectKeys: reused,
  });
  try {
    await ports.sendRunStarted({ taskId: newTaskId, runId, checkpointId: copyId });
  } catch (error) {
    const reason = `could not deliver longhaul/run.started to the executor: ${error instanceof Error ? error.message : String(error)}`;
    await ports.failLaunch({ taskId: newTaskId, runId }, reason);
    throw new AppError("UNAVAILABLE", reason, { cause: error });
  }
  return {
    taskId: newTaskId,
    runId,
    checkpointId: copyId,
    forkedFrom: { taskId, checkpointId: source.id },
    effects: { reused, redone: after.filter((k) => redo.has(k)) },
  };
}
