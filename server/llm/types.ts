/**
 * Plain-data shapes exchanged with an OpenAI-compatible Chat Completions endpoint. They mirror the
 * wire format (snake_case where the wire uses it) so messages built by the agent-run function can be
 * sent as they are, and they carry no dependency on the `openai` package (the domain may import them).
 */

/** One tool call as it appears in an assistant message on the wire. `arguments` is a raw JSON string. */
export interface WireToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A Chat Completions message (the subset Longhaul uses). */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: WireToolCall[] }
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

/** Token usage of one model call. `cachedTokens` is the part of `promptTokens` served from a prefix cache. */
export interface ModelUsage {
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  /** Part of completionTokens spent on hidden reasoning, when the provider reports it. */
  reasoningTokens?: number;
}

/**
 * How hard the model is asked to think on one call (lib/contracts/effort.ts `EFFORT_LEVELS`): the agent
 * loop decides it per step; each adapter maps it to its provider's control or records it as ignored.
 */
export type { EffortLevel } from "../../lib/contracts/effort.ts";
