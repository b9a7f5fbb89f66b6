import { NonRetriableError, RetryAfterError } from "inngest";
import { runFacts, saveCheckpoint, startSegment, type SegmentStart } from "../../db/checkpoint-repository.ts";
import { prisma } from "../../db/prisma.ts";
import { prismaResumePorts } from "../../db/resume-ports.ts";
import { applyDecision, openEscalation, readDecision, recordAlert } from "../../db/escalation-repository.ts";
import { notifyEscalation } from "../../db/escalation-notify.ts";
import { beginStep, endStep, finishRun, recordModelCall, taskSpend, type RunStart } from "../../db/run-repository.ts";
import { assistantMessage, buildInitialMessages, toolResultMessage, type CompletedStepSummary } from "../../domain/agent-context.ts";
import {
  CHECKPOINT_REQUEST,
  checkpointReasonAfterTurn,
  compactCompletedSteps,
  describeToolStep,
  fitSummaryRequest,
  isSaturated,
  parseCheckpointAnswer,
  SUMMARY_REQUEST_WINDOW_SHARE,
  type CheckpointReason,
} from "../../domain/checkpoint.ts";
import { modelCallCostUsd } from "../../domain/cost.ts";
import { resumeTask } from "../../domain/resume-task.ts";
import { detectAlerts, detectDrift, type Alert, type StepRecord } from "../../domain/detectors.ts";
import { describeCeiling, reachedCeiling } from "../../domain/step-budget.ts";
import { findRiskyVerdict, settleEffectByVerdict } from "../../db/approval-repository.ts";
import { fingerprintFor, UnresolvedEffectError } from "../../tools/ledger.ts";
import { ModelCallError } from "../../llm/errors.ts";
import { createChatCompletion, resolveProvider } from "../../llm/provider.ts";
import { countTokens } from "../../llm/tokens.ts";
import type { ChatMessage, ModelToolCall, ModelUsage } from "../../llm/types.ts";
import { executeToolCall, toolDefinitions, validateToolCall, type ToolCallResult } from "../../tools/registry.ts";
import { inngest } from "../client.ts";
import { escalationApplied, runCancelled, runContinued, runStarted } from "../events.ts";

/** Retries per step (Inngest semantics: attempts = retries + 1, INNGEST-PROTOCOL.md §2.2). */
export const AGENT_STEP_RETRIES = 4;

/** Times an unanswered escalation is re-notified (each after the profile's due time) before the run stops waiting. */
export const ESCALATION_RENOTIFY_ROUNDS = 3;

/** What a memoized model step returns: small, JSON, enough to rebuild the transcript on replay. */
interface ModelTurn {
  content: string | null;
  toolCalls: ModelToolCall[];
  usage: ModelUsage;
  finishReason: string;
  costUsd: number;
  /** An operator asked for a checkpoint (read when the step ran, memoized with it). */
  checkpointRequested: boolean;
  /** An operator asked to escalate the run (with an optional note). */
  escalationRequested: { note: string | null } | null;
  /** The task's model spend in USD after this call (all runs, retries included) — only when the task has a dollar ceiling. */
  spendUsd?: number;
}

/**
 * Runs the model call of step `stepId` inside its durable step: records the step, one ModelCall row
 * per HTTP attempt (with cost and cause), and maps failures to Inngest's retry semantics: a 429
 * becomes RetryAfterError (the executor honours retry-after), other retryable kinds a plain Error
 * (retried with backoff), the rest NonRetriableError. Error messages start with `[kind]`.
 */
