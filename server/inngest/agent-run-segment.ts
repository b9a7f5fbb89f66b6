import type { GetStepTools } from "inngest";
import { runCheckpointStep, runCompactStep } from "../agent/checkpoint-step.ts";
import { openAutoResume } from "../agent/auto-resume.ts";
import { inspectCalls } from "../agent/inspect-calls.ts";
import { runModelStep } from "../agent/model-step.ts";
import { runApplyDecisionStep, runEndOf, runEscalateStep } from "../agent/run-steps.ts";
import { runToolStep } from "../agent/tool-step.ts";
import type { SegmentStart } from "../db/checkpoint-repository.ts";
import { assistantMessage, buildInitialMessages, segmentToolNames, toolResultMessage, withReferenceTool } from "../domain/agent-context.ts";
import {
  advanceTurn,
  decide,
  foldOutcome,
  initialLoopState,
  NO_TOOL_CALL_NUDGE,
  type LoopAction,
  type LoopOutcome,
  type LoopState,
} from "../domain/agent-loop/index.ts";
import { ESCALATION_LAST_WAIT_ROUND, escalationWaitAction } from "../features/escalations/index.ts";
import { snapshotToolNames, mcpToolDefinitions } from "../features/mcp/index.ts";
import { countTokens } from "../llm/tokens.ts";
import type { ChatMessage, ToolSchema } from "../llm/types.ts";
import { getTool, toolDefinitions, type ExtraTools, type ToolCallResult } from "../tools/registry.ts";
import type { EffortChoice } from "../../lib/contracts/effort.ts";
import type { RunAgentPorts } from "./agent-ports.ts";
import type { inngest } from "./client.ts";
import { withInngestRetries } from "./errors.ts";
import { escalationApplied, runContinued, runStarted } from "./events.ts";
import { loopConfigOf } from "./loop-config.ts";

/** Retries per step (Inngest semantics: attempts = retries + 1). */
export const AGENT_STEP_RETRIES = 4;

/** What one segment of `agent-run` returns (the executor stores it as the function run's output). */
export type SegmentResult =
  | { status: "skipped"; reason: string }
  | { status: "continued"; reason: string; checkpointId: string; segment: number }
  | { status: "escalated"; reason: string; escalationId: string; decision: string | null; resumedAs?: string | null; overdue?: true }
  | { status: "completed"; steps: number; gaps?: number }
  | { status: "dead_end"; steps: number }
  | { status: "failed"; endReason: string; steps?: number; autoResumedAs?: string };

/** What performing an action leads to: the outcome the loop folds next, or the segment's end. */
export type Performed = { outcome: LoopOutcome } | { done: SegmentResult };

type Step = GetStepTools<typeof inngest>;
type CheckpointAction = Extract<LoopAction, { kind: "checkpoint" }>;

/**
 * One segment of an agent run as durable steps: the transcript, the loop's state and the next
 * timeline index it threads from step to step, and one method per loop action that performs it as
 * steps (the bodies are server/agent/*; this is their wiring to Inngest). Every step id comes from the
 * action (turn number, call position) or the segment number, never from time or randomness, and the
 * code between steps is pure, so a replay from the top rebuilds the same state from memoized results.
 */
export class RunSegment {
  readonly messages: ChatMessage[];
  private readonly tools: ToolSchema[];
  /** The tools a segment starting from a compacted checkpoint offers (what compaction measures its start with). */
  private readonly referenceTools: ToolSchema[];
  private readonly mcp: ExtraTools;
  private index: number;
  private state: LoopState;

  constructor(
    private readonly step: Step,
    private readonly ctx: { taskId: string; runId: string; segment: number; attempt: number; start: SegmentStart; ports: () => RunAgentPorts },
  ) {
    const { start } = ctx;
    // The profile's tools, plus read_reference when compaction left references in the working set,
    // plus the MCP tools the task snapshotted at launch (the same list for every run of the task).
    this.mcp = mcpToolDefinitions(start.mcpTools);
    const mcpNames = snapshotToolNames(start.mcpTools);
    this.tools = toolDefinitions([...segmentToolNames(start.profile.tools, start.workingSet), ...mcpNames], this.mcp);
    this.referenceTools = toolDefinitions([...withReferenceTool(start.profile.tools), ...mcpNames], this.mcp);
    this.messages = buildInitialMessages({
      systemPrompt: start.profile.systemPrompt,
      goal: start.goal,
      workingSet: start.workingSet,
      completedSteps: start.completedSteps,
      openQuestion: start.openQuestion,
      guidance: start.guidance,
    });
    this.index = start.nextIndex;
    this.state = initialLoopState({
      config: loopConfigOf(start),
      stepsUsed: start.stepsUsed,
      tokensUsed: start.tokensUsed,
      costUsd: start.costUsd,
      checkpointId: start.checkpointId,
      workingSetKeys: Object.keys(start.workingSet),
    });
  }

