import { mayActOnTask } from "../../lib/contracts/task-actions.ts";
import { AppError } from "../errors.ts";
import { cancelTask, type CancelPorts } from "./cancel-task.ts";
import { resumeTask, type ResumePorts } from "./resume-task.ts";

/** What a batch operation does to each task. */
export const BATCH_ACTIONS = ["resume", "cancel"] as const;
export type BatchAction = (typeof BATCH_ACTIONS)[number];

/**
 * BatchItem.status: `pending` until applied; `running` (resumed, its run has not ended), `done`,
 * `skipped` (nothing to do, e.g. already ended) or `failed`.
 */
export const BATCH_ITEM_STATUSES = ["pending", "running", "done", "skipped", "failed"] as const;
export type BatchItemStatus = (typeof BATCH_ITEM_STATUSES)[number];

/** Most tasks one batch operation takes; a selection matching more is refused (narrow the filter). */
export const BATCH_MAX_TASKS = 1000;

/** Task statuses each action applies to: resume as the single-task Resume (resumeTask), cancel as Cancel (anything not ended). */
export const BATCH_ELIGIBLE: Record<BatchAction, readonly string[]> = {
  resume: ["failed", "waiting_for_human", "cancelled"],
  cancel: ["queued", "running", "waiting_for_human"],
};

/** The task-list filter a batch may take (the same fields and meaning as task.list). */
export interface BatchFilter {
  status?: string[];
  profile?: string;
  model?: string;
  failure?: string;
  from?: Date;
  to?: Date;
  since?: Date;
  q?: string;
}

/** Tasks chosen by id (the list's selection column) or every task a filter matches. */
export type BatchSelection = { taskIds: string[] } | { filter: BatchFilter };

/** One task a selection matched, with what a preview needs. */
export interface BatchCandidate {
  id: string;
  status: string;
  createdBy: string;
  /**
   * USD a resume of this task is expected to cost: the median spend of the completed tasks of its
   * profile (null when its profile has none). Not used for cancel.
   */
  estimateUsd: number | null;
}

/** Who starts a batch; every task's resume or cancel is made as this actor. */
export interface BatchActor {
  name: string;
  userId: string | null;
  roles: readonly string[];
  /** "session" or "token:<id>", as audit rows record it. */
  via: string;
}

export interface BatchPorts {
  /** Tasks the selection matches, at most `max` (ids not found are left out), in list order. */
  matchTasks(selection: BatchSelection, max: number): Promise<BatchCandidate[]>;
  /** Stores the batch and one pending item per task (one transaction). */
  createBatch(data: {
    id: string;
    action: BatchAction;
    actor: BatchActor;
    selection: BatchSelection;
    guidance: string | null;
    taskIds: string[];
  }): Promise<void>;
  /** Asks the executor to apply the batch to each task (one event per task, deduplicated by batch and task). */
  sendItems(batchId: string, taskIds: string[]): Promise<void>;
  newBatchId(): string;
}

/** What a preview (or a started batch) says before anything happens. */
export interface BatchPreview {
  action: BatchAction;
  /** Tasks the selection matched. */
  matched: number;
  /** Tasks the action will be applied to, in list order. */
  taskIds: string[];
  /** Matched tasks left out, grouped by why ("not yours", "status completed: cannot be resumed"). */
  skipped: { reason: string; count: number }[];
  /** Sum of the tasks' resume estimates (USD; 0 for cancel), and how many tasks had none. */
  estimatedUsd: number;
  unestimated: number;
  /** How many tasks run at once (batch-item's concurrency limit). */
  concurrency: number;
}

/**
 * Decides which of a selection's tasks a batch applies to (pure): tasks in a status the action
 * applies to (BATCH_ELIGIBLE) that `actor` may act on (lib/contracts/task-actions.ts, the same rule
 * as the single-task buttons). Skipped tasks are counted by reason.
 */
