import { NonRetriableError, RetryAfterError } from "inngest";
import { prisma } from "../../db/prisma.ts";
import { beginStep, endStep, finishRun, recordModelCall, startRun, type RunStart } from "../../db/run-repository.ts";
import { assistantMessage, buildInitialMessages, toolResultMessage } from "../../domain/agent-context.ts";
import { modelCallCostUsd } from "../../domain/cost.ts";
import { reachedCeiling } from "../../domain/step-budget.ts";
import { ModelCallError } from "../../llm/errors.ts";
import { createChatCompletion, resolveProvider } from "../../llm/provider.ts";
import type { ChatMessage, ModelToolCall, ModelUsage } from "../../llm/types.ts";
import { executeToolCall, toolDefinitions, type ToolCallResult } from "../../tools/registry.ts";
import { inngest } from "../client.ts";
import { runCancelled, runStarted } from "../events.ts";

/** Retries per step (Inngest semantics: attempts = retries + 1, INNGEST-PROTOCOL.md §2.2). */
export const AGENT_STEP_RETRIES = 4;

/** What a memoized model step returns: small, JSON, enough to rebuild the transcript on replay. */
interface ModelTurn {
  content: string | null;
  toolCalls: ModelToolCall[];
  usage: ModelUsage;
  finishReason: string;
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
    return { content: res.message.content, toolCalls: calls, usage: res.usage, finishReason: res.finishReason };
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

/** Runs one tool call inside its durable step and records it on the timeline. */
async function runToolStep({ start, stepId, index, call }: { start: RunStart; stepId: string; index: number; call: ModelToolCall }): Promise<ToolCallResult> {
  const db = prisma();
  let args: unknown = call.arguments;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    // keep the raw text: the gateway reports the malformed call to the model
  }
  await beginStep({ prisma: db, runId: start.runId, stepId, index, kind: "tool", tool: call.name, args: args as never });
  const result = await executeToolCall({
    name: call.name,
    rawArguments: call.arguments,
    ctx: { prisma: db, taskId: start.taskId, runId: start.runId, stepId, workspace: start.workspace },
  });
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
  return `${tool}(${typeof arg === "string" ? arg.slice(0, 120) : ""})`;
}

/** `[kind] …` prefix of a step error thrown by runModelStep, or "error". */
function endReasonOf(error: unknown): "transient" | "error" {
  const message = error instanceof Error ? error.message : String(error);
  return /\[(rate_limited|server|timeout|stream_cut|network)\]/.test(message) ? "transient" : "error";
}

/**
 * The `agent-run` Inngest function: one run of a task. It parses the event, then loops over durable
 * steps — `model-<n>` (one model call) and `tool-<n>-<k>` (one tool call each) — until the agent
 * calls `finish` (completed) or `declare_dead_end` (dead end), or a ceiling is reached (failed,
 * `budget_exhausted`; escalation comes with the detectors). Everything with a side effect happens
 * inside a `step.run`; the code between steps is pure and rebuilds the transcript from memoized step
 * results, because Inngest replays the function from the top on every request
 * (ARCHITECTURE.md, "An agent run"; INNGEST-PROTOCOL.md §7.2 "Replays"). Step ids are derived from
 * the turn number and the call's position, never from time or randomness.
 */
export const agentRun = inngest.createFunction(
  {
    id: "agent-run",
    name: "Agent run",
    triggers: [runStarted],
    retries: AGENT_STEP_RETRIES,
    cancelOn: [{ event: runCancelled, match: "data.runId" }],
  },
  async ({ event, step, attempt }) => {
    const { taskId, runId } = event.data;
    const start = await step.run("start", () => startRun({ prisma: prisma(), taskId, runId }));
    const messages: ChatMessage[] = buildInitialMessages({ systemPrompt: start.profile.systemPrompt, goal: start.goal, workingSet: start.workingSet });
    let index = 0;
    let stepsUsed = 0;
    let tokensUsed = 0;

    for (let n = 0; ; n++) {
      const ceiling = reachedCeiling({ stepsUsed, stepBudget: start.stepBudget, tokensUsed, tokenBudget: start.tokenBudget });
      if (ceiling) {
        await step.run("end", () =>
          finishRun({
            prisma: prisma(),
            taskId,
            runId,
            runStatus: "failed",
            taskStatus: "failed",
            endReason: "budget_exhausted",
            error: `${ceiling.kind} budget reached: ${ceiling.used} of ${ceiling.limit}`,
          }),
        );
        return { status: "failed", endReason: "budget_exhausted", steps: stepsUsed };
      }

      const modelStepId = `model-${n}`;
      const modelIndex = index++;
      let turn: ModelTurn;
      try {
        turn = await step.run(modelStepId, () => runModelStep({ start, stepId: modelStepId, index: modelIndex, messages, attempt }));
      } catch (error) {
        const endReason = endReasonOf(error);
        const message = error instanceof Error ? error.message : String(error);
        await step.run("end", () => finishRun({ prisma: prisma(), taskId, runId, runStatus: "failed", taskStatus: "failed", endReason, error: message.slice(0, 2000) }));
        return { status: "failed", endReason, steps: stepsUsed };
      }
      stepsUsed += 1;
      tokensUsed += turn.usage.promptTokens + turn.usage.completionTokens;
      messages.push(assistantMessage(turn.content, turn.toolCalls));
      if (turn.toolCalls.length === 0) {
        messages.push({ role: "user", content: "Use a tool to make progress, or call finish with your result (or declare_dead_end with the reason)." });
        continue;
      }

      for (const [k, call] of turn.toolCalls.entries()) {
        const toolStepId = `tool-${n}-${k}`;
        const toolIndex = index++;
        const result = await step.run(toolStepId, () => runToolStep({ start, stepId: toolStepId, index: toolIndex, call }));
        stepsUsed += 1;
        messages.push(toolResultMessage(call.id, result));
        if (!result.ok) continue;
        if (call.name === "finish") {
          const output = JSON.parse(call.arguments) as { result: string };
          await step.run("end", () => finishRun({ prisma: prisma(), taskId, runId, runStatus: "completed", taskStatus: "completed", result: { summary: output.result } }));
          return { status: "completed", steps: stepsUsed };
        }
        if (call.name === "declare_dead_end") {
          const output = JSON.parse(call.arguments) as { reason: string };
          await step.run("end", () =>
            finishRun({ prisma: prisma(), taskId, runId, runStatus: "dead_end", taskStatus: "dead_end", deadEndReason: output.reason }),
          );
          return { status: "dead_end", steps: stepsUsed };
        }
      }
    }
  },
);
