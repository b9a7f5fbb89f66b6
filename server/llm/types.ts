/**
 * Plain-data shapes of a model call, neutral to the wire format. Messages mirror OpenAI Chat
 * Completions (snake_case where that wire uses it): it is Longhaul's internal transcript shape, and
 * each adapter (server/llm/adapters/) translates it to its provider's format — Chat Completions,
 * the Responses API or Anthropic's Messages API. No dependency on any SDK (the domain may import them).
 */

/**
 * How hard the model should think on one call. Each adapter maps it to its provider's control:
 * Chat Completions `reasoning_effort`, Responses `reasoning.effort`, Messages `output_config.effort`
 * (lib/contracts/profile.ts PROVIDERS says which control a provider has). Undefined = the
 * provider's default (nothing is sent).
 */
export { EFFORT_LEVELS, type EffortLevel } from "../../lib/contracts/effort.ts";
import type { EffortLevel } from "../../lib/contracts/effort.ts";

/** The three wire formats Longhaul speaks (a profile's provider picks one: lib/contracts/profile.ts PROVIDERS). */
export type WireFormat = "chat" | "responses" | "messages";

/**
 * Reasoning a provider returned that must go back, unchanged, in the following requests of the same
 * segment (the model's reasoning carries across its tool calls; the prompt prefix stays cacheable):
 * - `openai_reasoning`: a Responses API reasoning item; with `store: false` its `encrypted_content`
 *   is the reasoning itself, which OpenAI decrypts when it comes back.
 * - `anthropic_thinking`: a Messages API thinking block with its `signature` (Anthropic checks it:
 *   a changed block is refused); `anthropic_redacted_thinking`: one whose content is encrypted.
 * Opaque to Longhaul: stored with the model step's output (so a replayed step gives them back), never
 * in a checkpoint.
 */
export type ReasoningItem =
  | { type: "openai_reasoning"; id: string; encryptedContent: string | null; summary: string[] }
  | { type: "anthropic_thinking"; thinking: string; signature: string }
  | { type: "anthropic_redacted_thinking"; data: string };

/** One tool call as it appears in an assistant message on the wire. `arguments` is a raw JSON string. */
export interface WireToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A Chat Completions message (the subset Longhaul uses). */
export type ChatMessage =
  | { role: "system"; content: string }
  | {
      role: "user";
      content: string;
      /**
       * Character offsets in `content` where a stable prefix ends (the goal, then the checkpoint's
       * state): Anthropic's adapter splits the text there and puts `cache_control` breakpoints on it.
       * Not sent on the OpenAI wires (their caching is by prefix, automatic).
       */
      cacheBreaks?: number[];
    }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: WireToolCall[];
      /** Reasoning items / thinking blocks of this turn, sent back as the provider requires (ReasoningItem). */
      reasoning?: ReasoningItem[];
    }
  | { role: "tool"; tool_call_id: string; content: string };

/** A function tool schema as sent in `tools`. `parameters` is a JSON Schema object. */
export interface ToolSchema {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** A tool call returned by the model; `arguments` is the raw, untrusted string (may not be JSON). */
export interface ModelToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Token usage of one model call, in OpenAI's convention whatever the provider: `promptTokens` is the
 * whole prompt; `cachedTokens` the part of it read from the provider's prompt cache; `cacheWriteTokens`
 * the part written to it (Anthropic's `cache_creation_input_tokens`, priced apart; 0 on OpenAI, which
 * does not charge for writes); `completionTokens` the whole reply, `reasoningTokens` included.
 */
export interface ModelUsage {
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  /** Part of promptTokens written to the prompt cache by this call (Anthropic), when reported. */
  cacheWriteTokens?: number;
  /** Part of completionTokens spent on hidden reasoning, when the provider reports it. */
  reasoningTokens?: number;
}

/**
 * One model call, neutral to the wire format (server/llm/provider.ts `callModel` sends it through the
 * adapter of `wireFormat`). Timeouts and cancellation mean the same on every adapter.
 */
export interface ModelRequest {
  /** Which adapter speaks to the provider; default `chat` (OpenAI Chat Completions). */
  wireFormat?: WireFormat;
  /** The provider's base URL (OpenAI-style, ending in `/v1`; Anthropic's without `/v1`) — see resolveProvider. */
  baseUrl: string;
  /** API key; null/undefined for servers that need none (none is sent). */
  apiKey?: string | null;
  /** Extra HTTP headers sent with the request (a profile's `headers`, already resolved). */
  headers?: Record<string, string>;
  /** The model name as the provider knows it. */
  model: string;
  messages: ChatMessage[];
  tools?: ToolSchema[];
  /**
   * `"none"`: the model may not call a tool this turn, though `tools` are sent (a checkpoint's
   * summary request sends the run's tools so its prompt shares the turns' cached prefix — tools come
   * first in OpenAI's and Anthropic's prompt caches). Omitted: the provider's default (`auto`).
   */
  toolChoice?: "none";
  /** Stream the reply (SSE). Default true. A server that answers a streamed request with a whole JSON body is read as such. */
  stream?: boolean;
  /** Non-streaming: deadline for the whole call. Streaming: deadline for the response headers. ms. */
  timeoutMs?: number;
  /** Streaming only: longest silence between chunks (and from headers to the first chunk), ms. */
  chunkTimeoutMs?: number;
  /** The caller's cancellation; firing it raises ModelCallError kind `aborted`. */
  signal?: AbortSignal;
  temperature?: number;
  /** Most tokens the reply may use (Anthropic requires one: its adapter defaults it). */
  maxTokens?: number;
  /**
   * The cache scope of the call: OpenAI's `prompt_cache_key` (requests with the same key and prefix
   * share a prompt cache); Anthropic has no such key and caches by prefix (its adapter sends it as
   * `metadata.user_id`). Longhaul passes the task id, so a task's runs share their cache.
   */
  promptCacheKey?: string;
  /** The reasoning effort of this call (see EffortLevel); undefined = the provider's default. */
  effort?: EffortLevel;
}

/** What a model call returned, whatever the wire format. */
export interface ModelResult {
  message: { content: string | null; toolCalls: ModelToolCall[] };
  /** Reasoning items / thinking blocks to send back with this turn (ReasoningItem); absent or empty when none. */
  reasoning?: ReasoningItem[];
  /** Chat Completions' words whatever the provider: `stop`, `tool_calls`, `length`, `content_filter`, … */
  finishReason: string;
  usage: ModelUsage;
  /** True when the provider sent no usage and `usage` was counted locally with gpt-tokenizer. */
  usageEstimated: boolean;
  /** Wall time from sending the request to the end of the response, ms. */
  latencyMs: number;
  httpStatus: number;
  /** The provider's response id (`chatcmpl-…`, `resp_…`, `msg_…`) and request id header, when present. */
  responseId: string | null;
  requestId: string | null;
  /** False when the reply came whole (a non-streaming call, or a server that answered a streamed request without streaming). */
  streamed?: boolean;
  /** Set when a streamed request was answered without streaming: what the server did, in words. */
  streamFallback?: string;
  /** The effort asked for and the provider parameter it went out as (null: not sent, the provider has no such control). */
  effort?: { level: EffortLevel; sentAs: string | null };
}
