import { waitForCancelledStepsToSettle } from "../../db/cancel-checkpoint.ts";
import { startSegment } from "../../db/checkpoint-repository.ts";
import { prisma } from "../../db/prisma.ts";
import { openEscalation, readDecision } from "../../db/escalation-repository.ts";
import { recordAlert } from "../../db/alert-repository.ts";
import { prismaDecisionApplyPorts } from "../../db/apply-decision-ports.ts";
import { applyDecision } from "../../domain/apply-escalation-decision.ts";
import { ESCALATION_LAST_WAIT_ROUND, escalationWaitAction } from "../../domain/escalation-wait.ts";
import { notifyEscalation } from "../../db/escalation-notify.ts";
import { failRunAfterFunctionFailure, finishRun } from "../../db/run-repository.ts";
import { findRiskyVerdict } from "../../db/approval-repository.ts";
import { assistantMessage, buildInitialMessages, segmentToolNames, toolResultMessage, withReferenceTool } from "../../domain/agent-context.ts";
import {
  advanceTurn,
  decide,
  foldOutcome,
  initialLoopState,
  NO_TOOL_CALL_NUDGE,
  type InspectedCall,
  type LoopAction,
  type LoopOutcome,
  type LoopState,
} from "../../domain/agent-loop/index.ts";
import { runCheckpointStep, runCompactStep } from "../../agent/checkpoint-step.ts";
import { openAutoResume } from "../../agent/auto-resume.ts";
import { runModelStep } from "../../agent/model-step.ts";
import { prismaAgentPorts } from "../agent-ports.ts";
import { loopConfigOf } from "../loop-config.ts";
import { runToolStep } from "../../agent/tool-step.ts";
import { fingerprintFor } from "../../tools/ledger.ts";
import { countTokens } from "../../llm/tokens.ts";
import type { ChatMessage, ModelToolCall } from "../../llm/types.ts";
import type { EffortChoice } from "../../../lib/contracts/effort.ts";
import { getTool, toolDefinitions, validateToolCall, type ExtraTools, type ToolCallResult } from "../../tools/registry.ts";
import { checkMcpToolsChanged, mcpToolDefinitions } from "../../tools/mcp/mcp-tools.ts";
import { snapshotToolNames } from "../../domain/mcp-tool-snapshot.ts";
import { gateToolCall } from "../../tools/egress-gate.ts";
import { inngest } from "../client.ts";
import { withInngestRetries } from "../errors.ts";
import { escalationApplied, runCancelled, runContinued, runStarted } from "../events.ts";

/** Retries per step (Inngest semantics: attempts = retries + 1, docs/INNGEST-PROTOCOL.md §2.2). */
export const AGENT_STEP_RETRIES = 4;

/** The last wait round of an escalated run (defined with the wait's policy, server/domain/escalation-wait.ts). */
export { ESCALATION_LAST_WAIT_ROUND };

/** Validates and fingerprints a model turn's tool calls once (pure; the loop decides on the result). */
function inspectCalls(taskId: string, calls: ModelToolCall[], extra: ExtraTools): InspectedCall[] {
  return calls.map((call) => {
    const valid = validateToolCall({ name: call.name, rawArguments: call.arguments, extra });
    return {
      call,
      valid: valid.ok,
      args: valid.ok ? valid.args : call.arguments,
      risky: valid.ok && !!valid.tool.risky,
      egress: valid.ok && !!valid.tool.egress,
      // An egress call needs one too: a handler's verdict on it is found by it (an open-world MCP tool may be read-only).
      fingerprint: valid.ok && (valid.tool.sideEffect || valid.tool.egress) ? fingerprintFor({ taskId, tool: call.name, args: valid.args }) : null,
    };
  });
}

/** "Name: message" of the error a failed function run ended with (the name left out when it adds nothing), never empty. */
export function failureMessage(error: Pick<Error, "name" | "message"> | undefined): string {
  const name = error?.name ?? "";
  const message = error?.message ?? "";
  const text = name && name !== "Error" && !message.startsWith(name) ? `${name}: ${message}` : message;
  return text.trim() || "the run's function failed without an error message";
}

