import type { ModelTurn } from "../domain/agent-loop/index.ts";
import { summarizeCalls } from "../domain/step-summaries.ts";
import { parseContextLimit, type StatedContextLimit } from "../llm/errors.ts";
import type { ModelCallErrorKind } from "../domain/model-error-kinds.ts";
import { countTokens } from "../llm/tokens.ts";
import type { ChatMessage, ReasoningItem, ToolSchema } from "../llm/types.ts";
import { callModelRecorded, type ModelProfile } from "./model-call.ts";
import { isFinalModelFailure, stepErrorForModelCall } from "./model-retry.ts";
import type { ModelPorts, RunRequestPorts, StepPorts } from "./ports.ts";
import type { EffortChoice } from "../../lib/contracts/effort.ts";

/** What the memoized model step returns: the turn, or a failure for good (the loop decides). */
export type ModelStepResult =
  | ({
      ok: true;
      /**
       * The turn's reasoning items / thinking blocks (llm/types.ts ReasoningItem), to go back with the
       * assistant message in the segment's next requests. Part of the memoized result, so a replayed
       * run sends them back exactly as the provider returned them; never written to a checkpoint.
       */
      reasoning?: ReasoningItem[];
    } & ModelTurn)
  | {
      ok: false;
      errorKind: ModelCallErrorKind;
      message: string;
      /** context_length: the refused prompt counted locally, and what the provider stated of its limit. */
      promptTokens?: number;
      stated?: StatedContextLimit;
    };

/**
 * The body of durable step `model-<n>`: records the step, calls the model through
 * `callModelRecorded` (one ModelCall row per HTTP attempt), ends the step with its output and
 * summary, and reads what an operator asked of the run (checkpoint, escalation) — memoized with it.
 *
 * A failed call that will be retried throws a StepRetryError (agent/model-retry.ts: 429 → wait
 * `retryAfterMs`, other transient kinds → the executor's backoff; the Inngest function maps it,
 * inngest/errors.ts) after noting the error on the step. A failure
 * for good — a kind that is not retried, or the last attempt (`attempt` ≥ `retries`) — marks the
 * step `failed` with its end time and returns `{ok: false, errorKind, message}` — for a
 * `context_length` refusal also the refused prompt's local count and the limit the provider stated.
 *
 * `spendUsd` (the task's whole model spend) is read only with a dollar ceiling (`costBudgetUsd`):
 * the query grows with the task and this is the hottest path of a run.
 *
 * `effort` (the effort dial's decision: level, model, rule) goes on the step row and into the call.
 * `discards` names the model step whose turn this one asks again (the dial's re-ask of a turn that
 * proposed a side effect below its level): it is marked discarded first, inside this durable step.
 */
export async function runModelStep({
  ports,
  runId,
  taskId,
  stepId,
  index,
  messages,
  tools,
  profile,
  costBudgetUsd,
  attempt,
  retries,
  effort,
  discards,
}: {
  ports: StepPorts & ModelPorts & RunRequestPorts;
  runId: string;
  taskId: string;
  stepId: string;
  index: number;
  messages: ChatMessage[];
  tools: ToolSchema[];
  profile: ModelProfile;
  costBudgetUsd: number | null;
  attempt: number;
  retries: number;
  effort?: EffortChoice | null;
  discards?: { stepId: string; reason: string } | null;
}): Promise<ModelStepResult> {
  if (discards) await ports.discardModelStep({ runId, stepId: discards.stepId, reason: discards.reason });
  const { completedBefore } = await ports.beginStep({ runId, stepId, index, kind: "model", effort: effort ?? null });
  const called = await callModelRecorded({
    ports,
    profile,
    runId,
    cacheKey: taskId,
    stepId,
    attempt,
    messages,
    tools,
    cause: completedBefore ? "replay" : "productive",
    ...(effort ? { effort: effort.level, model: effort.model } : {}),
  });
  if (!called.ok) {
    const { error } = called;
    const text = `[${error.kind}] ${error.message}`.slice(0, 2000);
    if (!isFinalModelFailure(error, attempt, retries)) {
      await ports.noteStepError({ runId, stepId, error: text });
      throw stepErrorForModelCall(error, attempt);
    }
    await ports.endStep({ runId, stepId, status: "failed", error: text, summary: `model call failed: ${error.kind}` });
    if (error.kind === "context_length")
      return { ok: false, errorKind: error.kind, message: error.message, promptTokens: countTokens(messages, tools), stated: parseContextLimit(error.message) };
    return { ok: false, errorKind: error.kind, message: error.message };
  }
  const { res, costUsd } = called;
  const calls = res.message.toolCalls;
  await ports.endStep({
    runId,
    stepId,
    status: "completed",
    output: {
      content: res.message.content,
      toolCalls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
      finishReason: res.finishReason,
      // What the timeline says of the call: reasoning items carried to the next turn (not their
      // opaque content), a server that answered without streaming, the effort sent.
      ...(res.reasoning?.length ? { reasoningItems: res.reasoning.length } : {}),
      ...(res.streamFallback ? { streamFallback: res.streamFallback } : {}),
      ...(res.effort ? { effort: res.effort } : {}),
    },
    summary: calls.length ? summarizeCalls(calls) : (res.message.content ?? "").slice(0, 120),
    usage: res.usage,
  });
  const requests = await ports.runRequests(runId);
  const spendUsd = costBudgetUsd !== null ? await ports.taskSpendUsd(taskId) : undefined;
  return {
    ok: true,
    spendUsd,
    content: res.message.content,
    toolCalls: calls,
    ...(res.reasoning?.length ? { reasoning: res.reasoning } : {}),
    usage: res.usage,
    finishReason: res.finishReason,
    costUsd,
    checkpointRequested: requests.checkpointRequested,
    escalationRequested: requests.escalationRequested,
  };
}
