import { encode } from "gpt-tokenizer";
import { z } from "zod";
import { EFFORT_LEVELS, type ChatMessage, type ReasoningItem, type ToolSchema } from "../../types.ts";
import type { CacheBlock } from "../breakpoint-cache.ts";
import type { NeutralRequest, WireFormatRoute } from "../core.ts";
import { anthropicError, pieces, sendJson, sseEvent, writeStream } from "../http.ts";
import { signThinking, verifyThinking } from "../reasoning.ts";

/** A string field of untrusted JSON, or `fallback` when it is not a string. */
const str = (value: unknown, fallback = ""): string => (typeof value === "string" ? value : fallback);

const ENCODE = { disallowedSpecial: new Set<string>() } as const;
const tok = (text: string) => (text.length ? encode(text, ENCODE) : []);

const block = z.object({ type: z.string() }).passthrough();
export const requestSchema = z
  .object({
    model: z.string().min(1),
    max_tokens: z.number().int().min(1),
    messages: z.array(z.object({ role: z.enum(["user", "assistant"]), content: z.union([z.string(), z.array(block)]) })).min(1),
    system: z.union([z.string(), z.array(block)]).optional(),
    tools: z.array(z.object({ name: z.string() }).passthrough()).optional(),
    stream: z.boolean().optional(),
    metadata: z.object({ user_id: z.string().nullish() }).passthrough().optional(),
    thinking: z.object({ type: z.string() }).passthrough().optional(),
    output_config: z
      .object({ effort: z.enum([...EFFORT_LEVELS, "xhigh", "max"]).nullish() })
      .passthrough()
      .optional(),
  })
  .passthrough();

type Block = z.infer<typeof block>;
const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((b) => (b && typeof b === "object" && typeof (b as { text?: unknown }).text === "string" ? (b as { text: string }).text : "")).join("")
      : "";

/**
 * A Messages request as Longhaul's transcript: `system` → a system message; a user turn's
 * `tool_result` blocks → tool messages, then its text blocks → one user message (joined as sent);
 * an assistant turn's thinking blocks → its reasoning (each signature must verify, as Anthropic
 * requires; `returned` counts them), text → content, `tool_use` → tool calls.
 */
function toTranscript(body: z.infer<typeof requestSchema>): { messages: ChatMessage[]; returned: number } | { error: string } {
  const messages: ChatMessage[] = [];
  const system = textOf(body.system);
  if (system) messages.push({ role: "system", content: system });
  let returned = 0;
  for (const [i, m] of body.messages.entries()) {
    const blocks: Block[] = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    if (m.role === "user") {
      for (const b of blocks) if (b.type === "tool_result") messages.push({ role: "tool", tool_call_id: str(b.tool_use_id, ""), content: textOf(b.content) });
      const text = blocks.filter((b) => b.type === "text");
      if (text.length) messages.push({ role: "user", content: textOf(text) });
      continue;
    }
    const reasoning: ReasoningItem[] = [];
    const calls: Extract<ChatMessage, { role: "assistant" }>["tool_calls"] = [];
    let content: string | null = null;
    for (const [j, b] of blocks.entries()) {
      if (b.type === "thinking") {
        const thinking = str(b.thinking, "");
        if (!verifyThinking(thinking, str(b.signature, ""))) return { error: `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block` };
        reasoning.push({ type: "anthropic_thinking", thinking, signature: str(b.signature) });
        returned++;
      } else if (b.type === "redacted_thinking") {
        reasoning.push({ type: "anthropic_redacted_thinking", data: str(b.data, "") });
      } else if (b.type === "text") content = (content ?? "") + str(b.text, "");
      else if (b.type === "tool_use")
        calls.push({ id: str(b.id, ""), type: "function", function: { name: str(b.name, ""), arguments: JSON.stringify(b.input ?? {}) } });
    }
    messages.push({ role: "assistant", content, ...(calls.length ? { tool_calls: calls } : {}), ...(reasoning.length ? { reasoning } : {}) });
  }
  return { messages, returned };
}

