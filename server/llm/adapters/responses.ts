import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from "openai";
import type {
  FunctionTool,
  Response as OpenAIResponse,
  ResponseCreateParams,
  ResponseInputItem,
  ResponseStreamEvent,
  ResponseUsage,
} from "openai/resources/responses/responses";
import { kindForStatus } from "../errors.ts";
import { countCompletionTokens, countTokens } from "../tokens.ts";
import type { ChatMessage, ModelRequest, ModelResult, ModelToolCall, ModelUsage, ReasoningItem, ToolSchema } from "../types.ts";
import { answeredWithoutStreaming, CallGuard, streamFallbackNote } from "./call-guard.ts";

const SDK = { APIError, APIConnectionError, APIUserAbortError };

/**
 * Longhaul's transcript as Responses API input (OpenAI's "Migrate to the Responses API" guide): the
 * system message becomes `instructions`; a user message an input message; an assistant turn its
 * reasoning items first (as they were returned: id, summary, encrypted content — the model's reasoning
 * carries across its tool calls), then its text as an assistant message, then one `function_call`
 * item per tool call; a tool result a `function_call_output` for its `call_id`. Pure.
 */
export function toResponsesInput(messages: readonly ChatMessage[]): { instructions: string | null; input: ResponseInputItem[] } {
  const instructions: string[] = [];
  const input: ResponseInputItem[] = [];
  for (const m of messages) {
    if (m.role === "system") instructions.push(m.content);
    else if (m.role === "user") input.push({ type: "message", role: "user", content: m.content });
    else if (m.role === "tool") input.push({ type: "function_call_output", call_id: m.tool_call_id, output: m.content });
    else {
      for (const item of m.reasoning ?? []) {
        if (item.type !== "openai_reasoning") continue;
        input.push({
          type: "reasoning",
          id: item.id,
          summary: item.summary.map((text) => ({ type: "summary_text" as const, text })),
          ...(item.encryptedContent !== null ? { encrypted_content: item.encryptedContent } : {}),
        });
      }
      if (m.content) input.push({ type: "message", role: "assistant", content: m.content });
      for (const call of m.tool_calls ?? [])
        input.push({ type: "function_call", call_id: call.id, name: call.function.name, arguments: call.function.arguments });
    }
  }
  return { instructions: instructions.length ? instructions.join("\n\n") : null, input };
}

/** Chat-style function tools as Responses function tools (flat: name, description, parameters; not strict, as on Chat Completions). Pure. */
export function toResponsesTools(tools: readonly ToolSchema[]): FunctionTool[] {
  return tools.map((t) => ({
    type: "function",
    name: t.function.name,
    ...(t.function.description !== undefined ? { description: t.function.description } : {}),
    parameters: t.function.parameters ?? { type: "object", properties: {} },
    strict: false,
  }));
}

function usageOf(usage: ResponseUsage | null | undefined): ModelUsage | null {
  if (!usage) return null;
  return {
    promptTokens: usage.input_tokens,
    cachedTokens: usage.input_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: usage.input_tokens_details?.cache_write_tokens ?? 0,
    completionTokens: usage.output_tokens,
    reasoningTokens: usage.output_tokens_details?.reasoning_tokens ?? 0,
  };
}

/** The turn a finished Response holds: text, tool calls in output order, reasoning items, and Chat Completions' finish reason. */
function turnOf(response: OpenAIResponse): { content: string | null; toolCalls: ModelToolCall[]; reasoning: ReasoningItem[]; finishReason: string } {
  let content: string | null = null;
  const toolCalls: ModelToolCall[] = [];
  const reasoning: ReasoningItem[] = [];
  for (const item of response.output ?? []) {
    if (item.type === "message") {
      for (const part of item.content) if (part.type === "output_text") content = (content ?? "") + part.text;
    } else if (item.type === "function_call") {
      toolCalls.push({ id: item.call_id, name: item.name, arguments: item.arguments });
    } else if (item.type === "reasoning") {
      reasoning.push({ type: "openai_reasoning", id: item.id, encryptedContent: item.encrypted_content ?? null, summary: item.summary.map((s) => s.text) });
    }
  }
  const incomplete = response.status === "incomplete" ? response.incomplete_details?.reason : null;
  const finishReason =
    incomplete === "max_output_tokens" ? "length" : incomplete === "content_filter" ? "content_filter" : toolCalls.length ? "tool_calls" : "stop";
  return { content, toolCalls, reasoning, finishReason };
}

/**
 * One Responses API call with tools through the `openai` SDK (`client.responses.create`), with the same
 * timeouts, watchdog, cancellation and error kinds as the Chat Completions adapter (CallGuard). Sent
 * with `store: false` and `include: ["reasoning.encrypted_content"]`, so nothing is kept at OpenAI and
 * each reasoning item comes back encrypted, to be sent back in the next request of the segment
 * (toResponsesInput); `prompt_cache_key` from `promptCacheKey`; `reasoning.effort` from `effort`.
 * Streaming: the turn is read from `response.completed` (or `response.incomplete`); `response.failed`
 * and `error` events fail with the kind their code names; a stream that ends before either is a cut
 * stream. A server that answers the streamed request with a whole JSON Response is read as that.
 */
