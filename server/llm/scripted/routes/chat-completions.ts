import { z } from "zod";
import { tokenizePrompt } from "../../tokens.ts";
import { EFFORT_LEVELS, type ChatMessage, type ToolSchema } from "../../types.ts";
import type { NeutralRequest, ScriptedState, WireFormatRoute } from "../core.ts";
import { openaiError, pieces, sendJson, sseEvent, writeStream } from "../http.ts";

const requestSchema = z
  .object({
    model: z.string().min(1),
    messages: z.array(z.object({ role: z.string() }).passthrough()).min(1),
    tools: z.array(z.object({ type: z.string(), function: z.object({ name: z.string() }).passthrough() }).passthrough()).optional(),
    stream: z.boolean().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullish(),
    prompt_cache_key: z.string().optional(),
    reasoning_effort: z.enum(EFFORT_LEVELS).nullish(),
  })
  .passthrough();

/** Content given as an array of parts (`[{type: "text", text}]`) becomes its text, so agents read strings. */
function normalizeMessages(messages: readonly Record<string, unknown>[]): ChatMessage[] {
  return messages.map((m) => {
    const content = m.content;
    if (!Array.isArray(content)) return { ...m, content: content ?? (m.role === "assistant" ? null : "") } as unknown as ChatMessage;
    const text = content
      .map((part) => (part && typeof part === "object" && typeof (part as { text?: unknown }).text === "string" ? (part as { text: string }).text : ""))
      .join("");
    return { ...m, content: text } as unknown as ChatMessage;
  });
}

const STATUS = { invalid: 400, not_found: 404, rate_limit: 429, server: 500, overloaded: 503, context_length: 400 } as const;
const TYPE = {
  invalid: "invalid_request_error",
  not_found: "invalid_request_error",
  rate_limit: "requests",
  server: "server_error",
  overloaded: "server_error",
  context_length: "invalid_request_error",
} as const;

/**
 * The OpenAI request reading shared by Chat Completions and the Responses API: prompt tokens over the
 * messages and tool schemas (minted ids normalised), cached tokens by OpenAI's prefix rule
 * (PrefixCache: 128-token blocks from 1024, per `prompt_cache_key`). OpenAI does not bill cache
 * writes, so none are reported.
 */
export function openaiNeutral(state: ScriptedState, base: Omit<NeutralRequest, "promptTokens" | "promptCache">): NeutralRequest {
  let tokens: number[] | null = null;
  const promptTokenIds = () => (tokens ??= tokenizePrompt(state.mintedIds.normalizeMessages(base.messages, base.scope), base.tools));
  return {
    ...base,
    promptTokens: () => promptTokenIds().length,
    promptCache: () => ({ cachedTokens: state.prefixCache.lookupAndStore(promptTokenIds(), base.scope), cacheWriteTokens: 0 }),
  };
}

/** The context-length refusal in OpenAI's, vLLM's or llama.cpp's words (`style`), or with no limit stated. */
export function openaiContextLengthMessage(
  fault: { style: string; statedLimitTokens?: number | undefined; maxPromptTokens: number },
  prompt: number,
): { message: string; code?: string } {
  const limit = fault.statedLimitTokens ?? fault.maxPromptTokens;
  if (fault.style === "openai")
    return {
      message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${prompt} tokens. Please reduce the length of the messages.`,
      code: "context_length_exceeded",
    };
  if (fault.style === "vllm")
    return {
      message: `This model's maximum context length is ${limit} tokens. However, you requested ${prompt + 256} tokens (${prompt} in the messages, 256 in the completion). Please reduce the length of the messages or completion.`,
    };
  if (fault.style === "llamacpp") return { message: `request (${prompt} tokens) exceeds the available context size (${limit} tokens), try increasing it` };
  return { message: "The input is too long for the model's context window.", code: "context_length_exceeded" };
}

/** An error in OpenAI's words for a route kind. */
export function openaiRouteError(
  res: Parameters<WireFormatRoute["error"]>[0],
  kind: Parameters<WireFormatRoute["error"]>[1],
  message: string,
  extra: { headers?: Record<string, string>; code?: string } = {},
): void {
  const code = extra.code ?? (kind === "not_found" ? "model_not_found" : kind === "rate_limit" ? "rate_limit_exceeded" : null);
  openaiError(
    res,
    STATUS[kind],
    kind === "overloaded" ? "The engine is currently overloaded, please try again later." : message,
    TYPE[kind],
    code,
    extra.headers ?? {},
  );
}

