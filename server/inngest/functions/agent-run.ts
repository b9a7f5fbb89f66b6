import { runStartStep } from "../../agent/run-steps.ts";
import type { LoopAction } from "../../domain/agent-loop/index.ts";
import { ESCALATION_LAST_WAIT_ROUND } from "../../features/escalations/index.ts";
import { runAgentPorts } from "../agent-ports.ts";
import { AGENT_STEP_RETRIES, RunSegment, type Performed, type SegmentResult } from "../agent-run-segment.ts";
import { inngest } from "../client.ts";
import { runCancelled, runContinued, runStarted } from "../events.ts";

/** Retries per step (Inngest semantics: attempts = retries + 1). */
export { AGENT_STEP_RETRIES };

/** The last wait round of an escalated run (defined with the wait's policy, server/domain/escalation-wait.ts). */
export { ESCALATION_LAST_WAIT_ROUND };

/** "Name: message" of the error a failed function run ended with (the name left out when it adds nothing), never empty. */
export function failureMessage(error: Pick<Error, "name" | "message"> | undefined): string {
  const name = error?.name ?? "";
  const message = error?.message ?? "";
  const text = name && name !== "Error" && !message.startsWith(name) ? `${name}: ${message}` : message;
  return text.trim() || "the run's function failed without an error message";
}

/**
 * Performs one loop action as durable steps — the table of actions: each kind to the segment's
 * method that runs it (server/inngest/agent-run-segment.ts, over the bodies in server/agent/).
 * Returns the outcome the loop folds next, or the segment's end.
 */
async function perform(segment: RunSegment, action: LoopAction): Promise<Performed> {
  switch (action.kind) {
    case "next_turn":
      return segment.nextTurn(action);
    case "call_model":
      return segment.callModel(action);
    case "check_approval":
      return segment.checkApproval(action);
    case "run_tool":
      return segment.runTool(action);
    case "checkpoint":
      return segment.checkpointAction(action);
    case "compact":
      return segment.compact(action);
    case "continue":
      return { done: await segment.continueFrom(action.n, action.checkpointId, action.reason) };
    case "escalate":
      return { done: await segment.escalate(action) };
    case "finish":
    case "dead_end":
    case "fail":
      return { done: await segment.end(action) };
  }
}

/**
 * The `agent-run` Inngest function: one segment of a run of a task — wiring only. It reads the
 * segment's start (the beginning, or a checkpoint), then loops: `decide` (server/domain/agent-loop/decide.ts,
 * pure: every ceiling, checkpoint trigger, control tool and end reason) → perform the action as
 * durable steps ({@link perform}; bodies in server/agent/) → `foldOutcome` (pure). Step ids: `model-<n>`,
 * `tool-<n>-<k>`, `egress-<n>-<k>`, `approval-<n>-<k>`, `checkpoint-<n>[-<k>]`, `compact-<n>`, `alert-<stepId>-<kind>`,
 * `escalate-<n>`, `notify-<n>`, `decision-<n>-<round>`, `segment-<s>`, `mcp-tools-check-<s>`, `continue-<n>`, `end`,
 * `auto-resume` — derived from the turn number and the call's position, never from time or
 * randomness; turn numbers continue across segments, so ids stay unique within a run. Their order
 * is pinned by tests/integration/agent-run-wiring.test.ts: Inngest matches memoized results by id.
 *
 * A checkpoint that cuts sends `longhaul/run.continued` and the segment ends; the next goes on from
 * the checkpoint ("continue-as-new"), so no Inngest run replays an unbounded history. Everything with
 * a side effect happens inside a step; the code between steps is pure and rebuilds the transcript
 * from memoized results, because Inngest replays the function from the top on every request.
 * The steps reach the database only through the ports (server/agent/ports.ts, built per step by
 * server/inngest/agent-ports.ts runAgentPorts).
 */
export const agentRun = inngest.createFunction(
  {
    id: "agent-run",
    name: "Agent run",
    triggers: [runStarted, runContinued],
    retries: AGENT_STEP_RETRIES,
    cancelOn: [{ event: runCancelled, match: "data.runId" }],
    // The run's function failed for good — the executor refused its state (a step output over its
    // 4 MiB limit, too many steps, the app unreachable) or the handler threw after its retries: the
    // executor sends `inngest/function.failed` and the run and task end `failed` with the error
    // naming the limit. Compare-and-swap writes: a run the loop already ended (its own
    // `fail`/`finish`/`escalate`) is left as it is, so nothing is handled twice.
    onFailure: async ({ event, error, step }) => {
      const { taskId, runId } = event.data.event.data;
      const message = failureMessage(error);
      return step.run("fail-run", () => runAgentPorts().failRunAfterFunctionFailure({ taskId, runId, error: message }));
    },
  },
  async ({ event, step, attempt }): Promise<SegmentResult> => {
    const { taskId, runId } = event.data;
    const checkpointId = event.data.checkpointId ?? null;
    const segment = "segment" in event.data ? event.data.segment : 1;
    const ports = runAgentPorts;
    const start = await step.run("start", () => runStartStep({ ports: ports(), taskId, runId, checkpointId, segment, warn: console.warn }));
    if (start.runStatus !== "running") return { status: "skipped", reason: `run is ${start.runStatus}` };
    // A server whose tools changed since launch is noticed at every segment start (launch, resume,
    // continue-as-new): an alert on the run; the run keeps the snapshot's list.
    if (start.mcpTools?.servers.length) {
      const stepId = `mcp-tools-check-${segment}`;
      await step.run(stepId, () => ports().checkMcpToolsChanged({ taskId, runId, stepId, snapshot: start.mcpTools }));
    }
    const run = new RunSegment(step, { taskId, runId, segment, attempt, start, ports });
    for (let outcome = run.firstOutcome(); ;) {
      const performed = await perform(run, run.decide(outcome));
      if ("done" in performed) return performed.done;
      outcome = performed.outcome;
    }
  },
);
