import { eventType } from "inngest";
import { z } from "zod";

/** Sent when a run of a task starts (launch, later resume/fork). Starts the `agent-run` function. */
export const runStarted = eventType("longhaul/run.started", {
  schema: z.object({ taskId: z.string().min(1).max(100), runId: z.string().min(1).max(100) }),
});

/** Sent when a person cancels a run; the executor cancels the matching `agent-run` (cancelOn). */
export const runCancelled = eventType("longhaul/run.cancelled", {
  schema: z.object({ taskId: z.string().min(1).max(100), runId: z.string().min(1).max(100) }),
});