export function planBatch({
  action,
  actor,
  candidates,
  concurrency,
}: {
  action: BatchAction;
  actor: BatchActor;
  candidates: readonly BatchCandidate[];
  concurrency: number;
}): BatchPreview {
  const skipped = new Map<string, number>();
  const taskIds: string[] = [];
  let estimatedUsd = 0;
  let unestimated = 0;
  for (const c of candidates) {
    let reason: string | null = null;
    if (!mayActOnTask(actor, c.createdBy)) reason = `launched by someone else (an operator acts on their own tasks)`;
    else if (!BATCH_ELIGIBLE[action].includes(c.status)) reason = `${c.status}: cannot be ${action === "resume" ? "resumed" : "cancelled"}`;
    if (reason) {
      skipped.set(reason, (skipped.get(reason) ?? 0) + 1);
      continue;
    }
    taskIds.push(c.id);
    if (action === "resume") {
      if (c.estimateUsd === null) unestimated++;
      else estimatedUsd += c.estimateUsd;
    }
  }
  return {
    action,
    matched: candidates.length,
    taskIds,
    skipped: [...skipped].map(([reason, count]) => ({ reason, count })),
    estimatedUsd: Math.round(estimatedUsd * 1e6) / 1e6,
    unestimated,
    concurrency,
  };
}

async function matchOrThrow(ports: BatchPorts, selection: BatchSelection): Promise<BatchCandidate[]> {
  const candidates = await ports.matchTasks(selection, BATCH_MAX_TASKS + 1);
  if (candidates.length > BATCH_MAX_TASKS) {
    throw new AppError("BAD_INPUT", `selection: matches more than ${BATCH_MAX_TASKS} tasks; narrow the filter (e.g. a later from or a status)`);
  }
  return candidates;
}

/**
 * Preview of a batch: how many tasks the selection matches, which the action will take, which are
 * skipped and why, and what the resumes are estimated to cost. Writes nothing.
 * @throws AppError BAD_INPUT when the selection matches more than BATCH_MAX_TASKS tasks.
 */
export async function previewBatch({
  action,
  selection,
  actor,
  concurrency,
  ports,
}: {
  action: BatchAction;
  selection: BatchSelection;
  actor: BatchActor;
  concurrency: number;
  ports: BatchPorts;
}): Promise<BatchPreview> {
  return planBatch({ action, actor, candidates: await matchOrThrow(ports, selection), concurrency });
}

/**
 * Starts a batch: plans it as {@link previewBatch} does, stores it with one pending item per task,
 * then sends one `longhaul/batch.item.requested` per task; the `batch-item` function applies them
 * at most `concurrency` at a time. Returns the batch id with the plan.
 * @throws AppError BAD_INPUT (more than BATCH_MAX_TASKS, or none of the tasks can be acted on),
 *   whatever sendItems throws (the batch is stored; its items stay pending).
 */
export async function startBatch({
  action,
  selection,
  actor,
  guidance = null,
  concurrency,
  ports,
}: {
  action: BatchAction;
  selection: BatchSelection;
  actor: BatchActor;
  guidance?: string | null;
  concurrency: number;
  ports: BatchPorts;
}): Promise<BatchPreview & { batchId: string }> {
  const plan = planBatch({ action, actor, candidates: await matchOrThrow(ports, selection), concurrency });
  if (!plan.taskIds.length) {
    const why = plan.skipped.map((s) => `${s.count} ${s.reason}`).join("; ");
    throw new AppError("BAD_INPUT", `selection: no task to ${action}${why ? ` (${why})` : " (it matches no task)"}`);
  }
  const batchId = ports.newBatchId();
  const stored = "taskIds" in selection ? { taskIds: selection.taskIds } : { filter: selection.filter };
  await ports.createBatch({ id: batchId, action, actor, selection: stored, guidance: action === "resume" ? guidance : null, taskIds: plan.taskIds });
  await ports.sendItems(batchId, plan.taskIds);
  return { ...plan, batchId };
}

/** A batch item as `applyBatchItem` reads it. */
export interface BatchItemContext {
  action: BatchAction;
  actor: BatchActor;
  guidance: string | null;
  itemStatus: string;
}

export interface BatchItemPorts {
  /** The batch and this task's item, or null when either is gone. */
  loadItem(batchId: string, taskId: string): Promise<BatchItemContext | null>;
  /** Moves the item from `pending` to `status` (guarded: false when it was not pending — a retry after the write). */
  settleItem(
    batchId: string,
    taskId: string,
    status: Exclude<BatchItemStatus, "pending">,
    update: { message?: string | null; runId?: string | null },
  ): Promise<boolean>;
  /** Runs started by batch resumes (any batch) that are still running: the slots in use. */
  liveBatchRuns(): Promise<number>;
  /** One audit row for the task: `task.batch.<action>` by the batch's actor, target the batch id. */
  audit(data: { actor: BatchActor; action: string; taskId: string; batchId: string; details: unknown }): Promise<void>;
  resumePorts: ResumePorts;
  cancelPorts: CancelPorts;
}

