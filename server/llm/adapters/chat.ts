import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from "openai";
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionCreateParams } from "openai/resources/chat/completions";
import { countCompletionTokens, countTokens } from "../tokens.ts";
import type { ChatMessage, ModelRequest, ModelResult, ModelToolCall, ModelUsage } from "../types.ts";
import { answeredWithoutStreaming, CallGuard, streamFallbackNote } from "./call-guard.ts";

const SDK = { APIError, APIConnectionError, APIUserAbortError };

/**
 * Longhaul's messages as Chat Completions wants them: the internal hints (`cacheBreaks`, `reasoning`)
 * are dropped — Chat Completions has no place for reasoning items (a reasoning model's reasoning is
 * not carried across turns on this wire) and caches by prefix without breakpoints. Pure.
 */
export function toChatMessages(messages: readonly ChatMessage[]): ChatCompletionCreateParams["messages"] {
  return messages.map((m) => {
    if (m.role === "user") return { role: "user", content: m.content };
    if (m.role === "assistant")
      return m.tool_calls?.length ? { role: "assistant", content: m.content, tool_calls: m.tool_calls } : { role: "assistant", content: m.content };
    return m;
  });
}

function usageOf(usage: ChatCompletion["usage"] | null | undefined): ModelUsage | null {
  if (!usage) return null;
  return {
    promptTokens: usage.prompt_tokens,
    cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
    completionTokens: usage.completion_tokens,
    cacheWriteTokens: 0,
    reasoningTokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
  };
}

/**
 * One Chat Completions call with tools through the `openai` SDK, Longhaul owning retries and timeouts
 * (CallGuard: the SDK runs with `maxRetries: 0`, because its own retries sleep through a provider's
 * retry-after inside the call, where neither the step nor a cancel can see them). Streaming by default
 * (with `stream_options.include_usage`); a stream that ends without a `finish_reason` is a cut stream
 * (the SDK ends its loop silently on abort). A server that answers the streamed request with a whole
 * JSON body instead of SSE (some OpenAI-compatible servers cannot stream) is read as that body,
 * `streamed: false` and `streamFallback` saying so — no second request. `effort` goes out as
 * `reasoning_effort`. Tool-call arguments are returned raw, unparsed: untrusted output for the tool
 * gateway. Parallel tool calls come back in index order. Failures: ModelCallError (errors.ts).
 */
