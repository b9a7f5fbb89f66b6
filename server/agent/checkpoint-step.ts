import { buildInitialMessages, type CompletedStepSummary, type WorkingSet } from "../domain/agent-context.ts";
import type { CompactionSizes } from "../domain/agent-loop/index.ts";
import {
  CHECKPOINT_REQUEST,
  compactCheckpointState,
  compactCompletedSteps,
  fitSummaryRequest,
  parseCheckpointAnswer,
  SUMMARY_REQUEST_WINDOW_SHARE,
  type CheckpointReason,
} from "../domain/checkpoint.ts";
import { detectDrift } from "../domain/detectors.ts";
import { formatFactRef, referencedKeys } from "../domain/fact-reference.ts";
import { countTokens } from "../llm/tokens.ts";
import type { ChatMessage, ModelUsage, ToolSchema } from "../llm/types.ts";
import { callModelRecorded, type ModelProfile } from "./model-call.ts";
import { isFinalModelFailure, stepErrorForModelCall } from "./model-retry.ts";
import type { CheckpointPorts, ModelPorts, RunRequestPorts, StepPorts } from "./ports.ts";
import type { EffortChoice } from "../../lib/contracts/effort.ts";

/** What a checkpoint step needs of the segment's start (db/checkpoint-repository.ts SegmentStart). */
export interface CheckpointStart {
  taskId: string;
  runId: string;
  goal: string;
  checkpointId: string | null;
  workingSet: WorkingSet;
  completedSteps: CompletedStepSummary[];
  openQuestion: string | null;
  guidance: string | null;
  priorTranscriptTokens: number;
  profile: ModelProfile & { systemPrompt: string; contextWindow: number };
  /** The compaction the start came from (db/checkpoint-repository.ts SegmentStart): a limit the provider stated bounds the summary request too. */
  compaction?: CompactionSizes | null;
  /** The context a provider's refusal in this run stated (db/checkpoint-repository.ts SegmentStart). */
  providerLimitTokens?: number | null;
}

type Ports = StepPorts & ModelPorts & RunRequestPorts & CheckpointPorts;

/**
 * The body of a checkpoint step (`checkpoint-<n>`, `checkpoint-<n>-<k>`): asks the model for a
 * summary and the open question (`withModel`; through `callModelRecorded`, recorded as `checkpoint`
 * cost — `compaction` for a saturation checkpoint), then assembles the rest deterministically: goal
 * verbatim, working set (whole facts), compacted completed steps, budgets used, committed side
 * effects, and the prompt tokens of the context it yields beside the transcript it replaces. Facts the
 * start holds as references stay references unless this run recorded the key again since. Without
 * the model (at a ceiling, a failure, before a risky call), or when even the checkpoint's own state
 * does not fit the request window (`fitSummaryRequest`: the profile's window, or the smaller limit a
 * provider stated when the start was compacted for it), the summary is built from the state. A
 * retryable model failure throws a StepRetryError (mapped by the Inngest function) until the last attempt (`retries`); then,
 * as for a non-retryable one, the checkpoint is taken without the model's summary.
 */
