import { z } from "zod";
import { EFFORT_LEVELS, type ChatMessage, type ReasoningItem, type ToolSchema } from "../../types.ts";
import type { WireFormatRoute } from "../core.ts";
import { pieces, sendJson, sseEvent, writeStream } from "../http.ts";
import { decryptReasoning, encryptReasoning } from "../reasoning.ts";
import { openaiContextLengthMessage, openaiNeutral, openaiRouteError } from "./chat-completions.ts";

/** A string field of untrusted JSON, or `fallback` when it is not a string. */
const str = (value: unknown, fallback = ""): string => (typeof value === "string" ? value : fallback);

const textOf = (content: unknown): string => {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => (p && typeof p === "object" && typeof (p as { text?: unknown }).text === "string" ? (p as { text: string }).text : "")).join("");
};

const requestSchema = z
  .object({
    model: z.string().min(1),
    input: z.union([z.string(), z.array(z.object({}).passthrough())]),
    instructions: z.string().nullish(),
    tools: z.array(z.object({ type: z.string(), name: z.string().optional() }).passthrough()).optional(),
    stream: z.boolean().nullish(),
    prompt_cache_key: z.string().nullish(),
    reasoning: z
      .object({ effort: z.enum(EFFORT_LEVELS).nullish() })
      .passthrough()
      .nullish(),
    include: z.array(z.string()).nullish(),
  })
  .passthrough();

type InputItem = Record<string, unknown>;

/**
 * Responses API input items as Longhaul's transcript: `instructions` → a system message; a user
 * message → a user message; an assistant turn (its reasoning items, its message, its function calls)
 * → one assistant message; a `function_call_output` → a tool message. A reasoning item's
 * `encrypted_content` must verify (the scripted server made it); `returned` counts those that did.
 */
function toTranscript(instructions: string | null | undefined, input: string | InputItem[]): { messages: ChatMessage[]; returned: number } | { error: string } {
  const messages: ChatMessage[] = instructions ? [{ role: "system", content: instructions }] : [];
  if (typeof input === "string") return { messages: [...messages, { role: "user", content: input }], returned: 0 };
  let returned = 0;
  type Assistant = Extract<ChatMessage, { role: "assistant" }>;
  let turn = null as Assistant | null;
  const busy = () => turn !== null && (turn.content !== null || !!turn.tool_calls?.length);
  const open = () => {
    if (!turn) {
      turn = { role: "assistant", content: null };
      messages.push(turn);
    }
    return turn;
  };
  for (const item of input) {
    const type = typeof item.type === "string" ? item.type : "message";
    if (type === "reasoning") {
      const id = str(item.id, "");
      const summary = Array.isArray(item.summary) ? item.summary.map((s) => textOf([s])) : [];
      let text = summary.join(" ");
      if (typeof item.encrypted_content === "string") {
        const decrypted = decryptReasoning(id, item.encrypted_content);
        if (decrypted === null) return { error: `The encrypted content for item ${id} could not be verified.` };
        text = decrypted;
        returned++;
      }
      if (busy()) turn = null;
      const t = open();
      const reasoning: ReasoningItem = { type: "openai_reasoning", id, encryptedContent: null, summary: [text] };
      t.reasoning = [...(t.reasoning ?? []), reasoning];
    } else if (type === "function_call") {
      const t = open();
      t.tool_calls = [
        ...(t.tool_calls ?? []),
        { id: str(item.call_id, ""), type: "function", function: { name: str(item.name, ""), arguments: str(item.arguments, "") } },
      ];
    } else if (type === "function_call_output") {
      turn = null;
      messages.push({ role: "tool", tool_call_id: str(item.call_id, ""), content: typeof item.output === "string" ? item.output : textOf(item.output) });
    } else if (type === "message") {
      const role = str(item.role, "user");
      if (role === "assistant") {
        if (busy()) turn = null;
        open().content = textOf(item.content);
      } else {
        turn = null;
        messages.push(
          role === "system" || role === "developer" ? { role: "system", content: textOf(item.content) } : { role: "user", content: textOf(item.content) },
        );
      }
    }
  }
  return { messages, returned };
}

/** Flat Responses function tools as Chat-style tool schemas (what the agents and the token count read). */
function toolSchemas(tools: readonly Record<string, unknown>[] | undefined): ToolSchema[] | undefined {
  if (!tools) return undefined;
  return tools
    .filter((t) => t.type === "function")
    .map((t) => ({
      type: "function" as const,
      function: {
        name: str(t.name, ""),
        ...(typeof t.description === "string" ? { description: t.description } : {}),
        ...(t.parameters && typeof t.parameters === "object" ? { parameters: t.parameters as Record<string, unknown> } : {}),
      },
    }));
}

/**
 * `POST /v1/responses`: OpenAI's Responses API, streamed (`response.created`, `response.output_item.added`,
 * `response.output_text.delta`, `response.function_call_arguments.delta`, `response.output_item.done`,
 * `response.completed`…, with sequence numbers) and not. Every answer carries a reasoning item (a
 * reasoning model always reasons), its `encrypted_content` when `include` asks for
 * `reasoning.encrypted_content`; prompt caching by OpenAI's prefix rule per `prompt_cache_key`.
 */