export async function createChatCompletion(request: ModelRequest): Promise<ModelResult> {
  let content = "";
  const calls: { id: string; name: string; arguments: string }[] = [];
  const estimate = (): ModelUsage => ({
    promptTokens: countTokens(request.messages, request.tools),
    cachedTokens: 0,
    completionTokens: countCompletionTokens(content || null, calls),
  });
  const guard = new CallGuard(request, estimate);
  const client = new OpenAI({
    baseURL: request.baseUrl,
    apiKey: request.apiKey || "not-needed",
    maxRetries: 0,
    // No key: no Authorization header at all (a profile's own headers may still set one).
    defaultHeaders: { ...(request.apiKey ? {} : { authorization: null }), ...request.headers },
    timeout: guard.sdkTimeoutMs,
  });
  const options = { signal: guard.signal };
  const params = {
    model: request.model,
    messages: toChatMessages(request.messages),
    ...(request.tools && request.tools.length > 0 ? { tools: request.tools as ChatCompletionCreateParams["tools"] } : {}),
    ...(request.toolChoice && request.tools?.length ? { tool_choice: request.toolChoice } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.maxTokens !== undefined ? { max_completion_tokens: request.maxTokens } : {}),
    ...(request.promptCacheKey ? { prompt_cache_key: request.promptCacheKey } : {}),
    ...(request.effort ? { reasoning_effort: request.effort } : {}),
  };
  const effort = request.effort ? { effort: { level: request.effort, sentAs: "reasoning_effort" } } : {};

  /** A whole ChatCompletion body as the result (a non-streaming call, or a server that would not stream). */
  const whole = (data: ChatCompletion, response: Response, streamFallback?: string): ModelResult => {
    guard.settle();
    const choice = data.choices?.[0];
    if (!choice || !choice.finish_reason) throw guard.fail("stream_cut", "response carried no choice with a finish_reason", { billed: true });
    const toolCalls: ModelToolCall[] = [];
    for (const call of choice.message.tool_calls ?? []) {
      if (call.type === "function") toolCalls.push({ id: call.id, name: call.function.name, arguments: call.function.arguments });
    }
    content = choice.message.content ?? "";
    calls.push(...toolCalls);
    const usage = usageOf(data.usage);
    return {
      message: { content: choice.message.content ?? null, toolCalls },
      reasoning: [],
      finishReason: choice.finish_reason,
      usage: usage ?? estimate(),
      usageEstimated: !usage,
      latencyMs: guard.elapsed(),
      httpStatus: guard.httpStatus,
      responseId: data.id ?? null,
      requestId: response.headers.get("x-request-id"),
      streamed: false,
      ...(streamFallback ? { streamFallback } : {}),
      ...effort,
    };
  };

  try {
    if (!guard.stream) {
      const { data, response } = await guard.send(() => client.chat.completions.create({ ...params, stream: false }, options).withResponse(), SDK);
      if (guard.abortCause !== null) throw guard.abortError("request");
      return whole(data, response);
    }

    const { data: iterable, response } = await guard.send<AsyncIterable<ChatCompletionChunk>>(
      () => client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } }, options).withResponse(),
      SDK,
    );
    guard.armChunkWatchdog();
    // A server that ignored `stream: true` and sent the whole completion as JSON: read it as such.
    if (answeredWithoutStreaming(response)) return whole(await guard.wholeBody<ChatCompletion>(response, SDK), response, streamFallbackNote(response));
    let finishReason: string | null = null;
    let usage: ModelUsage | null = null;
    let responseId: string | null = null;
    let sawContent = false;
    const byIndex = new Map<number, { id: string; name: string; arguments: string }>();
    try {
      for await (const chunk of iterable) {
        guard.armChunkWatchdog();
        responseId ??= chunk.id ?? null;
        if (chunk.usage) usage = usageOf(chunk.usage);
        for (const choice of chunk.choices ?? []) {
          if (choice.index !== 0) continue;
          const delta = choice.delta;
          if (delta?.content) {
            content += delta.content;
            sawContent = true;
            guard.tokensFlowed = true;
          }
          for (const part of delta?.tool_calls ?? []) {
            let call = byIndex.get(part.index);
            if (!call) {
              call = { id: "", name: "", arguments: "" };
              byIndex.set(part.index, call);
              calls.push(call);
            }
            if (part.id) call.id = part.id;
            if (part.function?.name) call.name += part.function.name;
            if (part.function?.arguments) call.arguments += part.function.arguments;
            guard.tokensFlowed = true;
          }
          if (choice.finish_reason) finishReason = choice.finish_reason;
        }
      }
    } catch (err) {
      throw guard.classify(err, "stream", SDK);
    }
    guard.settle();
    // The SDK ends the loop without an error when the request is aborted. A stream that went silent
    // only after its finish_reason (waiting for the usage chunk or [DONE]) is complete.
    if (guard.abortCause !== null && !(guard.abortCause === "timeout_chunk" && finishReason !== null)) throw guard.abortError("stream");
    if (finishReason === null) throw guard.fail("stream_cut", "stream ended without a finish_reason", { billed: guard.tokensFlowed });
    const toolCalls = [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, call]) => call);
    return {
      message: { content: sawContent ? content : null, toolCalls },
      reasoning: [],
      finishReason,
      usage: usage ?? estimate(),
      usageEstimated: usage === null,
      latencyMs: guard.elapsed(),
      httpStatus: guard.httpStatus,
      responseId,
      requestId: response.headers.get("x-request-id"),
      streamed: true,
      ...effort,
    };
  } finally {
    guard.dispose();
  }
}