export async function runCheckpointStep({
  ports,
  start,
  tools,
  stepId,
  index,
  reason,
  withModel,
  messages,
  segmentSteps,
  usage,
  afterStepId,
  nextTurn,
  nextIndex,
  attempt,
  retries,
  openQuestion,
  effort,
}: {
  ports: Ports;
  start: CheckpointStart;
  tools: ToolSchema[];
  stepId: string;
  index: number;
  reason: CheckpointReason;
  /** The open question when the loop knows it (before a risky action: that action); else the model's. */
  openQuestion?: string;
  withModel: boolean;
  messages: ChatMessage[];
  segmentSteps: CompletedStepSummary[];
  usage: { steps: number; tokens: number };
  afterStepId: string;
  nextTurn: number;
  nextIndex: number;
  attempt: number;
  retries: number;
  /** The summary request's effort (the effort dial's `checkpoint` rule); recorded on the step when the model is asked. */
  effort?: EffortChoice | null;
}): Promise<{ id: string; seq: number; spendUsd: number }> {
  await ports.beginStep({ runId: start.runId, stepId, index, kind: "checkpoint", args: { reason }, effort: withModel ? (effort ?? null) : null });
  // The start's working set plus the facts this run recorded after the start's checkpoint: a fact the
  // start holds as a reference stays one (all the run's facts would store every referenced value
  // whole again in every later checkpoint).
  const workingSet = { ...start.workingSet, ...(await ports.runFacts(start.runId, start.checkpointId)) };
  const completedSteps = compactCompletedSteps([...start.completedSteps, ...segmentSteps]);
  let answer = parseCheckpointAnswer(null, Object.keys(workingSet).length);
  let answerUsage: ModelUsage = { promptTokens: 0, cachedTokens: 0, completionTokens: 0 };
  // Near saturation the transcript plus the request may not fit the window: send the checkpoint's own
  // state plus the tail that fits instead, or no request at all (fitSummaryRequest).
  const request = withModel
    ? fitSummaryRequest({
        transcript: messages,
        state: buildInitialMessages({
          systemPrompt: start.profile.systemPrompt,
          goal: start.goal,
          workingSet,
          completedSteps,
          openQuestion: start.openQuestion,
        }),
        request: { role: "user", content: CHECKPOINT_REQUEST },
        budgetTokens: Math.floor(
          Math.min(start.profile.contextWindow, start.providerLimitTokens || start.compaction?.providerLimitTokens || Infinity) * SUMMARY_REQUEST_WINDOW_SHARE,
        ),
        count: (m) => countTokens(m, tools),
      })
    : null;
  if (request) {
    const called = await callModelRecorded({
      ports,
      profile: start.profile,
      runId: start.runId,
      cacheKey: start.taskId,
      stepId,
      attempt,
      messages: request,
      // The turns' tools, not to be called: the request then shares the turns' cached prefix
      // (tools come first in the provider's prompt cache) instead of paying the transcript again.
      tools,
      toolChoice: "none",
      cause: reason === "saturation" ? "compaction" : "checkpoint",
      ...(effort ? { effort: effort.level, model: effort.model } : {}),
    });
    if (called.ok) {
      answerUsage = called.res.usage;
      answer = parseCheckpointAnswer(called.res.message.content, Object.keys(workingSet).length);
    } else if (!isFinalModelFailure(called.error, attempt, retries)) {
      // Retryable: the executor retries the step. On its last attempt the checkpoint is taken without
      // the model's summary rather than failing the run here (a checkpoint is state, assembled below).
      throw stepErrorForModelCall(called.error, attempt);
    }
  }
  if (openQuestion) answer = { ...answer, openQuestion };
  const context = buildInitialMessages({
    systemPrompt: start.profile.systemPrompt,
    goal: start.goal,
    workingSet,
    completedSteps,
    openQuestion: answer.openQuestion ?? null,
  });
  const spendUsd = await ports.taskSpendUsd(start.taskId);
  const transcriptTokens = start.priorTranscriptTokens + countTokens(start.checkpointId ? messages.slice(2) : messages, tools);
  const saved = await ports.saveCheckpoint({
    taskId: start.taskId,
    runId: start.runId,
    reason,
    afterStepId,
    nextTurn,
    nextIndex,
    goal: start.goal,
    workingSet,
    completedSteps,
    openQuestion: answer.openQuestion ?? null,
    phase: answer.phase ?? null,
    summary: answer.fromModel ? answer.summary : `${answer.summary} (assembled without a model summary)`,
    budgetsUsed: { steps: usage.steps, tokens: usage.tokens, costUsd: spendUsd },
    contextTokens: countTokens(context, tools),
    transcriptTokens,
  });
  if (reason === "on_request") await ports.clearCheckpointRequest(start.runId);
  const drift = answer.openQuestion ? detectDrift({ goal: start.goal, openQuestion: answer.openQuestion, stepId }) : null;
  if (drift)
    await ports.recordAlert({
      taskId: start.taskId,
      runId: start.runId,
      stepId,
      kind: drift.kind,
      severity: drift.severity,
      message: drift.message,
      evidence: drift.evidence,
    });
  await ports.endStep({
    runId: start.runId,
    stepId,
    status: "completed",
    output: { checkpointId: saved.id, seq: saved.seq, reason, summary: answer.summary, openQuestion: answer.openQuestion ?? null, phase: answer.phase ?? null },
    summary: `checkpoint #${saved.seq} (${reason.replaceAll("_", " ")})`,
    usage: answerUsage,
  });
  return { ...saved, spendUsd };
}

/**
 * The body of step `compact-<n>`: the segment's starting state does not fit the window (a resume
 * into a smaller window, a few huge facts). Compacts the checkpoint itself (`compactCheckpointState`:
 * completed steps summarised, the largest facts made references to the row that keeps them — the
 * source checkpoint's working set, or the task's input; down to half of `limitTokens` when it can, so
 * the segment has room to work) and, when it now fits `limitTokens`, saves it
 * as a new `saturation` checkpoint the next segment starts from. No model call. Returns the sizes
 * either way; `checkpointId` only when it fits (the loop escalates with the sizes otherwise).
 *
 * With `current` (the provider refused a prompt mid-segment) it compacts the state as it stands
 * instead: the start's working set plus the facts recorded since, the completed steps plus this
 * segment's, the references pointing at `current.checkpointId` (the whole checkpoint the loop saved
 * just before). `providerLimitTokens` and `refusal` (what the provider said) go into the sizes and
 * the checkpoint's summary, so every later message can say what was compacted and why.
 */