/** The request's blocks in cache order — tools, system, messages — with their tokens (minted ids normalised) and breakpoints. */
export function cacheBlocks(body: z.infer<typeof requestSchema>, normalize: (text: string) => string): CacheBlock[] {
  const hasBreak = (b: unknown) => !!(b && typeof b === "object" && (b as { cache_control?: unknown }).cache_control);
  const blocks: CacheBlock[] = [];
  if (body.tools?.length)
    blocks.push({ tokens: tok(`tools\n${JSON.stringify(body.tools.map(({ cache_control: _c, ...t }) => t))}`), breakpoint: hasBreak(body.tools.at(-1)) });
  const system: Block[] = typeof body.system === "string" ? [{ type: "text", text: body.system }] : (body.system ?? []);
  for (const b of system) blocks.push({ tokens: tok(`system\n${normalize(str(b.text, ""))}`), breakpoint: hasBreak(b) });
  for (const m of body.messages) {
    const content: Block[] = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    content.forEach((b, i) => {
      const head = i === 0 ? `${m.role}\n` : "";
      let text = "";
      if (b.type === "text") text = str(b.text, "");
      else if (b.type === "tool_use") text = `${str(b.id, "")} ${str(b.name, "")}(${JSON.stringify(b.input ?? {})})`;
      else if (b.type === "tool_result") text = `tool ${str(b.tool_use_id, "")}\n${textOf(b.content)}`;
      else if (b.type === "thinking") text = str(b.thinking, "");
      const tokens = tok(head + normalize(text));
      blocks.push({ tokens: i === 0 ? [...tokens, 0, 0, 0] : tokens, breakpoint: hasBreak(b) });
    });
  }
  return blocks;
}

const STATUS = { invalid: 400, not_found: 404, rate_limit: 429, server: 500, overloaded: 529, context_length: 400 } as const;
const TYPE = {
  invalid: "invalid_request_error",
  not_found: "not_found_error",
  rate_limit: "rate_limit_error",
  server: "api_error",
  overloaded: "overloaded_error",
  context_length: "invalid_request_error",
} as const;

/**
 * `POST /v1/messages`: Anthropic's Messages API, streamed (`message_start`, `content_block_start`,
 * `content_block_delta` — text, `input_json_delta`, `thinking_delta`, `signature_delta` —,
 * `content_block_stop`, `message_delta`, `message_stop`) and not, errors in Anthropic's shape (529
 * `overloaded_error`, "prompt is too long: N tokens > M maximum"). Caching by Anthropic's rule
 * (BreakpointCache: prefixes up to `cache_control` breakpoints, reads and writes reported apart,
 * scoped by `metadata.user_id`). A thinking block (signed) opens the reply when `thinking` is enabled.
 */