/**
 * The `agent-run` Inngest function: one segment of a run of a task — wiring only. It reads the
 * segment's start (the beginning, or a checkpoint), then loops: `decide` (server/domain/agent-loop/decide.ts,
 * pure: every ceiling, checkpoint trigger, control tool and end reason) → perform the action as
 * durable steps (bodies in server/agent/*-step.ts) → `foldOutcome` (pure). Step ids: `model-<n>`,
 * `tool-<n>-<k>`, `egress-<n>-<k>`, `approval-<n>-<k>`, `checkpoint-<n>[-<k>]`, `compact-<n>`, `alert-<stepId>-<kind>`,
 * `escalate-<n>`, `notify-<n>`, `decision-<n>-<round>`, `segment-<s>`, `mcp-tools-check-<s>`, `continue-<n>`, `end`,
 * `auto-resume` — derived from the turn number and the call's position, never from time or
 * randomness; turn numbers continue across segments, so ids stay unique within a run.
 *
 * A checkpoint that cuts sends `longhaul/run.continued` and the segment ends; the next goes on from
 * the checkpoint ("continue-as-new"), so no Inngest run replays an unbounded history. Everything with
 * a side effect happens inside a step; the code between steps is pure and rebuilds the transcript
 * from memoized results, because Inngest replays the function from the top on every request
 * (docs/ARCHITECTURE.md, "How a run works"; docs/INNGEST-PROTOCOL.md §7.2).
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
    // executor sends `inngest/function.failed` (docs/INNGEST-PROTOCOL.md §2.8) and the run and task end
    // `failed` with the error naming the limit. Compare-and-swap writes: a run the loop already ended
    // (its own `fail`/`finish`/`escalate`) is left as it is, so nothing is handled twice.
    onFailure: async ({ event, error, step }) => {
      const { taskId, runId } = event.data.event.data;
      const message = failureMessage(error);
      return step.run("fail-run", () => failRunAfterFunctionFailure({ prisma: prisma(), taskId, runId, error: message }));
    },
  },
  async ({ event, step, attempt }) => {
    const { taskId, runId } = event.data;
    const checkpointId = event.data.checkpointId ?? null;
    const segment = "segment" in event.data ? event.data.segment : 1;
    const start = await step.run("start", async () => {
      // A resume right after a cancel: the cancelled run's tool step in flight finishes first (at
      // most 10 s after the cancel). Inside the memoized step, not as settle/sleep steps of its own:
      // steps added before `start` would change the step sequence of runs already in flight.
      if (segment === 1) {
        const settle = await waitForCancelledStepsToSettle({ prisma: prisma(), taskId, runId });
        if (!settle.settled)
          console.warn(
            `[agent-run] task ${taskId} run ${runId}: starts with step(s) ${settle.running.join(", ")} of a cancelled run still running after ${settle.waitedMs} ms`,
          );
      }
      return startSegment({ prisma: prisma(), taskId, runId, checkpointId });
    });
    if (start.runStatus !== "running") return { status: "skipped", reason: `run is ${start.runStatus}` };
    // A server whose tools changed since launch is noticed at every segment start (launch, resume,
    // continue-as-new): an alert on the run; the run keeps the snapshot's list.
    if (start.mcpTools?.servers.length) {
      const checkId = `mcp-tools-check-${segment}`;
      await step.run(checkId, () => checkMcpToolsChanged({ prisma: prisma(), taskId, runId, stepId: checkId, snapshot: start.mcpTools }));
    }
    const ports = () => prismaAgentPorts({ prisma: prisma() });
    // The profile's tools, plus read_reference when compaction left references in the working set,
    // plus the MCP tools the task snapshotted at launch (the same list for every run of the task).
    const mcp = mcpToolDefinitions(start.mcpTools);
    const mcpNames = snapshotToolNames(start.mcpTools);
    const tools = toolDefinitions([...segmentToolNames(start.profile.tools, start.workingSet), ...mcpNames], mcp);
    /** The tools a segment starting from a compacted checkpoint offers (what compaction measures its start with). */
    const referenceTools = toolDefinitions([...withReferenceTool(start.profile.tools), ...mcpNames], mcp);
    const messages: ChatMessage[] = buildInitialMessages({
      systemPrompt: start.profile.systemPrompt,
      goal: start.goal,
      workingSet: start.workingSet,
      completedSteps: start.completedSteps,
      openQuestion: start.openQuestion,
      guidance: start.guidance,
    });
    let index = start.nextIndex;
    let state: LoopState = initialLoopState({
      config: loopConfigOf(start),
      stepsUsed: start.stepsUsed,
      tokensUsed: start.tokensUsed,
      costUsd: start.costUsd,
      checkpointId: start.checkpointId,
      workingSetKeys: Object.keys(start.workingSet),
    });

    /** Records the non-escalating alerts the latest step raised (the detectors ran in foldOutcome). */
    const recordAlerts = async () => {
      for (const alert of state.alertsToRecord) {
        await step.run(`alert-${alert.stepId}-${alert.kind}`, () =>
          recordAlert({
            prisma: prisma(),
            taskId,
            runId,
            stepId: alert.stepId,
            kind: alert.kind,
            severity: alert.severity,
            message: alert.message,
            evidence: alert.evidence,
          }),
        );
      }
    };
    const fold = async (outcome: LoopOutcome) => {
      state = foldOutcome(state, outcome);
      await recordAlerts();
      return outcome;
    };

    /** Checkpoint step `stepId` (before turn `nextTurn`); returns the saved checkpoint, state folded. */
    const checkpoint = async ({
      stepId,
      reason,
      withModel,
      nextTurn,
      openQuestion,
      effort,
    }: {
      stepId: string;
      reason: Extract<LoopAction, { kind: "checkpoint" }>["reason"];
      withModel: boolean;
      nextTurn: number;
      openQuestion?: string;
      effort?: EffortChoice | null;
    }) => {
      const cpIndex = index++;
      const snapshot = { steps: state.stepsUsed, tokens: state.tokensUsed };
      const afterStepId = state.lastStepId;
      const nextIndex = index;
      const segmentSteps = state.segmentSteps;
      const saved = await step.run(
        stepId,
        withInngestRetries(() =>
          runCheckpointStep({
            ports: ports(),
            start,
            tools,
            stepId,
            index: cpIndex,
            reason,
            withModel,
            messages,
            segmentSteps,
            usage: snapshot,
            afterStepId,
            nextTurn,
            nextIndex,
            attempt,
            retries: AGENT_STEP_RETRIES,
            openQuestion,
            effort,
          }),
        ),
      );
      state = foldOutcome(state, { kind: "checkpointed", checkpointId: saved.id, spendUsd: saved.spendUsd ?? state.costUsd });
      return saved;
    };

    /** Ends the segment: the next one goes on from `savedId` (turn `n`). */
    const continueFrom = async (n: number, savedId: string, reason: string) => {
      await step.run(`segment-${segment + 1}`, () => prisma().run.updateMany({ where: { id: runId, status: "running" }, data: { segments: segment + 1 } }));
      await step.sendEvent(
        `continue-${n}`,
        runContinued.create({ taskId, runId, checkpointId: savedId, segment: segment + 1 }, { id: `run-continued-${runId}-${savedId}` }),
      );
      return { status: "continued", reason, checkpointId: savedId, segment: segment + 1 };
    };

    /**
     * Open an escalation (the run ends `escalated`, the task waits for a human), then wait for the
     * decision: read the row first (a decision sent before the wait is not lost), then
     * `waitForEvent` with the profile's due time; an unanswered one is re-notified (webhook) and
     * waited for again. The decision is applied once — by the handler's request, or by this run if
     * it gets there first (a resume starts a new run from the checkpoint; its event id dedupes the start).
     * What to do after each read is the pure `escalationWaitAction` (server/domain/escalation-wait.ts);
     * this is its wiring to durable steps.
     */
    const escalate = async (a: Extract<LoopAction, { kind: "escalate" }>) => {
      const { n, reason, message, evidence, endReason, fingerprint } = a;
      if (a.checkpointFirst) await checkpoint({ ...a.checkpointFirst, withModel: false });
      const cpId = state.latestCheckpointId;
      const escStepId = `escalate-${n}`;
      const lastStepId = state.lastStepId;
      const { escalationId } = await step.run(escStepId, async () => {
        const db = prisma();
        await recordAlert({ prisma: db, taskId, runId, stepId: lastStepId, kind: a.alertKind, severity: "critical", message, evidence });
        return openEscalation({
          prisma: db,
          taskId,
          runId,
          stepId: escStepId,
          reason,
          message,
          evidence,
          checkpointId: cpId,
          endReason,
          fingerprint,
        });
      });
      const humanIndex = index++;
      await step.run(`notify-${n}`, () => notifyEscalation({ prisma: prisma(), escalationId, round: 0 }));
      for (let round = 0; round <= ESCALATION_LAST_WAIT_ROUND; round++) {
        const decision = await step.run(`decision-${n}-${round}`, () => readDecision({ prisma: prisma(), escalationId }));
        const next = escalationWaitAction({ phase: "read", round, decision, rounds: ESCALATION_LAST_WAIT_ROUND });
        if (next.kind === "done") return { status: "escalated", reason, escalationId, decision: next.decision, resumedAs: next.resumedAs };
        if (next.kind === "apply") {
          const applied = await step.run(`apply-decision-${n}`, async () => {
            const result = await applyDecision({ escalationId, stepIndex: humanIndex, ports: prismaDecisionApplyPorts({ prisma: prisma() }) });
            // Being applied by another caller right now: retry the step to read the outcome.
            if (result.outcome === "by_other") throw new Error(`escalation ${escalationId} is being applied by another caller`);
            const start = result.outcome === "applied" && result.start ? { runId: result.start.runId, checkpointId: result.start.checkpointId } : null;
            return { start, decision: "decision" in result ? result.decision : "" };
          });
          if (applied.start) {
            await step.sendEvent(
              `resume-after-${n}`,
              runStarted.create({ taskId, runId: applied.start.runId, checkpointId: applied.start.checkpointId }, { id: `run-started-${applied.start.runId}` }),
            );
          }
          return { status: "escalated", reason, escalationId, decision: applied.decision, resumedAs: applied.start?.runId ?? null };
        }
        const woken = await step.waitForEvent(`await-decision-${n}-${round}`, {
          event: escalationApplied,
          timeout: `${start.policy.escalationDueMinutes}m`,
          if: `async.data.escalationId == "${escalationId}"`,
        });
        if (woken) {
          const after = await step.run(`decision-${n}-${round}-applied`, () => readDecision({ prisma: prisma(), escalationId }));
          const done = escalationWaitAction({ phase: "woken", round, decision: after, rounds: ESCALATION_LAST_WAIT_ROUND });
          if (done.kind === "done") return { status: "escalated", reason, escalationId, decision: done.decision, resumedAs: done.resumedAs };
        }
        const overdue = await step.run(`decision-${n}-${round}-overdue`, () => readDecision({ prisma: prisma(), escalationId }));
        const later = escalationWaitAction({ phase: "timed_out", round, decision: overdue, rounds: ESCALATION_LAST_WAIT_ROUND });
        if (later.kind !== "after_timeout") continue;
        const renotifyRound = later.renotifyRound;
        if (renotifyRound !== null) await step.run(`renotify-${n}-${round}`, () => notifyEscalation({ prisma: prisma(), escalationId, round: renotifyRound }));
        if (later.nextRound === null) break;
      }
      return { status: "escalated", reason, escalationId, decision: null, overdue: true };
    };

    let outcome: LoopOutcome = { kind: "turn_start", promptTokens: countTokens(messages, tools) };
    for (;;) {
      const decided = decide(state, outcome);
      state = decided.state;
      const action = decided.action;
      switch (action.kind) {
        case "next_turn": {
          if (action.nudge) messages.push({ role: "user", content: NO_TOOL_CALL_NUDGE });
          state = advanceTurn(state);
          outcome = { kind: "turn_start", promptTokens: countTokens(messages, tools) };
          break;
        }
        case "call_model": {
          const { stepId } = action;
          // The dial asks a turn again at a higher level: the discarded turn leaves the transcript.
          if (action.discards) messages.pop();
          const modelIndex = index++;
          const costBudgetUsd = start.costBudgetUsd;
          let turn;
          try {
            turn = await step.run(
              stepId,
              withInngestRetries(() =>
                runModelStep({
                  ports: ports(),
                  runId,
                  taskId,
                  stepId,
                  index: modelIndex,
                  messages,
                  tools,
                  profile: start.profile,
                  costBudgetUsd,
                  attempt,
                  retries: AGENT_STEP_RETRIES,
                  effort: action.effort ?? null,
                  discards: action.discards ?? null,
                }),
              ),
            );
          } catch (error) {
            // Not a model failure (those come back as a result): the step's own infrastructure failed
            // through its retries. The run still ends with an end reason, never left running.
            outcome = { kind: "model_failed", errorKind: "step_error", message: error instanceof Error ? error.message : String(error) };
            break;
          }
          if (!turn.ok) {
            outcome = {
              kind: "model_failed",
              errorKind: turn.errorKind,
              message: turn.message,
              ...(turn.promptTokens !== undefined ? { promptTokens: turn.promptTokens } : {}),
              ...(turn.stated ? { stated: turn.stated } : {}),
            };
            break;
          }
          messages.push(assistantMessage(turn.content, turn.toolCalls, turn.reasoning));
          outcome = await fold({ kind: "model", turn, calls: inspectCalls(taskId, turn.toolCalls, mcp) });
          break;
        }
        case "check_approval": {
          const { fingerprint, egress } = action;
          // The egress gate first (server/tools/egress-gate.ts): a breach escalates whatever requireApproval says.
          const tool = egress ? getTool(egress.tool, mcp) : undefined;
          const gate = egress && tool ? await step.run(egress.stepId, () => gateToolCall({ prisma: prisma(), taskId, tool, args: egress.args })) : null;
          const verdict = await step.run(action.stepId, () => findRiskyVerdict({ prisma: prisma(), taskId, fingerprint }));
          outcome = { kind: "approval", verdict, egress: gate };
          break;
        }
        case "run_tool": {
          const { stepId, call, fingerprint } = action;
          const refused = action.refused as ToolCallResult | undefined;
          const toolIndex = index++;
          const result = await step.run(stepId, () =>
            runToolStep({ ports: ports(), taskId, runId, workspace: start.workspace, stepId, index: toolIndex, call, refused, fingerprint, extra: mcp }),
          );
          messages.push(toolResultMessage(call.id, result));
          outcome = await fold({ kind: "tool", result });
          break;
        }
        case "checkpoint": {
          const saved = await checkpoint(action);
          if (action.cut) return continueFrom(action.nextTurn, saved.id, action.reason);
          outcome = { kind: "checkpointed", checkpointId: saved.id, spendUsd: saved.spendUsd };
          break;
        }
        case "compact": {
          const { stepId, nextTurn, limitTokens, beforeTokens } = action;
          // Mid-segment (a refusal): the state as it stands, saved whole first so the references point at it.
          if (action.checkpointFirst) await checkpoint({ ...action.checkpointFirst, withModel: false });
          const current = action.source === "current" ? { checkpointId: state.latestCheckpointId, segmentSteps: state.segmentSteps } : undefined;
          const cpIndex = index++;
          const nextIndex = index;
          const usage = { steps: state.stepsUsed, tokens: state.tokensUsed };
          const provider = { providerLimitTokens: action.providerLimitTokens ?? null, refusal: action.refusal ?? null };
          const compacted = await step.run(
            stepId,
            withInngestRetries(() =>
              runCompactStep({
                ports: ports(),
                start,
                tools,
                referenceTools,
                stepId,
                index: cpIndex,
                nextTurn,
                nextIndex,
                limitTokens,
                beforeTokens,
                usage,
                current,
                ...provider,
              }),
            ),
          );
          outcome = { kind: "compacted", ...compacted };
          break;
        }
        case "continue":
          return continueFrom(action.n, action.checkpointId, action.reason);
        case "escalate":
          return escalate(action);
        case "finish": {
          const result = { summary: action.summary, ...(action.gaps.length ? { gaps: action.gaps } : {}) };
          const outcome = action.gaps.length ? "completed_with_gaps" : "completed";
          await step.run("end", () => finishRun({ prisma: prisma(), taskId, runId, runStatus: "completed", taskStatus: "completed", result, outcome }));
          return { status: "completed", steps: state.stepsUsed, ...(action.gaps.length ? { gaps: action.gaps.length } : {}) };
        }
        case "dead_end": {
          const { reason } = action;
          await step.run("end", () => finishRun({ prisma: prisma(), taskId, runId, runStatus: "dead_end", taskStatus: "dead_end", deadEndReason: reason }));
          return { status: "dead_end", steps: state.stepsUsed };
        }
        case "fail": {
          const { endReason, error } = action;
          if (action.checkpointFirst) await checkpoint({ ...action.checkpointFirst, withModel: false });
          await step.run("end", () => finishRun({ prisma: prisma(), taskId, runId, runStatus: "failed", taskStatus: "failed", endReason, error }));
          if (action.autoResume) {
            const resumed = await step.run("auto-resume", () => openAutoResume({ ports: ports(), taskId, max: start.policy.autoResumeMax }));
            if (resumed) {
              await step.sendEvent(
                "auto-resume-started",
                runStarted.create({ taskId, runId: resumed.runId, checkpointId: resumed.checkpointId }, { id: `run-started-${resumed.runId}` }),
              );
              return { status: "failed", endReason, autoResumedAs: resumed.runId };
            }
          }
          return { status: "failed", endReason, steps: state.stepsUsed };
        }
      }
    }
  },
);