export async function runCompactStep({
  ports,
  start,
  tools,
  stepId,
  index,
  nextTurn,
  nextIndex,
  limitTokens,
  beforeTokens,
  usage,
  referenceTools = tools,
  current,
  providerLimitTokens = null,
  refusal = null,
}: {
  ports: StepPorts & ModelPorts & CheckpointPorts;
  start: CheckpointStart;
  tools: ToolSchema[];
  /** The tools the next segment offers when its working set holds references (`read_reference` added): what a compacted start is measured with. */
  referenceTools?: ToolSchema[];
  stepId: string;
  index: number;
  nextTurn: number;
  nextIndex: number;
  limitTokens: number;
  beforeTokens: number;
  usage: { steps: number; tokens: number };
  /** Compact the state as it stands (mid-segment), referencing the whole checkpoint `checkpointId`. */
  current?: { checkpointId: string | null; segmentSteps: CompletedStepSummary[] };
  /** The context the provider stated it accepts (its refusal said so), when it did. */
  providerLimitTokens?: number | null;
  /** The provider's refusal that asked for this compaction. */
  refusal?: string | null;
}): Promise<{ fits: boolean; checkpointId: string | null; sizes: CompactionSizes }> {
  await ports.beginStep({ runId: start.runId, stepId, index, kind: "checkpoint", args: { reason: "saturation", compaction: true } });
  const measure = (s: { workingSet: WorkingSet; completedSteps: CompletedStepSummary[] }) =>
    countTokens(
      buildInitialMessages({
        systemPrompt: start.profile.systemPrompt,
        goal: start.goal,
        workingSet: s.workingSet,
        completedSteps: s.completedSteps,
        openQuestion: start.openQuestion,
        guidance: start.guidance,
      }),
      referencedKeys(s.workingSet).length ? referenceTools : tools,
    );
  const sourceCheckpointId = current?.checkpointId ?? start.checkpointId;
  const workingSet = current ? { ...start.workingSet, ...(await ports.runFacts(start.runId, start.checkpointId)) } : start.workingSet;
  const completedSteps = current ? compactCompletedSteps([...start.completedSteps, ...current.segmentSteps]) : start.completedSteps;
  const compacted = compactCheckpointState({
    workingSet,
    completedSteps,
    limitTokens,
    // Half the limit: the other half is the segment's room to work before it saturates again.
    targetTokens: Math.floor(limitTokens / 2),
    measure,
    refFor: (key) =>
      formatFactRef(sourceCheckpointId ? { kind: "checkpoint", checkpointId: sourceCheckpointId, key } : { kind: "task_input", taskId: start.taskId, key }),
  });
  const sizes: CompactionSizes = {
    contextWindow: start.profile.contextWindow,
    beforeTokens,
    afterTokens: compacted.tokens,
    limitTokens,
    referencedFacts: compacted.referenced.length,
    providerLimitTokens,
    refusal,
  };
  const window = providerLimitTokens ? `the provider's stated ${providerLimitTokens}-token limit` : `the ${start.profile.contextWindow}-token window`;
  let checkpointId: string | null = null;
  if (compacted.fits) {
    const spendUsd = await ports.taskSpendUsd(start.taskId);
    const saved = await ports.saveCheckpoint({
      taskId: start.taskId,
      runId: start.runId,
      reason: "saturation",
      afterStepId: stepId,
      nextTurn,
      nextIndex,
      goal: start.goal,
      workingSet: compacted.workingSet,
      completedSteps: compacted.completedSteps,
      openQuestion: start.openQuestion,
      phase: null,
      summary: `Compacted to fit ${window}${refusal ? " after the provider refused the context" : ""}: ${beforeTokens} → ${compacted.tokens} prompt tokens (limit ${limitTokens})${compacted.referenced.length ? `; ${compacted.referenced.length} large fact(s) kept as references (${compacted.referenced.join(", ")})` : ""}.`,
      budgetsUsed: { steps: usage.steps, tokens: usage.tokens, costUsd: spendUsd },
      contextTokens: compacted.tokens,
      transcriptTokens: start.priorTranscriptTokens,
    });
    checkpointId = saved.id;
  }
  await ports.endStep({
    runId: start.runId,
    stepId,
    status: compacted.fits ? "completed" : "failed",
    output: { checkpointId, sizes, referenced: compacted.referenced },
    ...(compacted.fits ? {} : { error: `the checkpoint does not fit even compacted: ${compacted.tokens} of ${limitTokens} tokens` }),
    summary: compacted.fits
      ? `compacted checkpoint (${beforeTokens} → ${compacted.tokens} tokens)`
      : `compaction cannot fit the window (${compacted.tokens} > ${limitTokens} tokens)`,
  });
  return { fits: compacted.fits, checkpointId, sizes };
}