  /** The outcome the loop starts from: a turn begins with the starting context. */
  firstOutcome(): LoopOutcome {
    return { kind: "turn_start", promptTokens: countTokens(this.messages, this.tools) };
  }

  /** The loop's next action after `outcome` (the pure `decide`), its state kept. */
  decide(outcome: LoopOutcome): LoopAction {
    const decided = decide(this.state, outcome);
    this.state = decided.state;
    return decided.action;
  }

  /** The next turn (no step): the nudge when the model called no tool, then the turn's start. */
  nextTurn(action: Extract<LoopAction, { kind: "next_turn" }>): Performed {
    if (action.nudge) this.messages.push({ role: "user", content: NO_TOOL_CALL_NUDGE });
    this.state = advanceTurn(this.state);
    return { outcome: this.firstOutcome() };
  }

  /** Step `model-<n>`: one model call (server/agent/model-step.ts). */
  async callModel(action: Extract<LoopAction, { kind: "call_model" }>): Promise<Performed> {
    const { stepId } = action;
    const { taskId, runId, start, attempt, ports } = this.ctx;
    // The dial asks a turn again at a higher level: the discarded turn leaves the transcript.
    if (action.discards) this.messages.pop();
    const modelIndex = this.index++;
    const { messages, tools } = this;
    let turn;
    try {
      turn = await this.step.run(
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
            costBudgetUsd: start.costBudgetUsd,
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
      return { outcome: { kind: "model_failed", errorKind: "step_error", message: error instanceof Error ? error.message : String(error) } };
    }
    if (!turn.ok) {
      const { errorKind, message, promptTokens, stated } = turn;
      return { outcome: { kind: "model_failed", errorKind, message, ...(promptTokens !== undefined ? { promptTokens } : {}), ...(stated ? { stated } : {}) } };
    }
    this.messages.push(assistantMessage(turn.content, turn.toolCalls, turn.reasoning));
    return { outcome: await this.fold({ kind: "model", turn, calls: inspectCalls(taskId, turn.toolCalls, this.mcp) }) };
  }

  /** Steps `egress-<n>-<k>` (the egress gate, first: a breach escalates whatever requireApproval says) and `approval-<n>-<k>` (a human's verdict). */
  async checkApproval(action: Extract<LoopAction, { kind: "check_approval" }>): Promise<Performed> {
    const { fingerprint, egress } = action;
    const { taskId, ports } = this.ctx;
    const tool = egress ? getTool(egress.tool, this.mcp) : undefined;
    const gate = egress && tool ? await this.step.run(egress.stepId, () => ports().gateToolCall({ taskId, tool, args: egress.args })) : null;
    const verdict = await this.step.run(action.stepId, () => ports().findRiskyVerdict({ taskId, fingerprint }));
    return { outcome: { kind: "approval", verdict, egress: gate } };
  }

  /** Step `tool-<n>-<k>`: one tool call through the gateway (server/agent/tool-step.ts). */
  async runTool(action: Extract<LoopAction, { kind: "run_tool" }>): Promise<Performed> {
    const { stepId, call, fingerprint } = action;
    const { taskId, runId, start, ports } = this.ctx;
    const refused = action.refused as ToolCallResult | undefined;
    const toolIndex = this.index++;
    const extra = this.mcp;
    const result = await this.step.run(stepId, () =>
      runToolStep({ ports: ports(), taskId, runId, workspace: start.workspace, stepId, index: toolIndex, call, refused, fingerprint, extra }),
    );
    this.messages.push(toolResultMessage(call.id, result));
    return { outcome: await this.fold({ kind: "tool", result }) };
  }

  /** Step `checkpoint-<n>[-<k>]`; a cutting one ends the segment (the next goes on from it). */
  async checkpointAction(action: CheckpointAction): Promise<Performed> {
    const saved = await this.checkpoint(action);
    if (action.cut) return { done: await this.continueFrom(action.nextTurn, saved.id, action.reason) };
    return { outcome: { kind: "checkpointed", checkpointId: saved.id, spendUsd: saved.spendUsd } };
  }

  /** Step `compact-<n>`: the state compacted into a checkpoint that fits (server/agent/checkpoint-step.ts runCompactStep). */
  async compact(action: Extract<LoopAction, { kind: "compact" }>): Promise<Performed> {
    const { stepId, nextTurn, limitTokens, beforeTokens } = action;
    const { start, ports } = this.ctx;
    // Mid-segment (a refusal): the state as it stands, saved whole first so the references point at it.
    if (action.checkpointFirst) await this.checkpoint({ ...action.checkpointFirst, withModel: false });
    const current = action.source === "current" ? { checkpointId: this.state.latestCheckpointId, segmentSteps: this.state.segmentSteps } : undefined;
    const cpIndex = this.index++;
    const nextIndex = this.index;
    const usage = { steps: this.state.stepsUsed, tokens: this.state.tokensUsed };
    const provider = { providerLimitTokens: action.providerLimitTokens ?? null, refusal: action.refusal ?? null };
    const { tools, referenceTools } = this;
    const compacted = await this.step.run(
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
    return { outcome: { kind: "compacted", ...compacted } };
  }

  /** Ends the segment: step `segment-<s+1>` counts it, `continue-<n>` sends the next one's event (it goes on from `savedId`, turn `n`). */
  async continueFrom(n: number, savedId: string, reason: string): Promise<SegmentResult> {
    const { taskId, runId, segment, ports } = this.ctx;
    await this.step.run(`segment-${segment + 1}`, () => ports().setRunSegments({ runId, segments: segment + 1 }));
    await this.step.sendEvent(
      `continue-${n}`,
      runContinued.create({ taskId, runId, checkpointId: savedId, segment: segment + 1 }, { id: `run-continued-${runId}-${savedId}` }),
    );
    return { status: "continued", reason, checkpointId: savedId, segment: segment + 1 };
  }

  /**
   * Open an escalation (the run ends `escalated`, the task waits for a human), then wait for the
   * decision: read the row first (a decision sent before the wait is not lost), then
   * `waitForEvent` with the profile's due time; an unanswered one is re-notified (webhook) and
   * waited for again. The decision is applied once — by the handler's request, or by this run if
   * it gets there first (a resume starts a new run from the checkpoint; its event id dedupes the start).
   * What to do after each read is the pure `escalationWaitAction` (server/domain/escalation-wait.ts);
   * this is its wiring to durable steps.
   */
  async escalate(action: Extract<LoopAction, { kind: "escalate" }>): Promise<SegmentResult> {
    const { n, reason } = action;
    const { taskId, runId, start, ports } = this.ctx;
    const step = this.step;
    if (action.checkpointFirst) await this.checkpoint({ ...action.checkpointFirst, withModel: false });
    const checkpointId = this.state.latestCheckpointId;
    const stepId = `escalate-${n}`;
    const lastStepId = this.state.lastStepId;
    const { escalationId } = await step.run(stepId, () => runEscalateStep({ ports: ports(), taskId, runId, stepId, lastStepId, checkpointId, action }));
    const humanIndex = this.index++;
    await step.run(`notify-${n}`, () => ports().notifyEscalation({ escalationId, round: 0 }));
    const read = (id: string) => step.run(id, () => ports().readDecision(escalationId));
    for (let round = 0; round <= ESCALATION_LAST_WAIT_ROUND; round++) {
      const next = escalationWaitAction({ phase: "read", round, decision: await read(`decision-${n}-${round}`), rounds: ESCALATION_LAST_WAIT_ROUND });
      if (next.kind === "done") return { status: "escalated", reason, escalationId, decision: next.decision, resumedAs: next.resumedAs };
      if (next.kind === "apply") {
        const applied = await step.run(`apply-decision-${n}`, () => runApplyDecisionStep({ ports: ports(), escalationId, stepIndex: humanIndex }));
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
        const done = escalationWaitAction({
          phase: "woken",
          round,
          decision: await read(`decision-${n}-${round}-applied`),
          rounds: ESCALATION_LAST_WAIT_ROUND,
        });
        if (done.kind === "done") return { status: "escalated", reason, escalationId, decision: done.decision, resumedAs: done.resumedAs };
      }
      const later = escalationWaitAction({
        phase: "timed_out",
        round,
        decision: await read(`decision-${n}-${round}-overdue`),
        rounds: ESCALATION_LAST_WAIT_ROUND,
      });
      if (later.kind !== "after_timeout") continue;
      const renotifyRound = later.renotifyRound;
      if (renotifyRound !== null) await step.run(`renotify-${n}-${round}`, () => ports().notifyEscalation({ escalationId, round: renotifyRound }));
      if (later.nextRound === null) break;
    }
    return { status: "escalated", reason, escalationId, decision: null, overdue: true };
  }

  /**
   * Step `end` (after checkpoint `checkpoint-<n>` first when a failure asks for one): the run and task
   * end as the action says (server/agent/run-steps.ts runEndOf). A transient failure then opens an
   * automatic resume when the profile allows one (`auto-resume`, and `auto-resume-started` sends its event).
   */
  async end(action: Extract<LoopAction, { kind: "finish" | "dead_end" | "fail" }>): Promise<SegmentResult> {
    const { taskId, runId, start, ports } = this.ctx;
    if (action.kind === "fail" && action.checkpointFirst) await this.checkpoint({ ...action.checkpointFirst, withModel: false });
    await this.step.run("end", () => ports().finishRun(runEndOf({ taskId, runId }, action)));
    const steps = this.state.stepsUsed;
    if (action.kind === "finish") return { status: "completed", steps, ...(action.gaps.length ? { gaps: action.gaps.length } : {}) };
    if (action.kind === "dead_end") return { status: "dead_end", steps };
    const { endReason } = action;
    if (action.autoResume) {
      const resumed = await this.step.run("auto-resume", () => openAutoResume({ ports: ports(), taskId, max: start.policy.autoResumeMax }));
      if (resumed) {
        await this.step.sendEvent(
          "auto-resume-started",
          runStarted.create({ taskId, runId: resumed.runId, checkpointId: resumed.checkpointId }, { id: `run-started-${resumed.runId}` }),
        );
        return { status: "failed", endReason, autoResumedAs: resumed.runId };
      }
    }
    return { status: "failed", endReason, steps };
  }

  /** The loop's state after `outcome`, then steps `alert-<stepId>-<kind>` for the non-escalating alerts it raised (the detectors ran in foldOutcome). */
  private async fold(outcome: LoopOutcome): Promise<LoopOutcome> {
    this.state = foldOutcome(this.state, outcome);
    const { taskId, runId, ports } = this.ctx;
    for (const alert of this.state.alertsToRecord) {
      const { stepId, kind, severity, message, evidence } = alert;
      await this.step.run(`alert-${stepId}-${kind}`, () => ports().recordAlert({ taskId, runId, stepId, kind, severity, message, evidence }));
    }
    return outcome;
  }

  /** Checkpoint step `stepId` (before turn `nextTurn`); returns the saved checkpoint, state folded. */
  private async checkpoint({
    stepId,
    reason,
    withModel,
    nextTurn,
    openQuestion,
    effort,
  }: {
    stepId: string;
    reason: CheckpointAction["reason"];
    withModel: boolean;
    nextTurn: number;
    openQuestion?: string;
    effort?: EffortChoice | null;
  }) {
    const { start, attempt, ports } = this.ctx;
    const cpIndex = this.index++;
    const usage = { steps: this.state.stepsUsed, tokens: this.state.tokensUsed };
    const afterStepId = this.state.lastStepId;
    const nextIndex = this.index;
    const { segmentSteps } = this.state;
    const { tools, messages } = this;
    const saved = await this.step.run(
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
          usage,
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
    this.state = foldOutcome(this.state, { kind: "checkpointed", checkpointId: saved.id, spendUsd: saved.spendUsd ?? this.state.costUsd });
    return saved;
  }
}