/**
 * `POST /v1/chat/completions`: OpenAI Chat Completions, streaming (chunks with tool-call deltas, a
 * final usage chunk when `stream_options.include_usage`, then `[DONE]`) and not. A request with
 * `reasoning_effort` is answered as a reasoning model would: reasoning tokens counted in the
 * completion, nothing of them returned (Chat Completions has no place for them).
 */
export const chatCompletionsRoute: WireFormatRoute = {
  route: "chat",
  parse(json, state) {
    const parsed = requestSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { ok: false, status: 400, message: `Invalid request: ${issue?.path.join(".") || "body"}: ${issue?.message}` };
    }
    const body = parsed.data;
    return {
      ok: true,
      request: openaiNeutral(state, {
        model: body.model,
        messages: normalizeMessages(body.messages),
        ...(body.tools ? { tools: body.tools as unknown as ToolSchema[] } : {}),
        stream: body.stream === true,
        scope: body.prompt_cache_key ?? "",
        ...(body.reasoning_effort ? { effort: body.reasoning_effort } : {}),
        reasoning: !!body.reasoning_effort,
        includeUsage: body.stream_options?.include_usage === true,
      }),
    };
  },
  error: openaiRouteError,
  contextLengthMessage: openaiContextLengthMessage,
  render(res, reply, { stream, fault, request }) {
    const id = `chatcmpl-${reply.hash.slice(0, 29)}`;
    const created = Math.floor(Date.now() / 1000);
    const requestId = { "x-request-id": `req_${reply.hash.slice(0, 32)}` };
    const calls = reply.toolCalls.map((c) => ({ ...c, id: `call_${c.id}` }));
    const usage = {
      prompt_tokens: reply.usage.promptTokens,
      completion_tokens: reply.usage.completionTokens,
      total_tokens: reply.usage.promptTokens + reply.usage.completionTokens,
      prompt_tokens_details: { cached_tokens: reply.usage.cachedTokens, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: reply.usage.reasoningTokens,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    };
    const noUsage = fault?.kind === "no_usage";
    if (!stream) {
      const completion = {
        id,
        object: "chat.completion",
        created,
        model: reply.model,
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: reply.content,
              refusal: null,
              ...(calls.length ? { tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })) } : {}),
            },
            logprobs: null,
            finish_reason: reply.finishReason,
          },
        ],
        ...(noUsage ? {} : { usage }),
        system_fingerprint: "fp_scripted",
      };
      const text = JSON.stringify(completion);
      if (fault?.kind === "cut") {
        if (!res.headersSent) res.writeHead(200, { "content-type": "application/json", ...requestId });
        res.end(text.slice(0, Math.floor(text.length / 2)));
        return;
      }
      if (res.headersSent) res.end(text);
      else sendJson(res, 200, completion, requestId);
      return;
    }
    const includeUsage = request.includeUsage === true && !noUsage;
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      sseEvent({
        id,
        object: "chat.completion.chunk",
        created,
        model: reply.model,
        system_fingerprint: "fp_scripted",
        choices,
        ...(includeUsage ? { usage: null } : {}),
        ...extra,
      });
    const events: string[] = [chunk([{ index: 0, delta: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: null }])];
    for (const piece of pieces(reply.content ?? "", reply.padding ? 65_536 : 24))
      events.push(chunk([{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }]));
    calls.forEach((call, index) => {
      events.push(
        chunk([
          {
            index: 0,
            delta: { tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] },
            logprobs: null,
            finish_reason: null,
          },
        ]),
      );
      for (const piece of pieces(call.arguments, 64)) {
        events.push(chunk([{ index: 0, delta: { tool_calls: [{ index, function: { arguments: piece } }] }, logprobs: null, finish_reason: null }]));
      }
    });
    const bodyEvents = events.length;
    events.push(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: reply.finishReason }]));
    if (includeUsage) events.push(chunk([], { usage }));
    events.push(sseEvent("[DONE]"));
    writeStream(res, events, { bodyEvents, cut: fault?.kind === "cut", requestIdHeader: requestId });
  },
};
