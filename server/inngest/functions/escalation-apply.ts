import { RetryAfterError } from "inngest";
import { applyDecision, describeApplyError } from "../../features/escalations/index.ts";
import { inngest } from "../client.ts";
import { escalationApplied, escalationDecided, runStarted } from "../events.ts";
import { escalationApplyPorts } from "../function-ports.ts";

/**
 * `escalation-apply`: applies a decision made with an undo window once the window has ended.
 * Triggered by `longhaul/escalation.decided`; an event without `applyAt` (applied in the request)
 * is ignored. Sleeps until `applyAt`, then in one step applies the decision (the domain's
 * `applyDecision`, the one entry point every caller uses) if the row still carries
 * it (same `applyAfter`) and it is due by the database clock — an undone, superseded or early-applied
 * (Apply now changed its `applyAfter`) decision is left alone; a window not yet ended by the database clock retries the step after the remainder
 * (RetryAfterError). Then sends the resumed run's `longhaul/run.started` (id `run-started-<runId>`,
 * as agent-run does, so a start by anyone else dedupes) and `longhaul/escalation.applied`, which ends
 * the escalated run waiting on it.
 * Returns `{ outcome, decision?, resumedAs? }`.
 *
 * When it fails for good (its retries used up: the decision cannot be applied, e.g. the checkpoint it
 * resumes from is gone), `onFailure` records the failure on the escalation (`applyFailures`,
 * `applyError`, an `error` alert on the escalated run) and leaves it `decided` — never `applying`, as
 * applying is one transaction — so the web app's recovery sweep (server/inngest/decision-recovery.ts)
 * applies it again after a backoff, and a human sees why it is not applied yet.
 */
export const escalationApply = inngest.createFunction(
  {
    id: "escalation-apply",
    name: "Apply an escalation decision after its undo window",
    triggers: [escalationDecided],
    retries: 10,
    onFailure: async ({ event, error, step }) => {
      const { escalationId } = event.data.event.data;
      const message = describeApplyError(error);
      return step.run("record-apply-failure", () => escalationApplyPorts().recordApplyFailure({ escalationId, error: message }));
    },
  },
  async ({ event, step }) => {
    const { escalationId, decision, applyAt } = event.data;
    if (!applyAt) return { outcome: "applied-in-request" as const };
    await step.sleepUntil(`undo-window-${escalationId}`, applyAt);
    const result = await step.run(`apply-${escalationId}`, async () => {
      const r = await applyDecision({ escalationId, applyAt: new Date(applyAt), ports: escalationApplyPorts().apply });
      if (r.outcome === "not_due")
        throw new RetryAfterError(`escalation ${escalationId}: undo window not over by the database clock (${r.waitMs} ms left)`, Math.max(100, r.waitMs + 50));
      if (r.outcome === "by_other") throw new Error(`escalation ${escalationId} is being applied by another caller`);
      return r;
    });
    if (result.outcome !== "applied") return { outcome: result.outcome, status: result.status };
    if (result.start) {
      await step.sendEvent(
        `resume-${escalationId}`,
        runStarted.create(
          { taskId: result.start.taskId, runId: result.start.runId, checkpointId: result.start.checkpointId },
          { id: `run-started-${result.start.runId}` },
        ),
      );
    }
    await step.sendEvent(`applied-${escalationId}`, escalationApplied.create({ escalationId, decision }));
    return { outcome: "applied" as const, decision: result.decision, resumedAs: result.start?.runId ?? null };
  },
);