async function runModelStep({ start, stepId, index, messages, attempt }: { start: RunStart; stepId: string; index: number; messages: ChatMessage[]; attempt: number }): Promise<ModelTurn> {
  const db = prisma();
  const { completedBefore } = await beginStep({ prisma: db, runId: start.runId, stepId, index, kind: "model" });
  const provider = resolveProvider({ profileBaseUrl: start.profile.baseUrl });
  const model = start.profile.model;
  try {
    const res = await createChatCompletion({
      baseUrl: provider.baseUrl,
      apiKey: provider.apiKey,
      model,
      messages,
      tools: toolDefinitions(start.profile.tools),
      stream: true,
    });
    const cost = modelCallCostUsd({ model, usage: res.usage, prices: start.profile.prices });
    await recordModelCall({
      prisma: db,
      runId: start.runId,
      stepId,
      attempt,
      model,
      ...res.usage,
      status: "ok",
      httpStatus: res.httpStatus,
      billed: true,
      cause: completedBefore ? "replay" : "productive",
      estimated: res.usageEstimated,
      latencyMs: res.latencyMs,
      costUsd: cost.usd,
    });
    const calls = res.message.toolCalls;
    await endStep({
      prisma: db,
      runId: start.runId,
      stepId,
      status: "completed",
      output: { content: res.message.content, toolCalls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })), finishReason: res.finishReason },
      summary: calls.length ? summarizeCalls(calls) : (res.message.content ?? "").slice(0, 120),
      usage: res.usage,
    });
    const run = await db.run.findUnique({ where: { id: start.runId }, select: { checkpointRequestedAt: true, escalationRequestedAt: true, escalationRequestNote: true } });
    // The task's whole spend (retries included) is summed only where a dollar ceiling needs it: the
    // query grows with the task, and this is the hottest path of a run.
    const spendUsd = start.costBudgetUsd !== null ? (await taskSpend({ prisma: db, taskId: start.taskId })).usd : undefined;
    return {
      spendUsd,
      content: res.message.content,
      toolCalls: calls,
      usage: res.usage,
      finishReason: res.finishReason,
      costUsd: cost.usd,
      checkpointRequested: !!run?.checkpointRequestedAt,
      escalationRequested: run?.escalationRequestedAt ? { note: run.escalationRequestNote } : null,
    };
  } catch (error) {
    if (!(error instanceof ModelCallError)) throw error;
    const usage = error.estimatedUsage ?? { promptTokens: 0, cachedTokens: 0, completionTokens: 0 };
    await recordModelCall({
      prisma: db,
      runId: start.runId,
      stepId,
      attempt,
      model,
      ...usage,
      status: "error",
      httpStatus: error.status,
      billed: error.billed,
      cause: "retry",
      estimated: error.estimatedUsage !== null,
      latencyMs: error.latencyMs,
      error: error.message.slice(0, 2000),
      costUsd: error.billed ? modelCallCostUsd({ model, usage, prices: start.profile.prices }).usd : 0,
    });
    await db.step.update({ where: { runId_stepId: { runId: start.runId, stepId } }, data: { error: `[${error.kind}] ${error.message}`.slice(0, 2000) } });
    const message = `[${error.kind}] ${error.message}`;
    if (error.kind === "rate_limited") throw new RetryAfterError(message, error.retryAfterMs ?? 1_000);
    if (error.retryable) throw new Error(message);
    throw new NonRetriableError(message);
  }
}

/**
 * Runs one tool call inside its durable step and records it on the timeline. With `refused` (a
 * human rejected this risky call) the tool is not run: the step records the refusal and the model
 * gets it as the call's error.
 */
async function runToolStep({
  start,
  stepId,
  index,
  call,
  refused,
  fingerprint,
}: {
  start: RunStart;
  stepId: string;
  index: number;
  call: ModelToolCall;
  refused?: ToolCallResult;
  /** Ledger fingerprint of a well-formed side-effecting call, else null. */
  fingerprint: string | null;
}): Promise<ToolCallResult> {
  const db = prisma();
  let args: unknown = call.arguments;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    // keep the raw text: the gateway reports the malformed call to the model
  }
  await beginStep({ prisma: db, runId: start.runId, stepId, index, kind: "tool", tool: call.name, args: args as never });
  let result: ToolCallResult;
  if (refused) result = refused;
  else {
    try {
      // A human's verdict on an earlier unresolved attempt of this very effect settles the ledger first.
      if (fingerprint) {
        await settleEffectByVerdict({ prisma: db, taskId: start.taskId, fingerprint, resultFor: ({ idempotencyKey, confirmedBy }) => ({ status: null, body: null, idempotencyKey, confirmedBy }) });
      }
      result = await executeToolCall({
        name: call.name,
        rawArguments: call.arguments,
        ctx: { prisma: db, taskId: start.taskId, runId: start.runId, stepId, workspace: start.workspace },
      });
    } catch (error) {
      if (!(error instanceof UnresolvedEffectError)) throw error;
      // Outcome unknown (intent without result): the loop escalates; never guessed, never repeated.
      result = { ok: false, error: { code: "unresolved_effect", message: error.message, idempotencyKey: error.idempotencyKey } };
    }
  }
  await endStep({
    prisma: db,
    runId: start.runId,
    stepId,
    status: result.ok ? "completed" : "failed",
    output: (result.ok ? result.output : { error: result.error }) as never,
    error: result.ok ? undefined : `[${result.error.code}] ${result.error.message}`,
    summary: toolSummary(call.name, args, result),
  });
  return result;
}

