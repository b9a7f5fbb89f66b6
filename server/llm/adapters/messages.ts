import Anthropic, { APIConnectionError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import type {
  ContentBlockParam,
  Message,
  MessageCreateParamsBase,
  MessageParam,
  RawMessageStreamEvent,
  TextBlockParam,
  Tool,
  Usage,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { countCompletionTokens, countTokens } from "../tokens.ts";
import type { ChatMessage, ModelRequest, ModelResult, ModelToolCall, ModelUsage, ReasoningItem, ToolSchema } from "../types.ts";
import { answeredWithoutStreaming, CallGuard, streamFallbackNote } from "./call-guard.ts";

const SDK = { APIError, APIConnectionError, APIUserAbortError };

/** Most `cache_control` breakpoints one request may carry (Anthropic's prompt-caching guide: up to 4). */
export const MAX_CACHE_BREAKPOINTS = 4;
/**
 * How many blocks before a breakpoint Anthropic looks for an earlier cache entry (its prompt-caching
 * guide: "up to 20 blocks before" the explicit breakpoint). A turn that adds more blocks than this
 * (a wide parallel tool call: one `tool_result` a call) needs its own breakpoint at the previous
 * request's end, or the next request misses everything but the system prompt.
 */
export const CACHE_LOOKBACK_BLOCKS = 20;
/** `max_tokens` when the request names none: the Messages API requires one; thinking and the reply share it. */
export const DEFAULT_MAX_TOKENS = 16_384;

const EPHEMERAL = { type: "ephemeral" } as const;

/** A tool call's raw arguments as the object Anthropic's `tool_use.input` must be (a string that is not a JSON object is kept under `_raw`). */
function inputOf(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw);
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  return { _raw: raw };
}

/** The text blocks of a user message, split at its `cacheBreaks` (offsets where a stable prefix ends). */
function userBlocks(content: string, breaks: readonly number[] | undefined): { blocks: TextBlockParam[]; breakBlocks: number[] } {
  const cuts = [...new Set((breaks ?? []).filter((b) => b > 0 && b < content.length))].sort((a, b) => a - b);
  const blocks: TextBlockParam[] = [];
  const breakBlocks: number[] = [];
  let from = 0;
  for (const cut of [...cuts, content.length]) {
    blocks.push({ type: "text", text: content.slice(from, cut) });
    breakBlocks.push(blocks.length - 1);
    from = cut;
  }
  if (blocks.length === 0) blocks.push({ type: "text", text: content || " " });
  return { blocks, breakBlocks };
}

/**
 * Longhaul's transcript as a Messages API request, laid out for Anthropic's prompt caching (its
 * "Prompt caching" guide: the cache prefix is tools, then system, then messages, cut at
 * `cache_control` breakpoints, at most MAX_CACHE_BREAKPOINTS). Breakpoints, in order of priority:
 * 1. the last message's last block — the turns so far, read back by the next turn;
 * 1b. the previous request's last block, when more than CACHE_LOOKBACK_BLOCKS blocks follow it
 *    (otherwise breakpoint 1 finds it by the lookback) — that request wrote it, this one reads it;
 * 2. the end of the task message — the checkpoint's state (working set, completed steps);
 * 3. the task message's first `cacheBreaks` offset — the goal, stable for the whole task;
 * 4. the system prompt — with the tools before it, stable for every task of the profile.
 * Fewer when they coincide. Turns: an assistant turn is its thinking blocks first (with their
 * signatures, as Anthropic requires inside a tool-use turn), then its text, then one `tool_use` per
 * call; consecutive tool results (and a user message after them) form one user turn, results first.
 * Pure.
 */
export function toAnthropicRequest(messages: readonly ChatMessage[]): { system: TextBlockParam[]; messages: MessageParam[] } {
  const system: TextBlockParam[] = [];
  const out: { role: "user" | "assistant"; content: ContentBlockParam[] }[] = [];
  /** [message index, block index] of the breakpoint candidates besides the last block. */
  let goalMark: [number, number] | null = null;
  let stateMark: [number, number] | null = null;
  const userTurn = () => {
    const last = out.at(-1);
    if (last && last.role === "user") return last;
    const turn = { role: "user" as const, content: [] as ContentBlockParam[] };
    out.push(turn);
    return turn;
  };
  for (const m of messages) {
    if (m.role === "system") {
      system.push({ type: "text", text: m.content });
    } else if (m.role === "user") {
      const turn = userTurn();
      const { blocks, breakBlocks } = userBlocks(m.content, m.cacheBreaks);
      const offset = turn.content.length;
      turn.content.push(...blocks);
      if (m.cacheBreaks?.length && goalMark === null) {
        const at = out.length - 1;
        goalMark = [at, offset + breakBlocks[0]!];
        stateMark = [at, offset + breakBlocks.at(-1)!];
      }
    } else if (m.role === "tool") {
      userTurn().content.push({ type: "tool_result", tool_use_id: m.tool_call_id, content: m.content });
    } else {
      const content: ContentBlockParam[] = [];
      for (const item of m.reasoning ?? []) {
        if (item.type === "anthropic_thinking") content.push({ type: "thinking", thinking: item.thinking, signature: item.signature });
        else if (item.type === "anthropic_redacted_thinking") content.push({ type: "redacted_thinking", data: item.data });
      }
      if (m.content) content.push({ type: "text", text: m.content });
      for (const call of m.tool_calls ?? []) content.push({ type: "tool_use", id: call.id, name: call.function.name, input: inputOf(call.function.arguments) });
      if (content.length === 0) content.push({ type: "text", text: " " });
      out.push({ role: "assistant", content });
    }
  }
  // Tool results must open their user turn.
  for (const turn of out) {
    if (turn.role !== "user") continue;
    const results = turn.content.filter((b) => b.type === "tool_result");
    if (results.length && turn.content[0]?.type !== "tool_result") {
      const moved = new Map<number, number>();
      const reordered = [...results, ...turn.content.filter((b) => b.type !== "tool_result")];
      turn.content.forEach((b, i) => moved.set(i, reordered.indexOf(b)));
      for (const mark of [goalMark, stateMark]) if (mark && out[mark[0]] === turn) mark[1] = moved.get(mark[1]) ?? mark[1];
      turn.content = reordered;
    }
  }
  const marks: [number, number][] = [];
  const lastTurn = out.length - 1;
  if (lastTurn >= 0) marks.push([lastTurn, out[lastTurn]!.content.length - 1]);
  // The previous request ended with the user turn before the last assistant turn.
  const lastAssistant = out.findLastIndex((t) => t.role === "assistant");
  if (lastAssistant > 0 && out[lastAssistant - 1]!.role === "user") {
    const following = out.slice(lastAssistant).reduce((n, t) => n + t.content.length, 0);
    if (following > CACHE_LOOKBACK_BLOCKS) marks.push([lastAssistant - 1, out[lastAssistant - 1]!.content.length - 1]);
  }
  for (const mark of [stateMark, goalMark]) if (mark && !marks.some(([t, b]) => t === mark[0] && b === mark[1])) marks.push(mark);
  const budget = MAX_CACHE_BREAKPOINTS - (system.length ? 1 : 0);
  for (const [t, b] of marks.slice(0, budget)) {
    const block = out[t]!.content[b] as ContentBlockParam & { cache_control?: unknown };
    if (block.type === "thinking" || block.type === "redacted_thinking") continue; // thinking blocks take no breakpoint
    out[t]!.content[b] = { ...block, cache_control: EPHEMERAL };
  }
  if (system.length) system[system.length - 1] = { ...system.at(-1)!, cache_control: EPHEMERAL };
  return { system, messages: out };
}

/** Chat-style function tools as Anthropic tools (`input_schema`). Pure. */
export function toAnthropicTools(tools: readonly ToolSchema[]): Tool[] {
  return tools.map((t) => ({
    name: t.function.name,
    ...(t.function.description !== undefined ? { description: t.function.description } : {}),
    input_schema: (t.function.parameters ?? { type: "object", properties: {} }) as Tool["input_schema"],
  }));
}

/**
 * Anthropic's usage in OpenAI's convention (types.ts ModelUsage): Anthropic's `input_tokens` leaves out
 * the tokens read from and written to the cache, so the whole prompt is their sum; thinking tokens
 * are part of `output_tokens`.
 */
export function usageFromAnthropic(
  usage: Pick<Usage, "input_tokens" | "output_tokens" | "cache_creation_input_tokens" | "cache_read_input_tokens"> & {
    output_tokens_details?: { thinking_tokens: number } | null;
  },
): ModelUsage {
  const read = usage.cache_read_input_tokens ?? 0;
  const write = usage.cache_creation_input_tokens ?? 0;
  return {
    promptTokens: usage.input_tokens + read + write,
    cachedTokens: read,
    cacheWriteTokens: write,
    completionTokens: usage.output_tokens,
    reasoningTokens: usage.output_tokens_details?.thinking_tokens ?? 0,
  };
}

/** Anthropic's stop reason in Chat Completions' words (the loop reads those). */
function finishReasonOf(stop: string | null | undefined): string | null {
  switch (stop) {
    case null:
    case undefined:
      return null;
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "content_filter";
    default:
      return "stop";
  }
}

/** The turn of a whole Message: text, tool calls in order, thinking blocks. */
function turnOf(message: Pick<Message, "content">): { content: string | null; toolCalls: ModelToolCall[]; reasoning: ReasoningItem[] } {
  let content: string | null = null;
  const toolCalls: ModelToolCall[] = [];
  const reasoning: ReasoningItem[] = [];
  for (const block of message.content) {
    if (block.type === "text") content = (content ?? "") + block.text;
    else if (block.type === "tool_use") toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) });
    else if (block.type === "thinking") reasoning.push({ type: "anthropic_thinking", thinking: block.thinking, signature: block.signature });
    else if (block.type === "redacted_thinking") reasoning.push({ type: "anthropic_redacted_thinking", data: block.data });
  }
  return { content, toolCalls, reasoning };
}