export const messagesRoute: WireFormatRoute = {
  route: "messages",
  parse(json, state) {
    const parsed = requestSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { ok: false, status: 400, message: `${issue?.path.join(".") || "body"}: ${issue?.message}` };
    }
    const body = parsed.data;
    const transcript = toTranscript(body);
    if ("error" in transcript) return { ok: false, status: 400, message: transcript.error };
    state.stats.reasoningReturned += transcript.returned;
    const scope = body.metadata?.user_id ?? "";
    const tools: ToolSchema[] | undefined = body.tools?.map((t) => ({
      type: "function",
      function: {
        name: t.name,
        ...(typeof t.description === "string" ? { description: t.description } : {}),
        ...(t.input_schema && typeof t.input_schema === "object" ? { parameters: t.input_schema as Record<string, unknown> } : {}),
      },
    }));
    const effort = body.output_config?.effort;
    let blocks: CacheBlock[] | null = null;
    const getBlocks = () => (blocks ??= cacheBlocks(body, (text) => state.mintedIds.normalizeText(text, scope)));
    const request: NeutralRequest = {
      model: body.model,
      messages: transcript.messages,
      ...(tools ? { tools } : {}),
      stream: body.stream === true,
      scope,
      ...(effort === "low" || effort === "medium" || effort === "high" ? { effort } : effort ? { effort: "high" as const } : {}),
      reasoning: body.thinking?.type === "enabled" || body.thinking?.type === "adaptive",
      promptTokens: () => getBlocks().reduce((n, b) => n + b.tokens.length, 0) + 3,
      promptCache: () => {
        const { readTokens, writeTokens } = state.breakpointCache.lookupAndStore(getBlocks(), scope);
        return { cachedTokens: readTokens, cacheWriteTokens: writeTokens };
      },
    };
    return { ok: true, request };
  },
  error(res, kind, message, extra = {}) {
    anthropicError(res, STATUS[kind], TYPE[kind], kind === "not_found" ? `model: ${message.match(/`([^`]+)`/)?.[1] ?? message}` : message, extra.headers ?? {});
  },
  contextLengthMessage(fault, prompt) {
    return { message: `prompt is too long: ${prompt} tokens > ${fault.statedLimitTokens ?? fault.maxPromptTokens} maximum` };
  },
  render(res, reply, { stream, fault }) {
    const id = `msg_${reply.hash.slice(0, 24)}`;
    const requestId = { "request-id": `req_${reply.hash.slice(0, 24)}` };
    const content: Record<string, unknown>[] = [];
    if (reply.reasoning !== null) content.push({ type: "thinking", thinking: reply.reasoning, signature: signThinking(reply.reasoning) });
    if (reply.content !== null) content.push({ type: "text", text: reply.content, citations: null });
    for (const c of reply.toolCalls) content.push({ type: "tool_use", id: `toolu_${c.id}`, name: c.name, input: JSON.parse(c.arguments || "{}") as unknown });
    const { promptTokens, cachedTokens, cacheWriteTokens, completionTokens, reasoningTokens } = reply.usage;
    const usage = {
      input_tokens: promptTokens - cachedTokens - cacheWriteTokens,
      cache_creation_input_tokens: cacheWriteTokens,
      cache_read_input_tokens: cachedTokens,
      cache_creation: { ephemeral_5m_input_tokens: cacheWriteTokens, ephemeral_1h_input_tokens: 0 },
      output_tokens: completionTokens,
      output_tokens_details: { thinking_tokens: reasoningTokens },
      server_tool_use: null,
      service_tier: "standard",
      inference_geo: null,
    };
    const stopReason = reply.finishReason === "tool_calls" ? "tool_use" : "end_turn";
    const message = {
      id,
      type: "message",
      role: "assistant",
      model: reply.model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
      container: null,
    };
    if (!stream) {
      if (fault?.kind === "cut") {
        const text = JSON.stringify(message);
        if (!res.headersSent) res.writeHead(200, { "content-type": "application/json", ...requestId });
        res.end(text.slice(0, Math.floor(text.length / 2)));
        return;
      }
      if (res.headersSent) res.end(JSON.stringify(message));
      else sendJson(res, 200, message, requestId);
      return;
    }
    const ev = (type: string, data: Record<string, unknown>) => sseEvent({ type, ...data }, type);
    const events: string[] = [
      ev("message_start", { message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } }),
      ev("ping", {}),
    ];
    content.forEach((b, index) => {
      if (b.type === "thinking") {
        events.push(ev("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } }));
        for (const piece of pieces(str(b.thinking), 48)) events.push(ev("content_block_delta", { index, delta: { type: "thinking_delta", thinking: piece } }));
        events.push(ev("content_block_delta", { index, delta: { type: "signature_delta", signature: b.signature } }));
      } else if (b.type === "text") {
        events.push(ev("content_block_start", { index, content_block: { type: "text", text: "", citations: null } }));
        for (const piece of pieces(str(b.text), reply.padding ? 65_536 : 24))
          events.push(ev("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
      } else {
        events.push(ev("content_block_start", { index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } }));
        for (const piece of pieces(JSON.stringify(b.input), 64))
          events.push(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } }));
      }
      events.push(ev("content_block_stop", { index }));
    });
    const bodyEvents = events.length;
    events.push(
      ev("message_delta", {
        delta: { stop_reason: stopReason, stop_sequence: null, container: null },
        usage: fault?.kind === "no_usage" ? { output_tokens: 0 } : { ...usage },
      }),
    );
    events.push(ev("message_stop", {}));
    writeStream(res, events, { bodyEvents, cut: fault?.kind === "cut", requestIdHeader: requestId });
  },
};
