import { encode } from "gpt-tokenizer";
import type { ChatMessage, ToolSchema } from "./types.ts";

/**
 * Token counting with `gpt-tokenizer` (o200k_base, the encoding of the GPT-4o/GPT-5 families).
 *
 * The prompt is linearised the way OpenAI's cookbook counts chat tokens ("How to count tokens with
 * tiktoken"): tool schemas first (the provider injects them ahead of the conversation, which is also
 * why they belong to the cacheable prefix), then every message as role + content + tool calls, with a
 * fixed overhead of 3 tokens a message and 3 tokens priming the reply. Exact provider counts differ by
 * a few percent; this is for budgets, saturation checks and the scripted server's `usage`.
 */

const ENCODE_OPTIONS = { disallowedSpecial: new Set<string>() } as const;
const PER_MESSAGE_OVERHEAD = 3;
const REPLY_PRIMING = 3;

function encodeText(text: string): number[] {
  return text.length === 0 ? [] : encode(text, ENCODE_OPTIONS);
}

/** Text of one message as counted (role line, content, then one line per tool call). */
function messageText(message: ChatMessage): string {
  let text = `${message.role}\n`;
  if (typeof message.content === "string") text += message.content;
  if (message.role === "tool") text = `tool ${message.tool_call_id}\n${message.content}`;
  if (message.role === "assistant" && message.reasoning) {
    // Reasoning sent back is part of the prompt: its text (a thinking block's, a reasoning item's summary).
    for (const item of message.reasoning)
      text += `\n${item.type === "anthropic_thinking" ? item.thinking : item.type === "openai_reasoning" ? item.summary.join(" ") : ""}`;
  }
  if (message.role === "assistant" && message.tool_calls) {
    for (const call of message.tool_calls) text += `\n${call.id} ${call.function.name}(${call.function.arguments})`;
  }
  return text;
}

/**
 * The prompt as a token sequence: tool schemas, then messages, then the reply priming. Used by the
 * scripted server to emulate prefix caching (the sequence of an extended conversation starts with the
 * sequence of the shorter one, message by message).
 */
export function tokenizePrompt(messages: readonly ChatMessage[], tools?: readonly ToolSchema[]): number[] {
  const out: number[] = [];
  const push = (tokens: number[]) => {
    for (const t of tokens) out.push(t);
  };
  if (tools && tools.length > 0) push(encodeText(`tools\n${JSON.stringify(tools)}`));
  for (const message of messages) {
    push(encodeText(messageText(message)));
    for (let i = 0; i < PER_MESSAGE_OVERHEAD; i++) out.push(0);
  }
  for (let i = 0; i < REPLY_PRIMING; i++) out.push(0);
  return out;
}

/** Number of prompt tokens of `messages` + `tools` (see the module comment for the rule). */
export function countTokens(messages: readonly ChatMessage[], tools?: readonly ToolSchema[]): number {
  return tokenizePrompt(messages, tools).length;
}

/** Number of completion tokens of a reply: its content plus, per tool call, name and raw arguments. */
export function countCompletionTokens(content: string | null, toolCalls: readonly { name: string; arguments: string }[] = []): number {
  let n = content ? encodeText(content).length : 0;
  for (const call of toolCalls) n += encodeText(call.name).length + encodeText(call.arguments).length + PER_MESSAGE_OVERHEAD;
  return n;
}