/**
 * One Messages API call with tools through `@anthropic-ai/sdk`, with the same timeouts, watchdog,
 * cancellation and error kinds as the other adapters (CallGuard; 529 `overloaded_error` → `overloaded`,
 * "prompt is too long" → `context_length`). The prompt is laid out with cache breakpoints
 * (toAnthropicRequest); `effort` goes out as `output_config.effort` with adaptive thinking (Anthropic's
 * effort guide: effort sets how deep the model thinks); the thinking blocks that come back are returned
 * as `reasoning`, to go back in the next request. `promptCacheKey` goes out as `metadata.user_id`
 * (Anthropic has no cache key; it identifies the task to the provider). Parallel tool calls come in
 * content order. Streaming reads `message_start`, `content_block_*`, `message_delta` and `message_stop`;
 * a stream that ends before `message_stop` is a cut stream. A server that answers the streamed
 * request with a whole JSON Message is read as that.
 */
export async function createMessage(request: ModelRequest): Promise<ModelResult> {
  let partialText = "";
  const partialCalls: { name: string; arguments: string }[] = [];
  const estimate = (): ModelUsage => ({
    promptTokens: countTokens(request.messages, request.tools),
    cachedTokens: 0,
    completionTokens: countCompletionTokens(partialText || null, partialCalls),
  });
  const guard = new CallGuard(request, estimate);
  // A key passed in code is the client's only credential: the SDK then reads no ANTHROPIC_API_KEY of
  // its own. Without a key, the placeholder header is removed, so no key of any kind leaves.
  const client = new Anthropic({
    baseURL: request.baseUrl,
    apiKey: request.apiKey || "not-needed",
    maxRetries: 0,
    defaultHeaders: { ...(request.apiKey ? {} : { "x-api-key": null, authorization: null }), ...request.headers },
    timeout: guard.sdkTimeoutMs,
  });
  const { system, messages } = toAnthropicRequest(request.messages);
  const params: MessageCreateParamsBase = {
    model: request.model,
    max_tokens: request.maxTokens ?? DEFAULT_MAX_TOKENS,
    messages,
    ...(system.length ? { system } : {}),
    ...(request.tools && request.tools.length > 0 ? { tools: toAnthropicTools(request.tools) } : {}),
    ...(request.toolChoice && request.tools?.length ? { tool_choice: { type: request.toolChoice } } : {}),
    ...(request.temperature !== undefined && !request.effort ? { temperature: request.temperature } : {}),
    ...(request.promptCacheKey ? { metadata: { user_id: request.promptCacheKey } } : {}),
    ...(request.effort ? { output_config: { effort: request.effort }, thinking: { type: "adaptive" } } : {}),
  };
  const effort = request.effort ? { effort: { level: request.effort, sentAs: "output_config.effort" } } : {};

  const result = (message: Message, response: Response, streamed: boolean, streamFallback?: string): ModelResult => {
    guard.settle();
    const turn = turnOf(message);
    const finishReason = finishReasonOf(message.stop_reason);
    if (finishReason === null) throw guard.fail("stream_cut", "message carried no stop_reason", { billed: true });
    return {
      message: { content: turn.content, toolCalls: turn.toolCalls },
      reasoning: turn.reasoning,
      finishReason,
      usage: usageFromAnthropic(message.usage),
      usageEstimated: false,
      latencyMs: guard.elapsed(),
      httpStatus: guard.httpStatus,
      responseId: message.id ?? null,
      requestId: response.headers.get("request-id"),
      streamed,
      ...(streamFallback ? { streamFallback } : {}),
      ...effort,
    };
  };

  try {
    if (!guard.stream) {
      const { data, response } = await guard.send(() => client.messages.create({ ...params, stream: false }, { signal: guard.signal }).withResponse(), SDK);
      if (guard.abortCause !== null) throw guard.abortError("request");
      return result(data, response, false);
    }

    const { data: events, response } = await guard.send<AsyncIterable<RawMessageStreamEvent>>(
      () => client.messages.create({ ...params, stream: true }, { signal: guard.signal }).withResponse(),
      SDK,
    );
    guard.armChunkWatchdog();
    if (answeredWithoutStreaming(response)) return result(await guard.wholeBody<Message>(response, SDK), response, false, streamFallbackNote(response));
    // The message as the events build it (the SDK's MessageStream accumulates the same way).
    let message: Message | null = null;
    const json = new Map<number, string>();
    let stopped = false;
    try {
      for await (const event of events) {
        guard.armChunkWatchdog();
        switch (event.type) {
          case "message_start":
            message = { ...event.message, content: [...event.message.content] };
            break;
          case "content_block_start":
            if (!message) break;
            message.content[event.index] = { ...event.content_block };
            if (event.content_block.type === "tool_use") {
              json.set(event.index, "");
              partialCalls.push({ name: event.content_block.name, arguments: "" });
            }
            guard.tokensFlowed = true;
            break;
          case "content_block_delta": {
            const block = message?.content[event.index] as Record<string, unknown> | undefined;
            if (!block) break;
            const d = event.delta;
            if (d.type === "text_delta") {
              block.text = `${(block.text as string | undefined) ?? ""}${d.text}`;
              partialText += d.text;
            } else if (d.type === "input_json_delta") {
              json.set(event.index, (json.get(event.index) ?? "") + d.partial_json);
              const last = partialCalls.at(-1);
              if (last) last.arguments += d.partial_json;
            } else if (d.type === "thinking_delta") block.thinking = `${(block.thinking as string | undefined) ?? ""}${d.thinking}`;
            else if (d.type === "signature_delta") block.signature = `${(block.signature as string | undefined) ?? ""}${d.signature}`;
            guard.tokensFlowed = true;
            break;
          }
          case "content_block_stop": {
            const block = message?.content[event.index] as Record<string, unknown> | undefined;
            const raw = json.get(event.index);
            if (block && block.type === "tool_use" && raw !== undefined) block.input = raw.trim() ? inputOf(raw) : {};
            break;
          }
          case "message_delta":
            if (!message) break;
            message.stop_reason = event.delta.stop_reason ?? message.stop_reason;
            message.usage = {
              ...message.usage,
              output_tokens: event.usage.output_tokens,
              ...(event.usage.input_tokens !== null && event.usage.input_tokens !== undefined ? { input_tokens: event.usage.input_tokens } : {}),
              ...(event.usage.cache_read_input_tokens !== null && event.usage.cache_read_input_tokens !== undefined
                ? { cache_read_input_tokens: event.usage.cache_read_input_tokens }
                : {}),
              ...(event.usage.cache_creation_input_tokens !== null && event.usage.cache_creation_input_tokens !== undefined
                ? { cache_creation_input_tokens: event.usage.cache_creation_input_tokens }
                : {}),
              ...(event.usage.output_tokens_details ? { output_tokens_details: event.usage.output_tokens_details } : {}),
            };
            break;
          case "message_stop":
            stopped = true;
            break;
          default:
            break;
        }
      }
    } catch (err) {
      throw guard.classify(err, "stream", SDK);
    }
    guard.settle();
    if (guard.abortCause !== null && !(guard.abortCause === "timeout_chunk" && stopped)) throw guard.abortError("stream");
    if (!message || !stopped) throw guard.fail("stream_cut", "stream ended without message_stop", { billed: guard.tokensFlowed });
    message.content = message.content.filter(Boolean);
    return result(message, response, true);
  } finally {
    guard.dispose();
  }
}