export async function createResponse(request: ModelRequest): Promise<ModelResult> {
  let partialText = "";
  const partialCalls: { name: string; arguments: string }[] = [];
  const estimate = (): ModelUsage => ({
    promptTokens: countTokens(request.messages, request.tools),
    cachedTokens: 0,
    completionTokens: countCompletionTokens(partialText || null, partialCalls),
  });
  const guard = new CallGuard(request, estimate);
  const client = new OpenAI({
    baseURL: request.baseUrl,
    apiKey: request.apiKey || "not-needed",
    maxRetries: 0,
    defaultHeaders: { ...(request.apiKey ? {} : { authorization: null }), ...request.headers },
    timeout: guard.sdkTimeoutMs,
  });
  const { instructions, input } = toResponsesInput(request.messages);
  const params: ResponseCreateParams = {
    model: request.model,
    input,
    ...(instructions !== null ? { instructions } : {}),
    ...(request.tools && request.tools.length > 0 ? { tools: toResponsesTools(request.tools), parallel_tool_calls: true } : {}),
    ...(request.toolChoice && request.tools?.length ? { tool_choice: request.toolChoice } : {}),
    store: false,
    include: ["reasoning.encrypted_content"],
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.maxTokens !== undefined ? { max_output_tokens: request.maxTokens } : {}),
    ...(request.promptCacheKey ? { prompt_cache_key: request.promptCacheKey } : {}),
    ...(request.effort ? { reasoning: { effort: request.effort } } : {}),
  };
  const effort = request.effort ? { effort: { level: request.effort, sentAs: "reasoning.effort" } } : {};

  const result = (data: OpenAIResponse, response: Response, streamed: boolean, streamFallback?: string): ModelResult => {
    guard.settle();
    const turn = turnOf(data);
    const usage = usageOf(data.usage);
    partialText = turn.content ?? "";
    partialCalls.push(...turn.toolCalls);
    return {
      message: { content: turn.content, toolCalls: turn.toolCalls },
      reasoning: turn.reasoning,
      finishReason: turn.finishReason,
      usage: usage ?? estimate(),
      usageEstimated: !usage,
      latencyMs: guard.elapsed(),
      httpStatus: guard.httpStatus,
      responseId: data.id ?? null,
      requestId: response.headers.get("x-request-id"),
      streamed,
      ...(streamFallback ? { streamFallback } : {}),
      ...effort,
    };
  };
  /** A failed Response (`status: failed`, or `response.failed`): its error code decides the kind. */
  const failed = (data: OpenAIResponse) => {
    const code: string | null = data.error?.code ?? null;
    const message = data.error?.message ?? "the response failed";
    const kind = kindForStatus(code === "rate_limit_exceeded" ? 429 : code === "context_length_exceeded" ? 400 : 500, code, message);
    return guard.fail(kind === "bad_request" ? "server" : kind, `the response failed (${code ?? "no code"}): ${message}`, { billed: guard.tokensFlowed });
  };

  try {
    if (!guard.stream) {
      const { data, response } = await guard.send(() => client.responses.create({ ...params, stream: false }, { signal: guard.signal }).withResponse(), SDK);
      if (guard.abortCause !== null) throw guard.abortError("request");
      if (data.status === "failed") throw failed(data);
      return result(data, response, false);
    }

    const { data: events, response } = await guard.send<AsyncIterable<ResponseStreamEvent>>(
      () => client.responses.create({ ...params, stream: true }, { signal: guard.signal }).withResponse(),
      SDK,
    );
    guard.armChunkWatchdog();
    if (answeredWithoutStreaming(response)) {
      const data = await guard.wholeBody<OpenAIResponse>(response, SDK);
      if (data.status === "failed") throw failed(data);
      return result(data, response, false, streamFallbackNote(response));
    }
    let final: OpenAIResponse | null = null;
    try {
      for await (const event of events) {
        guard.armChunkWatchdog();
        switch (event.type) {
          case "response.output_text.delta":
            partialText += event.delta;
            guard.tokensFlowed = true;
            break;
          case "response.output_item.added":
            if (event.item.type === "function_call") partialCalls.push({ name: event.item.name, arguments: "" });
            guard.tokensFlowed = true;
            break;
          case "response.function_call_arguments.delta": {
            const last = partialCalls.at(-1);
            if (last) last.arguments += event.delta;
            guard.tokensFlowed = true;
            break;
          }
          case "response.completed":
          case "response.incomplete":
            final = event.response;
            break;
          case "response.failed":
            throw failed(event.response);
          case "error": {
            const kind = kindForStatus(event.code === "rate_limit_exceeded" ? 429 : 500, event.code, event.message);
            throw guard.fail(kind === "bad_request" ? "server" : kind, `provider error inside the stream (${event.code ?? "no code"}): ${event.message}`, {
              billed: guard.tokensFlowed,
            });
          }
          default:
            break;
        }
      }
    } catch (err) {
      throw guard.classify(err, "stream", SDK);
    }
    guard.settle();
    if (guard.abortCause !== null && !(guard.abortCause === "timeout_chunk" && final !== null)) throw guard.abortError("stream");
    if (final === null) throw guard.fail("stream_cut", "stream ended without response.completed", { billed: guard.tokensFlowed });
    return result(final, response, true);
  } finally {
    guard.dispose();
  }
}
