import { eventType } from "inngest";
import { z } from "zod";

const ids = { taskId: z.string().min(1).max(100), runId: z.string().min(1).max(100) };

/**
 * Sent when a run of a task starts: a launch (no checkpoint), a resume, an auto-resume or a fork
 * (from `checkpointId`). Starts the `agent-run` function.
 */
export const runStarted = eventType("longhaul/run.started", {
  schema: z.object({ ...ids, checkpointId: z.string().min(1).max(100).nullable().optional() }),
});

/**
 * Sent by a run at a checkpoint to continue in a new Inngest function run (a new segment,
 * "continue-as-new"), so no Inngest run replays an unbounded history.
 */
export const runContinued = eventType("longhaul/run.continued", {
  schema: z.object({ ...ids, checkpointId: z.string().min(1).max(100), segment: z.number().int().min(2) }),
});

/** Sent when a person cancels a run; the executor cancels the matching `agent-run` (cancelOn). */
export const runCancelled = eventType("longhaul/run.cancelled", {
  schema: z.object({ taskId: z.string().min(1).max(100), runId: z.string().min(1).max(100) }),
});

const decision = z.enum(["resume", "approve", "reject", "dead_end", "cancel"]);

/**
 * Sent when a handler decides an escalation (the decision is stored on the row first). With
 * `applyAt` (ISO time, the end of the decision's undo window) the `escalation-apply` function sleeps
 * until then and applies it unless it was undone; without it the decision was applied in the request.
 */
export const escalationDecided = eventType("longhaul/escalation.decided", {
  schema: z.object({ escalationId: z.string().min(1).max(100), decision, applyAt: z.iso.datetime().optional() }),
});

/**
 * Sent once a decision has been applied (by the handler's request or by `escalation-apply`); the
 * escalated run waiting on it ends (it reads the row first, so an early one is not missed).
 */
export const escalationApplied = eventType("longhaul/escalation.applied", {
  schema: z.object({ escalationId: z.string().min(1).max(100), decision }),
});

/**
 * Sent once per task of a batch operation (resume or cancel many); the `batch-item`
 * function applies it under its concurrency cap. Event id `batch-item-<batchId>-<taskId>`.
 */
export const batchItemRequested = eventType("longhaul/batch.item.requested", {
  /** `round`: how many times the item continued as a new function run while waiting for a slot (0 first). */
  schema: z.object({ batchId: z.string().min(1).max(100), taskId: z.string().min(1).max(100), round: z.number().int().min(0).optional() }),
});

/**
 * Sent when an eval run is created (browser, CLI, API); starts the `eval-run` function. `generation`
 * > 0: the same eval run continued in a new function run (continue-as-new after EVAL_TICKS_PER_GENERATION ticks).
 */
export const evalStarted = eventType("longhaul/eval.started", {
  schema: z.object({ evalRunId: z.string().min(1).max(100), generation: z.number().int().min(0).max(1_000_000).optional() }),
});
