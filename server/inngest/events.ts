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

/** Sent when a handler decides an escalation; the waiting run applies the decision (stored on the row first). */
export const escalationDecided = eventType("longhaul/escalation.decided", {
  schema: z.object({ escalationId: z.string().min(1).max(100), decision: z.enum(["resume", "approve", "reject", "dead_end", "cancel"]) }),
});
