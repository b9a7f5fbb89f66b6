import type { LoopAction } from "../domain/agent-loop/index.ts";
import type { CheckpointPorts, RunEnd, RunPorts } from "./ports.ts";

// The bodies of the run's own steps around the loop (start, escalate, apply-decision, end), over
// the ports: engine-free like the model, tool and checkpoint steps beside them. The durable step
// around each, its id and its place in the sequence are the Inngest function's (agent-run).

/**
 * The body of step `start`: where the segment starts (`ports.startSegment`: the run's beginning or
 * checkpoint `checkpointId`). The first segment of a resume right after a cancel first waits for the
 * cancelled run's tool step in flight to finish (at most 10 s after the cancel) and calls `warn` with
 * what is still running after that; the wait stays inside this one step, since steps added before
 * `start` would change the step sequence of runs already in flight.
 */
export async function runStartStep<Start>({
  ports,
  taskId,
  runId,
  checkpointId,
  segment,
  warn,
}: {
  ports: Pick<RunPorts<Start>, "settleCancelledSteps" | "startSegment">;
  taskId: string;
  runId: string;
  checkpointId: string | null;
  /** The segment's number (1 = the run's first). */
  segment: number;
  warn: (message: string) => void;
}): Promise<Start> {
  if (segment === 1) {
    const settle = await ports.settleCancelledSteps({ taskId, runId });
    if (!settle.settled)
      warn(
        `[agent-run] task ${taskId} run ${runId}: starts with step(s) ${settle.running.join(", ")} of a cancelled run still running after ${settle.waitedMs} ms`,
      );
  }
  return ports.startSegment({ taskId, runId, checkpointId });
}

/**
 * The body of step `escalate-<n>`: records the critical alert on the last step (`lastStepId`, the
 * timeline's red line) and opens the escalation (once per run and step id) pointing at checkpoint
 * `checkpointId`. Returns the escalation's id.
 */
export async function runEscalateStep({
  ports,
  taskId,
  runId,
  stepId,
  lastStepId,
  checkpointId,
  action,
}: {
  ports: Pick<RunPorts, "openEscalation"> & Pick<CheckpointPorts, "recordAlert">;
  taskId: string;
  runId: string;
  /** This step's id, `escalate-<n>` (the escalation's step). */
  stepId: string;
  lastStepId: string;
  checkpointId: string | null;
  action: Extract<LoopAction, { kind: "escalate" }>;
}): Promise<{ escalationId: string }> {
  const { reason, message, evidence, endReason, fingerprint } = action;
  await ports.recordAlert({ taskId, runId, stepId: lastStepId, kind: action.alertKind, severity: "critical", message, evidence });
  return ports.openEscalation({ taskId, runId, stepId, reason, message, evidence, checkpointId, endReason, fingerprint });
}

/**
 * The body of step `apply-decision-<n>`: the escalated run applies its decision itself (it was due
 * and nobody had applied it yet). The human step gets index `stepIndex`. Returns the run the decision
 * started (a resume), or null, and the decision.
 * @throws Error while another caller is applying it: the step is retried and then reads the outcome.
 */
export async function runApplyDecisionStep({
  ports,
  escalationId,
  stepIndex,
}: {
  ports: Pick<RunPorts, "applyEscalationDecision">;
  escalationId: string;
  stepIndex: number;
}): Promise<{ start: { runId: string; checkpointId: string | null } | null; decision: string }> {
  const result = await ports.applyEscalationDecision({ escalationId, stepIndex });
  if (result.outcome === "by_other") throw new Error(`escalation ${escalationId} is being applied by another caller`);
  const start = result.outcome === "applied" && result.start ? { runId: result.start.runId, checkpointId: result.start.checkpointId } : null;
  return { start, decision: "decision" in result ? result.decision : "" };
}

/**
 * How the loop's last action ends the run and its task (what step `end` writes through
 * `ports.finishRun`): `finish` → completed (with its summary and gaps, outcome
 * `completed_with_gaps` when there are gaps), `dead_end` → dead_end with the reason, `fail` →
 * failed with its end reason and error. Pure.
 */
export function runEndOf(ids: { taskId: string; runId: string }, action: Extract<LoopAction, { kind: "finish" | "dead_end" | "fail" }>): RunEnd {
  switch (action.kind) {
    case "finish": {
      const result = { summary: action.summary, ...(action.gaps.length ? { gaps: action.gaps } : {}) };
      return { ...ids, runStatus: "completed", taskStatus: "completed", result, outcome: action.gaps.length ? "completed_with_gaps" : "completed" };
    }
    case "dead_end":
      return { ...ids, runStatus: "dead_end", taskStatus: "dead_end", deadEndReason: action.reason };
    case "fail":
      return { ...ids, runStatus: "failed", taskStatus: "failed", endReason: action.endReason, error: action.error };
  }
}