export const responsesRoute: WireFormatRoute = {
  route: "responses",
  parse(json, state) {
    const parsed = requestSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { ok: false, status: 400, message: `Invalid request: ${issue?.path.join(".") || "body"}: ${issue?.message}` };
    }
    const body = parsed.data;
    const transcript = toTranscript(body.instructions, body.input);
    if ("error" in transcript) return { ok: false, status: 400, message: transcript.error };
    if (transcript.messages.length === 0) return { ok: false, status: 400, message: "Invalid request: input: must not be empty" };
    state.stats.reasoningReturned += transcript.returned;
    const tools = toolSchemas(body.tools);
    const effort = body.reasoning?.effort ?? undefined;
    return {
      ok: true,
      request: openaiNeutral(state, {
        model: body.model,
        messages: transcript.messages,
        ...(tools ? { tools } : {}),
        stream: body.stream === true,
        scope: body.prompt_cache_key ?? "",
        ...(effort ? { effort } : {}),
        reasoning: true,
        includeEncrypted: (body.include ?? []).includes("reasoning.encrypted_content"),
      }),
    };
  },
  error: openaiRouteError,
  contextLengthMessage: openaiContextLengthMessage,
  render(res, reply, { stream, fault, request }) {
    const id = `resp_${reply.hash.slice(0, 40)}`;
    const requestId = { "x-request-id": `req_${reply.hash.slice(0, 32)}` };
    const created = Math.floor(Date.now() / 1000);
    const output: Record<string, unknown>[] = [];
    if (reply.reasoning !== null) {
      const rid = `rs_${reply.hash.slice(0, 40)}`;
      output.push({
        type: "reasoning",
        id: rid,
        summary: [{ type: "summary_text", text: reply.reasoning }],
        ...(request.includeEncrypted ? { encrypted_content: encryptReasoning(rid, reply.reasoning) } : { encrypted_content: null }),
        status: "completed",
      });
    }
    if (reply.content !== null) {
      output.push({
        type: "message",
        id: `msg_${reply.hash.slice(0, 40)}`,
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: reply.content, annotations: [], logprobs: [] }],
      });
    }
    reply.toolCalls.forEach((c, i) =>
      output.push({
        type: "function_call",
        id: `fc_${reply.hash.slice(0, 36)}_${i}`,
        call_id: `call_${c.id}`,
        name: c.name,
        arguments: c.arguments,
        status: "completed",
      }),
    );
    const usage =
      fault?.kind === "no_usage"
        ? null
        : {
            input_tokens: reply.usage.promptTokens,
            input_tokens_details: { cached_tokens: reply.usage.cachedTokens, cache_write_tokens: reply.usage.cacheWriteTokens },
            output_tokens: reply.usage.completionTokens,
            output_tokens_details: { reasoning_tokens: reply.usage.reasoningTokens },
            total_tokens: reply.usage.promptTokens + reply.usage.completionTokens,
          };
    const base = {
      id,
      object: "response",
      created_at: created,
      error: null,
      incomplete_details: null,
      instructions: null,
      max_output_tokens: null,
      model: reply.model,
      parallel_tool_calls: true,
      previous_response_id: null,
      reasoning: { effort: request.effort ?? null, summary: null },
      store: false,
      temperature: 1,
      text: { format: { type: "text" } },
      tool_choice: "auto",
      tools: [],
      top_p: 1,
      truncation: "disabled",
      user: null,
      metadata: {},
    };
    const done = { ...base, status: "completed", output, usage, output_text: reply.content ?? "" };
    if (!stream) {
      if (fault?.kind === "cut") {
        const text = JSON.stringify(done);
        if (!res.headersSent) res.writeHead(200, { "content-type": "application/json", ...requestId });
        res.end(text.slice(0, Math.floor(text.length / 2)));
        return;
      }
      if (res.headersSent) res.end(JSON.stringify(done));
      else sendJson(res, 200, done, requestId);
      return;
    }
    let seq = 0;
    const ev = (type: string, data: Record<string, unknown>) => sseEvent({ type, sequence_number: seq++, ...data }, type);
    const events: string[] = [
      ev("response.created", { response: { ...base, status: "in_progress", output: [], usage: null } }),
      ev("response.in_progress", { response: { ...base, status: "in_progress", output: [], usage: null } }),
    ];
    output.forEach((item, index) => {
      if (item.type === "message") {
        const text = reply.content ?? "";
        events.push(ev("response.output_item.added", { output_index: index, item: { ...item, status: "in_progress", content: [] } }));
        const part = { type: "output_text", text: "", annotations: [], logprobs: [] };
        events.push(ev("response.content_part.added", { item_id: item.id, output_index: index, content_index: 0, part }));
        for (const piece of pieces(text, reply.padding ? 65_536 : 24))
          events.push(ev("response.output_text.delta", { item_id: item.id, output_index: index, content_index: 0, delta: piece, logprobs: [] }));
        events.push(ev("response.output_text.done", { item_id: item.id, output_index: index, content_index: 0, text, logprobs: [] }));
        events.push(ev("response.content_part.done", { item_id: item.id, output_index: index, content_index: 0, part: { ...part, text } }));
      } else if (item.type === "function_call") {
        events.push(ev("response.output_item.added", { output_index: index, item: { ...item, arguments: "", status: "in_progress" } }));
        for (const piece of pieces(str(item.arguments), 64))
          events.push(ev("response.function_call_arguments.delta", { item_id: item.id, output_index: index, delta: piece }));
        events.push(ev("response.function_call_arguments.done", { item_id: item.id, output_index: index, name: item.name, arguments: item.arguments }));
      } else {
        events.push(ev("response.output_item.added", { output_index: index, item: { ...item, summary: [], status: "in_progress" } }));
      }
      events.push(ev("response.output_item.done", { output_index: index, item }));
    });
    const bodyEvents = events.length;
    events.push(ev("response.completed", { response: done }));
    writeStream(res, events, { bodyEvents, cut: fault?.kind === "cut", requestIdHeader: requestId });
  },
};