/** "read_file ×5, record_fact" — the tool calls of one model turn, repeats folded. */
function summarizeCalls(calls: ModelToolCall[]): string {
  const counts = new Map<string, number>();
  for (const c of calls) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
  return [...counts].map(([name, n]) => (n > 1 ? `${name} ×${n}` : name)).join(", ");
}

function toolSummary(tool: string, args: unknown, result: ToolCallResult): string {
  if (!result.ok) return `${tool}: ${result.error.message}`.slice(0, 200);
  const a = (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
  const arg = a.path ?? a.key ?? a.name ?? a.to ?? a.reason ?? a.result;
  const dedup = (result.output as { deduplicated?: unknown } | null)?.deduplicated === true ? " · deduplicated: the ledger returned the original result" : "";
  return `${tool}(${typeof arg === "string" ? arg.slice(0, 120) : ""})${dedup}`;
}

/**
 * A one-line title for a proposed call, for lists and notifications: short single-line strings
 * quoted whole, longer ones and documents described by size (the full arguments are in the
 * escalation's evidence). `send_email(to: "a@b.c", subject: "Audit", body: <812 chars>)`.
 */
function briefCall(tool: string, args: unknown): string {
  const entries = typeof args === "object" && args !== null && !Array.isArray(args) ? Object.entries(args as Record<string, unknown>) : [];
  const brief = (v: unknown): string => {
    if (typeof v === "string") return v.length <= 60 && !/[\n\r]/.test(v) ? JSON.stringify(v) : `<${v.length} chars>`;
    if (typeof v === "number" || typeof v === "boolean" || v === null) return String(v);
    return Array.isArray(v) ? `<${v.length} items>` : `<${Object.keys(v as object).length} keys>`;
  };
  return `${tool}(${entries.map(([k, v]) => `${k}: ${brief(v)}`).join(", ")})`;
}

/** The escalation reason for an escalating detector alert (budget ceilings are enforced apart). */
function escalationReasonOf(alert: Alert): "loop" | "stall" | "tool_failure" {
  return alert.kind === "loop" || alert.kind === "tool_failure" ? alert.kind : "stall";
}

/** `[kind] …` prefix of a step error thrown by runModelStep, or "error". */
function endReasonOf(error: unknown): "transient" | "error" {
  const message = error instanceof Error ? error.message : String(error);
  return /\[(rate_limited|server|timeout|stream_cut|network)\]/.test(message) ? "transient" : "error";
}

/** The compact line a tool step leaves in a checkpoint's completed steps (whole values only). */
function completedEntry(stepId: string, call: ModelToolCall, result: ToolCallResult): CompletedStepSummary {
  return { stepId, tool: call.name, summary: describeToolStep(call.name, call.arguments, result) };
}

/**
 * Takes a checkpoint inside its durable step: asks the model for a summary and the open question
 * (`withModel`; its tokens are recorded as checkpoint — or compaction — cost), then assembles the
 * rest deterministically: goal verbatim, working set (whole facts), compacted completed steps,
 * budgets used, committed side effects, and the prompt tokens of the context it yields beside the
 * transcript it replaces. Without the model (at a ceiling or a failure, where another call would
 * overspend or fail) the summary is built from the state.
 */
async function runCheckpointStep({
  start,
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
  openQuestion,
}: {
  start: SegmentStart;
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
}): Promise<{ id: string; seq: number; spendUsd: number }> {
  const db = prisma();
  await beginStep({ prisma: db, runId: start.runId, stepId, index, kind: "checkpoint", args: { reason } });
  const workingSet = { ...start.workingSet, ...(await runFacts({ prisma: db, runId: start.runId })) };
  const completedSteps = compactCompletedSteps([...start.completedSteps, ...segmentSteps]);
  let answer = parseCheckpointAnswer(null, Object.keys(workingSet).length);
  let answerUsage: ModelUsage = { promptTokens: 0, cachedTokens: 0, completionTokens: 0 };
  // Near saturation the transcript plus the request may not fit the window: send the checkpoint's own
  // state plus the tail that fits instead, or no request at all (fitSummaryRequest).
  const request = withModel
    ? fitSummaryRequest({
        transcript: messages,
        state: buildInitialMessages({ systemPrompt: start.profile.systemPrompt, goal: start.goal, workingSet, completedSteps, openQuestion: start.openQuestion }),
        request: { role: "user", content: CHECKPOINT_REQUEST },
        budgetTokens: Math.floor(start.profile.contextWindow * SUMMARY_REQUEST_WINDOW_SHARE),
        count: (m) => countTokens(m),
      })
    : null;
  if (request) {
    const provider = resolveProvider({ profileBaseUrl: start.profile.baseUrl });
    const model = start.profile.model;
    const cause = reason === "saturation" ? "compaction" : "checkpoint";
    try {
      const res = await createChatCompletion({ baseUrl: provider.baseUrl, apiKey: provider.apiKey, model, messages: request, stream: true });
      answerUsage = res.usage;
      answer = parseCheckpointAnswer(res.message.content, Object.keys(workingSet).length);
      await recordModelCall({ prisma: db, runId: start.runId, stepId, attempt, model, ...res.usage, status: "ok", httpStatus: res.httpStatus, billed: true, cause, estimated: res.usageEstimated, latencyMs: res.latencyMs, costUsd: modelCallCostUsd({ model, usage: res.usage, prices: start.profile.prices }).usd });
    } catch (error) {
      if (!(error instanceof ModelCallError)) throw error;
      await recordModelCall({ prisma: db, runId: start.runId, stepId, attempt, model, promptTokens: 0, cachedTokens: 0, completionTokens: 0, ...error.estimatedUsage, estimated: error.estimatedUsage !== null, status: "error", httpStatus: error.status, billed: error.billed, cause: "retry", latencyMs: error.latencyMs, error: error.message.slice(0, 2000), costUsd: 0 });
      // Retryable: the executor retries the step. On its last attempt the checkpoint is taken without
      // the model's summary rather than failing the run here (a checkpoint is state, assembled below).
      if (error.retryable && attempt < AGENT_STEP_RETRIES) {
        if (error.kind === "rate_limited") throw new RetryAfterError(`[${error.kind}] ${error.message}`, error.retryAfterMs ?? 1_000);
        throw new Error(`[${error.kind}] ${error.message}`);
      }
      // not retryable, or out of retries: keep the deterministic summary
    }
  }
  if (openQuestion) answer = { ...answer, openQuestion };
  const tools = toolDefinitions(start.profile.tools);
  const context = buildInitialMessages({ systemPrompt: start.profile.systemPrompt, goal: start.goal, workingSet, completedSteps, openQuestion: answer.openQuestion ?? null });
  const spendUsd = (await taskSpend({ prisma: db, taskId: start.taskId })).usd;
  const transcriptTokens = start.priorTranscriptTokens + countTokens(start.checkpointId ? messages.slice(2) : messages, tools);
  const saved = await saveCheckpoint({
    prisma: db,
    data: {
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
    },
  });
  if (reason === "on_request") await db.run.update({ where: { id: start.runId }, data: { checkpointRequestedAt: null } });
  const drift = answer.openQuestion ? detectDrift({ goal: start.goal, openQuestion: answer.openQuestion, stepId }) : null;
  if (drift) await recordAlert({ prisma: db, taskId: start.taskId, runId: start.runId, stepId, kind: drift.kind, severity: drift.severity, message: drift.message, evidence: drift.evidence as never });
  await endStep({
    prisma: db,
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
 * Opens an automatic resume after a transient failure when the profile allows more (`autoResumeMax`
 * per task). Returns the new run, or null. The caller sends its run.started event as a step.
 */
async function openAutoResume({ taskId, max }: { taskId: string; max: number }): Promise<{ runId: string; checkpointId: string | null } | null> {
  const db = prisma();
  const used = await db.run.count({ where: { taskId, cause: "auto_resume" } });
  if (used >= max) return null;
  return resumeTask({ taskId, cause: "auto_resume", actor: "longhaul", ports: prismaResumePorts({ prisma: db, sendRunStarted: async () => {} }) });
}

/**
 * The `agent-run` Inngest function: one segment of a run of a task. It parses the event, loads the
 * segment's start (the beginning, or a checkpoint), then loops over durable steps — `model-<n>`
 * (one model call) and `tool-<n>-<k>` (one tool call each) — until the agent calls `finish`
 * (completed) or `declare_dead_end` (dead end), a ceiling is reached (failed, `budget_exhausted`;
 * escalation comes with the detectors), or a checkpoint is taken: then it sends
 * `longhaul/run.continued` and ends, and the next segment goes on from the checkpoint
 * ("continue-as-new"), so no Inngest run replays an unbounded history. A context near saturation is
 * checkpointed and continued the same way. A transient failure that outlives its retries ends the
 * run `failed/transient` and, per profile, auto-resumes from the last checkpoint.
 *
 * Everything with a side effect happens inside a step; the code between steps is pure and rebuilds
 * the transcript from memoized results, because Inngest replays the function from the top on every
 * request (ARCHITECTURE.md, "An agent run"; INNGEST-PROTOCOL.md §7.2). Step ids derive from the turn
 * number and the call's position, never from time or randomness; turn numbers continue across
 * segments, so ids stay unique within a run.
 */
export const agentRun = inngest.createFunction(
  {
    id: "agent-run",
    name: "Agent run",
    triggers: [runStarted, runContinued],
    retries: AGENT_STEP_RETRIES,
    cancelOn: [{ event: runCancelled, match: "data.runId" }],
  },
  async ({ event, step, attempt }) => {
    const { taskId, runId } = event.data;
    const checkpointId = event.data.checkpointId ?? null;
    const segment = "segment" in event.data ? event.data.segment : 1;
    const start = await step.run("start", () => startSegment({ prisma: prisma(), taskId, runId, checkpointId }));
    if (start.runStatus !== "running") return { status: "skipped", reason: `run is ${start.runStatus}` };
    const tools = toolDefinitions(start.profile.tools);
    const messages: ChatMessage[] = buildInitialMessages({
      systemPrompt: start.profile.systemPrompt,
      goal: start.goal,
      workingSet: start.workingSet,
      completedSteps: start.completedSteps,
      openQuestion: start.openQuestion,
      guidance: start.guidance,
    });
    let index = start.nextIndex;
    let stepsUsed = start.stepsUsed;
    let tokensUsed = start.tokensUsed;
    /** The task's model spend in USD, as of the latest model or checkpoint step (dollar ceiling). */
    let costUsd = start.costUsd;
    /** The latest checkpoint this run can go back to (the one it started from, or one it took). */
    let latestCheckpointId = start.checkpointId;
    let stepsSinceCheckpoint = 0;
    let lastStepId = "start";
    const segmentSteps: CompletedStepSummary[] = [];
    /** This segment's step history for the detectors, and the working-set keys known so far. */
    const history: StepRecord[] = [];
    const factKeys = new Set(Object.keys(start.workingSet));
    let previousBudgets = { stepsUsed, tokensUsed, costUsd };
    const ceilingNow = () => reachedCeiling({ stepsUsed, stepBudget: start.stepBudget, tokensUsed, tokenBudget: start.tokenBudget, costUsd, costBudgetUsd: start.costBudgetUsd });

    /**
     * Runs the detectors on the latest step (pure). Escalating alerts (a loop on the 3rd identical
     * call, a stall past its grace) are returned for the loop to escalate; the others are recorded
     * on the timeline. Budget ceilings are enforced by `reachedCeiling`, so budget alerts here are
     * the 80 % warnings only.
     */
    const runDetectors = async (): Promise<Alert | null> => {
      const budgets = { stepsUsed, stepBudget: start.stepBudget, tokensUsed, tokenBudget: start.tokenBudget, costUsd, costBudgetUsd: start.costBudgetUsd };
      const raised = detectAlerts({
        steps: history,
        goal: start.goal,
        budgets,
        previousBudgets,
        thresholds: { stallSteps: start.policy.stallSteps, graceSteps: start.policy.stallGraceSteps },
      });
      previousBudgets = { stepsUsed, tokensUsed, costUsd };
      const escalating = raised.find((a) => a.escalate && a.kind !== "budget") ?? null;
      for (const alert of raised) {
        if (alert === escalating || (alert.kind === "budget" && alert.escalate)) continue;
        await step.run(`alert-${alert.stepId}-${alert.kind}`, () =>
          recordAlert({ prisma: prisma(), taskId, runId, stepId: alert.stepId, kind: alert.kind, severity: alert.severity, message: alert.message, evidence: alert.evidence as never }),
        );
      }
      return escalating;
    };

    /**
     * Checkpoint at the boundary before turn `n` (step `checkpoint-<n>`, or `stepId` for one inside a
     * turn); with `cut`, continue in a new segment.
     */
    const checkpoint = async (
      n: number,
      reason: CheckpointReason,
      { withModel, cut, stepId = `checkpoint-${n}`, openQuestion }: { withModel: boolean; cut: boolean; stepId?: string; openQuestion?: string },
    ) => {
      const cpIndex = index++;
      const snapshot = { steps: stepsUsed, tokens: tokensUsed };
      const afterStepId = lastStepId;
      const nextIndex = index;
      const saved = await step.run(stepId, () =>
        runCheckpointStep({ start, stepId, index: cpIndex, reason, withModel, messages, segmentSteps, usage: snapshot, afterStepId, nextTurn: n, nextIndex, attempt, openQuestion }),
      );
      stepsSinceCheckpoint = 0;
      latestCheckpointId = saved.id;
      costUsd = Math.max(costUsd, saved.spendUsd ?? costUsd);
      if (cut) {
        await step.run(`segment-${segment + 1}`, () => prisma().run.updateMany({ where: { id: runId, status: "running" }, data: { segments: segment + 1 } }));
        await step.sendEvent(`continue-${n}`, runContinued.create({ taskId, runId, checkpointId: saved.id, segment: segment + 1 }, { id: `run-continued-${runId}-${saved.id}` }));
      }
      return saved;
    };

    /**
     * Checkpoint, open an escalation (the run ends `escalated`, the task waits for a human), then
     * wait for the decision: read the row first (a decision sent before the wait is not lost), then
     * `waitForEvent` with the profile's due time; an unanswered one is re-notified (webhook) and waited
     * for again. The decision is applied once — by the handler's request, or by this run if it gets
     * there first (a resume starts a new run from the checkpoint; its event id dedupes the start).
     */
    const escalate = async (
      n: number,
      reason: "budget" | "loop" | "stall" | "tool_failure" | "saturation" | "request_human" | "risky_action" | "unresolved_effect" | "manual",
      message: string,
      evidence: Record<string, unknown>,
      endReason: string | null,
      fingerprint: string | null = null,
    ) => {
      const cpReason: CheckpointReason =
        reason === "budget" ? "ceiling" : reason === "manual" ? "on_request" : reason === "risky_action" ? "before_risky" : reason === "unresolved_effect" ? "failure" : reason;
      if (stepsSinceCheckpoint > 0) await checkpoint(n, cpReason, { withModel: false, cut: false });
      const checkpointId = latestCheckpointId;
      const escStepId = `escalate-${n}`;
      const { escalationId } = await step.run(escStepId, async () => {
        const db = prisma();
        const alertKind = reason === "request_human" || reason === "risky_action" || reason === "unresolved_effect" ? "escalation" : reason;
        await recordAlert({ prisma: db, taskId, runId, stepId: lastStepId, kind: alertKind, severity: "critical", message, evidence: evidence as never });
        return openEscalation({ prisma: db, taskId, runId, stepId: escStepId, reason, message, evidence: evidence as never, checkpointId, endReason, fingerprint });
      });
      const humanIndex = index++;
      await step.run(`notify-${n}`, () => notifyEscalation({ prisma: prisma(), escalationId, round: 0 }));
      // The decision is applied by the handler's request (or, after an undo window, by the
      // escalation-apply function), which then sends escalation.applied. This run reads the row before
      // each wait (an early decision is not missed) and applies a due decision itself only as a safety
      // net (the claim decided → applying makes that once).
      for (let round = 0; round <= ESCALATION_RENOTIFY_ROUNDS; round++) {
        const state = await step.run(`decision-${n}-${round}`, () => readDecision({ prisma: prisma(), escalationId }));
        if (state.status === "applied") return { status: "escalated", reason, escalationId, decision: state.decision, resumedAs: state.resultRunId };
        if (state.status === "decided" && state.due) {
          const applied = await step.run(`apply-decision-${n}`, async () => {
            const result = await applyDecision({ prisma: prisma(), escalationId, stepIndex: humanIndex });
            // Being applied by another caller right now: retry the step to read the outcome.
            if (result.byOther) throw new Error(`escalation ${escalationId} is being applied by another caller`);
            return result;
          });
          if (applied.start) {
            await step.sendEvent(`resume-after-${n}`, runStarted.create({ taskId, runId: applied.start.runId, checkpointId: applied.start.checkpointId }, { id: `run-started-${applied.start.runId}` }));
          }
          return { status: "escalated", reason, escalationId, decision: applied.decision, resumedAs: applied.start?.runId ?? null };
        }
        const event = await step.waitForEvent(`await-decision-${n}-${round}`, {
          event: escalationApplied,
          timeout: `${start.policy.escalationDueMinutes}m`,
          if: `async.data.escalationId == "${escalationId}"`,
        });
        if (event) {
          const after = await step.run(`decision-${n}-${round}-applied`, () => readDecision({ prisma: prisma(), escalationId }));
          return { status: "escalated", reason, escalationId, decision: after.decision, resumedAs: after.resultRunId };
        }
        const overdue = await step.run(`decision-${n}-${round}-overdue`, () => readDecision({ prisma: prisma(), escalationId }));
        if (overdue.status === "open") await step.run(`renotify-${n}-${round}`, () => notifyEscalation({ prisma: prisma(), escalationId, round: round + 1 }));
      }
      return { status: "escalated", reason, escalationId, decision: null, overdue: true };
    };

    for (let n = start.nextTurn; ; n++) {
      const ceiling = ceilingNow();
      if (ceiling) {
        return escalate(n, "budget", `The ${describeCeiling(ceiling)}. The run stopped before the next model call.`, { ceiling }, "budget_exhausted");
      }

      const promptTokens = countTokens(messages, tools);
      if (isSaturated({ promptTokens, contextWindow: start.profile.contextWindow, ratio: start.policy.saturationRatio })) {
        const progressed = segmentSteps.some((e) => e.tool === "record_fact" && !/→ error /.test(e.summary));
        if (n > start.nextTurn && (progressed || start.fromReason !== "saturation")) {
          const saved = await checkpoint(n, "saturation", { withModel: true, cut: true });
          return { status: "continued", reason: "saturation", checkpointId: saved.id, segment: segment + 1 };
        }
        // Compacting again now would drop what this segment read but has not recorded yet and restart
        // from the same state: go on while the prompt still fits the window, so the agent can record it.
        if (n === start.nextTurn || promptTokens >= start.profile.contextWindow) {
          const error =
            n > start.nextTurn
              ? `the context outgrew the ${start.profile.contextWindow}-token window with no new fact since it was last compacted: compaction cannot make room for this work`
              : `the compacted context still fills ${Math.round(start.policy.saturationRatio * 100)}% of the ${start.profile.contextWindow}-token window`;
          await step.run("end", () => finishRun({ prisma: prisma(), taskId, runId, runStatus: "failed", taskStatus: "failed", endReason: "saturation", error }));
          return { status: "failed", endReason: "saturation", steps: stepsUsed };
        }
      }

      const modelStepId = `model-${n}`;
      const modelIndex = index++;
      let turn: ModelTurn;
      try {
        turn = await step.run(modelStepId, () => runModelStep({ start, stepId: modelStepId, index: modelIndex, messages, attempt }));
      } catch (error) {
        const endReason = endReasonOf(error);
        const message = error instanceof Error ? error.message : String(error);
        if (stepsSinceCheckpoint > 0) await checkpoint(n, "failure", { withModel: false, cut: false });
        await step.run("end", () => finishRun({ prisma: prisma(), taskId, runId, runStatus: "failed", taskStatus: "failed", endReason, error: message.slice(0, 2000) }));
        if (endReason === "transient") {
          const resumed = await step.run("auto-resume", () => openAutoResume({ taskId, max: start.policy.autoResumeMax }));
          if (resumed) {
            await step.sendEvent("auto-resume-started", runStarted.create({ taskId, runId: resumed.runId, checkpointId: resumed.checkpointId }, { id: `run-started-${resumed.runId}` }));
            return { status: "failed", endReason, autoResumedAs: resumed.runId };
          }
        }
        return { status: "failed", endReason, steps: stepsUsed };
      }
      stepsUsed += 1;
      stepsSinceCheckpoint += 1;
      lastStepId = modelStepId;
      tokensUsed += turn.usage.promptTokens + turn.usage.completionTokens;
      costUsd = turn.spendUsd ?? costUsd + turn.costUsd;
      messages.push(assistantMessage(turn.content, turn.toolCalls));
      history.push({ stepId: modelStepId, kind: "model", factsAfter: factKeys.size, tokens: turn.usage.promptTokens + turn.usage.completionTokens });
      const afterModel = await runDetectors();
      if (afterModel) return escalate(n + 1, escalationReasonOf(afterModel), afterModel.message, afterModel.evidence, afterModel.kind);
      if (turn.toolCalls.length === 0) {
        messages.push({ role: "user", content: "Use a tool to make progress, or call finish with your result (or declare_dead_end with the reason)." });
        continue;
      }

      let phaseCompleted = false;
      for (const [k, call] of turn.toolCalls.entries()) {
        const midTurnCeiling = ceilingNow();
        if (midTurnCeiling) {
          // Never overshoot by more than the step in flight: the remaining calls of this turn wait for the decision.
          return escalate(n + 1, "budget", `The ${describeCeiling(midTurnCeiling)}. ${turn.toolCalls.length - k} tool call(s) of this turn were not run.`, { ceiling: midTurnCeiling }, "budget_exhausted");
        }
        const toolStepId = `tool-${n}-${k}`;

        // A risky call (the tool says so) that is well-formed: checkpoint before it, then — when the
        // task requires approval — run it only after a human approved this very call (fingerprint).
        let refused: ToolCallResult | undefined;
        const valid = validateToolCall({ name: call.name, rawArguments: call.arguments });
        const fingerprint = valid.ok && valid.tool.sideEffect ? fingerprintFor({ taskId, tool: call.name, args: valid.args }) : null;
        if (valid.ok && valid.tool.risky) {
          const proposed = briefCall(call.name, valid.args);
          if (stepsSinceCheckpoint > 0) {
            await checkpoint(n + 1, "before_risky", { withModel: false, cut: false, stepId: `checkpoint-${n}-${k}`, openQuestion: `About to run the risky action ${proposed}.` });
          }
          if (start.requireApproval && fingerprint) {
            const verdict = await step.run(`approval-${n}-${k}`, () => findRiskyVerdict({ prisma: prisma(), taskId, fingerprint }));
            if (!verdict) {
              return escalate(n + 1, "risky_action", `Approval needed: ${proposed}`, { stepId: toolStepId, tool: call.name, arguments: valid.args, fingerprint }, null, fingerprint);
            }
            if (verdict.decision === "reject") {
              refused = { ok: false, error: { code: "rejected_by_human", message: `${call.name} was rejected by ${verdict.decidedBy ?? "a handler"} and not run${verdict.guidance ? `: ${verdict.guidance}` : ""}. Do not try it again; finish without it, or declare a dead end.` } };
            }
          }
        }
        const toolIndex = index++;
        const result = await step.run(toolStepId, () => runToolStep({ start, stepId: toolStepId, index: toolIndex, call, refused, fingerprint }));
        stepsUsed += 1;
        stepsSinceCheckpoint += 1;
        lastStepId = toolStepId;
        messages.push(toolResultMessage(call.id, result));
        segmentSteps.push(completedEntry(toolStepId, call, result));
        if (result.ok && call.name === "record_fact") factKeys.add((JSON.parse(call.arguments) as { key: string }).key);
        history.push({ stepId: toolStepId, kind: "tool", tool: call.name, rawArguments: call.arguments, ok: result.ok, ...(result.ok ? {} : { errorCode: result.error.code }), factsAfter: factKeys.size });
        if (!result.ok && result.error.code === "unresolved_effect") {
          const args = valid.ok ? valid.args : call.arguments;
          return escalate(
            n + 1,
            "unresolved_effect",
            `The outcome of ${call.name} is unknown: the process stopped after the request was sent and before its answer was recorded. Check the external system, then say whether it happened.`,
            { stepId: toolStepId, tool: call.name, arguments: args, idempotencyKey: result.error.idempotencyKey ?? null, fingerprint },
            null,
            fingerprint,
          );
        }
        const afterTool = await runDetectors();
        if (afterTool) return escalate(n + 1, escalationReasonOf(afterTool), afterTool.message, afterTool.evidence, afterTool.kind);
        if (!result.ok) continue;
        if (call.name === "complete_phase") phaseCompleted = true;
        if (call.name === "request_human") {
          const args = JSON.parse(call.arguments) as { question: string; proposedAction?: string };
          return escalate(n + 1, "request_human", args.proposedAction ? `Approval needed: ${args.proposedAction} — ${args.question}` : args.question, { stepId: toolStepId, ...args }, null);
        }
        if (call.name === "finish") {
          const output = JSON.parse(call.arguments) as { result: string };
          await step.run("end", () => finishRun({ prisma: prisma(), taskId, runId, runStatus: "completed", taskStatus: "completed", result: { summary: output.result } }));
          return { status: "completed", steps: stepsUsed };
        }
        if (call.name === "declare_dead_end") {
          const output = JSON.parse(call.arguments) as { reason: string };
          await step.run("end", () => finishRun({ prisma: prisma(), taskId, runId, runStatus: "dead_end", taskStatus: "dead_end", deadEndReason: output.reason }));
          return { status: "dead_end", steps: stepsUsed };
        }
      }

      if (turn.escalationRequested) {
        const note = turn.escalationRequested.note;
        return escalate(n + 1, "manual", `Escalated by an operator${note ? `: ${note}` : ""}.`, { note }, null);
      }

      const reason = checkpointReasonAfterTurn({
        requested: turn.checkpointRequested,
        phaseCompleted,
        lastModelCostUsd: turn.costUsd,
        expensiveStepUsd: start.policy.expensiveStepUsd,
        stepsSinceCheckpoint,
        every: start.policy.checkpointEverySteps,
      });
      if (reason) {
        const saved = await checkpoint(n + 1, reason, { withModel: true, cut: true });
        return { status: "continued", reason, checkpointId: saved.id, segment: segment + 1 };
      }
    }
  },
);