/** What applying one item did. */
export type BatchItemOutcome =
  /** A resume found every slot in use (LONGHAUL_BATCH_CONCURRENCY batch runs running): nothing was done; try again later. */
  | { kind: "wait"; live: number }
  | { kind: "resumed"; runId: string; checkpointId: string | null }
  | { kind: "cancelled"; runIds: string[] }
  | { kind: "skipped"; reason: string }
  | { kind: "gone" };

/**
 * Applies a batch to one task: resumes it from its latest good checkpoint (resumeTask, with the
 * batch's guidance) or cancels it (cancelTask), as the batch's actor, then records the item's
 * outcome and one audit row for the task. A task that changed since the preview (now running,
 * already ended, gone) is skipped with the reason. An item that is no longer pending was applied
 * before (a retry): nothing happens again. A resume waits (`{ kind: "wait" }`, nothing written)
 * while `cap` runs started by batch resumes are still running, so a hundred resumes reach the
 * provider `cap` runs at a time; the caller must not run two of these at once (batch-item's
 * concurrency limit of 1 serialises them, so the count and the resume cannot race).
 * @throws whatever resumeTask/cancelTask throw besides NOT_FOUND and CONFLICT (UNAVAILABLE: the
 *   executor could not be told; the caller's retry applies the item again).
 */
export async function applyBatchItem({
  batchId,
  taskId,
  cap,
  ports,
}: {
  batchId: string;
  taskId: string;
  /** Most runs started by batch resumes running at once (LONGHAUL_BATCH_CONCURRENCY). */
  cap: number;
  ports: BatchItemPorts;
}): Promise<BatchItemOutcome> {
  const item = await ports.loadItem(batchId, taskId);
  if (!item || item.itemStatus !== "pending") return { kind: "gone" };
  if (item.action === "resume") {
    const live = await ports.liveBatchRuns();
    if (live >= cap) return { kind: "wait", live };
  }
  let outcome: BatchItemOutcome;
  try {
    if (item.action === "resume") {
      const r = await resumeTask({ taskId, guidance: item.guidance, cause: "resume", actor: item.actor.name, ports: ports.resumePorts });
      outcome = { kind: "resumed", runId: r.runId, checkpointId: r.checkpointId };
    } else {
      const c = await cancelTask({ taskId, actor: item.actor.name, ports: ports.cancelPorts });
      outcome = c.alreadyCancelled ? { kind: "skipped", reason: "already cancelled" } : { kind: "cancelled", runIds: c.cancelledRuns };
    }
  } catch (error) {
    if (!(error instanceof AppError) || (error.code !== "CONFLICT" && error.code !== "NOT_FOUND")) throw error;
    outcome = { kind: "skipped", reason: error.message };
  }
  const settled =
    outcome.kind === "resumed"
      ? await ports.settleItem(batchId, taskId, "running", { runId: outcome.runId })
      : outcome.kind === "cancelled"
        ? await ports.settleItem(batchId, taskId, "done", {})
        : await ports.settleItem(batchId, taskId, "skipped", { message: outcome.kind === "skipped" ? outcome.reason : null });
  if (settled && outcome.kind !== "skipped") {
    await ports.audit({ actor: item.actor, action: `task.batch.${item.action}`, taskId, batchId, details: { batchId, ...outcome } });
  }
  return outcome;
}

/** Progress of a batch: its items counted by status, and the items themselves. */
export interface BatchProgress {
  id: string;
  action: BatchAction;
  actor: string;
  createdAt: Date;
  total: number;
  /** pending (not yet applied) · running (resumed, run not ended) · done · skipped · failed. */
  counts: { pending: number; running: number; done: number; skipped: number; failed: number };
  /** True when no item is pending or running. */
  finished: boolean;
  items: { taskId: string; status: string; message: string | null; runId: string | null }[];
}
