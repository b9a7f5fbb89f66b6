import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { countCompletionTokens } from "../tokens.ts";
import type { ChatMessage, EffortLevel, ToolSchema } from "../types.ts";
import { scriptedReply, SCRIPTED_MODELS } from "./agent.ts";
import type { BreakpointCache } from "./breakpoint-cache.ts";
import type { Fault, FaultBook, WireRoute } from "./faults.ts";
import { readBody } from "./http.ts";
import type { MintedIdNormalizer } from "./minted-ids.ts";
import type { PrefixCache } from "./prefix-cache.ts";
import { reasoningText } from "./reasoning.ts";
import { encode } from "gpt-tokenizer";

/** Counters of `GET /control/stats`. */
export interface ScriptedServerStats {
  /** Model requests received on any route (faulted ones included). */
  requests: number;
  /** Of those, answered normally (a stalled-then-answered request counts here too). */
  completions: number;
  streamed: number;
  byModel: Record<string, number>;
  /** Requests by route: chat, responses, messages. */
  byRoute: Record<string, number>;
  faultsServed: Record<string, number>;
  /** Reasoning items / thinking blocks that came back in a request and verified (the client returned them). */
  reasoningReturned: number;
}

/** What the routes share: faults, the two caches, minted-id placeholders, counters, and a cancellable wait. */
export interface ScriptedState {
  faults: FaultBook;
  prefixCache: PrefixCache;
  breakpointCache: BreakpointCache;
  mintedIds: MintedIdNormalizer;
  stats: ScriptedServerStats;
  /** Waits `ms` unless the client hangs up or the wait is released first; true when the client is still there. */
  wait(ms: number, res: ServerResponse): Promise<boolean>;
  /** How many waits are in progress (requests a stall or a slow fault holds right now). */
  waiting(): number;
  /** Ends every wait in progress now, as if its time had run out; returns how many it ended. */
  releaseWaits(): number;
}

/** A request of any wire format, read into Longhaul's own shape (the scripted agents are wire-format neutral). */
export interface NeutralRequest {
  model: string;
  /** The transcript as Chat Completions messages: what the agent decides from. */
  messages: ChatMessage[];
  tools?: ToolSchema[];
  stream: boolean;
  /** The cache scope: `prompt_cache_key` (OpenAI), `metadata.user_id` (Anthropic), "" without. */
  scope: string;
  effort?: EffortLevel;
  /** Whether this request gets a reasoning item / thinking block. */
  reasoning: boolean;
  /** Chat Completions: send the final usage chunk (`stream_options.include_usage`). */
  includeUsage?: boolean;
  /** Responses: return reasoning items' `encrypted_content` (`include: ["reasoning.encrypted_content"]`). */
  includeEncrypted?: boolean;
  /** The prompt's tokens as usage counts them (minted ids normalised); computed once. */
  promptTokens(): number;
  /** The prompt-cache figures of this request (reads and stores the cache: call once, when answering). */
  promptCache(): { cachedTokens: number; cacheWriteTokens: number };
}

/** The reply the routes render, in their own format. */
export interface PlannedReply {
  model: string;
  /** sha256 of the request: ids and content depend only on it. */
  hash: string;
  content: string | null;
  toolCalls: { id: string; name: string; arguments: string }[];
  reasoning: string | null;
  finishReason: "tool_calls" | "stop";
  usage: { promptTokens: number; cachedTokens: number; cacheWriteTokens: number; completionTokens: number; reasoningTokens: number };
  /** The oversize fault's padding (bytes appended to the content), 0 otherwise. */
  padding: number;
}

/** One wire format: how it reads a request, says an error and renders a reply. */
export interface WireFormatRoute {
  route: WireRoute;
  /** The body read into a NeutralRequest, or the refusal in the format's words. */
  parse(json: unknown, state: ScriptedState): { ok: true; request: NeutralRequest } | { ok: false; status: number; message: string; code?: string };
  /** An error in the format's words: `invalid` (400), `not_found` (404 model), `rate_limit` (429), `server` (500), `overloaded` (529 / 503), `context_length` (400). */
  error(
    res: ServerResponse,
    kind: "invalid" | "not_found" | "rate_limit" | "server" | "overloaded" | "context_length",
    message: string,
    extra?: { headers?: Record<string, string>; code?: string },
  ): void;
  /** The context-length refusal's words for this route (`style` applies to the OpenAI routes). */
  contextLengthMessage(fault: Fault, promptTokens: number): { message: string; code?: string };
  /** Renders the reply: a whole body, or a stream (cut when `fault` is a cut). */
  render(res: ServerResponse, reply: PlannedReply, opts: { stream: boolean; fault: Fault | null; request: NeutralRequest }): void;
}

const ENCODE = { disallowedSpecial: new Set<string>() } as const;

/** `f`, computed at its first call only (a request's prompt text is joined once however many faults look at it). */
function once<T>(f: () => T): () => T {
  let done: { value: T } | null = null;
  return () => (done ??= { value: f() }).value;
}

/** The content type of a stalled response's early headers. */
const stallContentType = (stream: boolean) => (stream ? "text/event-stream" : "application/json");

/**
 * One model request on any route: read the body (the route's format), count it, serve an armed fault
 * in the route's words, ask the scripted agent named by `model` for its next action, and render the
 * reply with realistic usage (prompt counted with minted ids normalised, the route's caching rule,
 * reasoning tokens counted into the completion).
 */
export async function handleModelRequest(state: ScriptedState, wire: WireFormatRoute, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { stats } = state;
  stats.requests++;
  stats.byRoute[wire.route] = (stats.byRoute[wire.route] ?? 0) + 1;
  let json: unknown;
  try {
    json = JSON.parse(await readBody(req));
  } catch (err) {
    return wire.error(res, "invalid", `Request body is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = wire.parse(json, state);
  if (!parsed.ok) return wire.error(res, parsed.status === 404 ? "not_found" : "invalid", parsed.message, parsed.code ? { code: parsed.code } : {});
  const request = parsed.request;
  const { model } = request;
  stats.byModel[model] = (stats.byModel[model] ?? 0) + 1;
  if (!(model in SCRIPTED_MODELS)) return wire.error(res, "not_found", `The model \`${model}\` does not exist or you do not have access to it.`);

  const fault = state.faults.take(
    { model, route: wire.route, promptTokens: () => request.promptTokens(), promptText: once(() => request.messages.map((m) => m.content ?? "").join("\n")) },
    stats.faultsServed,
  );
  if (fault?.kind === "context_length") {
    const { message, code } = wire.contextLengthMessage(fault, request.promptTokens());
    return wire.error(res, "context_length", message, code ? { code } : {});
  }
  if (fault?.kind === "429") {
    return wire.error(res, "rate_limit", `Rate limit reached for ${model}. Please try again in ${fault.retryAfterSeconds}s.`, {
      headers: { "retry-after": String(fault.retryAfterSeconds) },
    });
  }
  if (fault?.kind === "500") return wire.error(res, "server", "The server had an error while processing your request. Sorry about that!");
  if (fault?.kind === "529") return wire.error(res, "overloaded", "Overloaded", { headers: { "retry-after": String(fault.retryAfterSeconds) } });

  // The agent answers at the request's effort (scripted/effort.ts: fumbles at low, reasoning tokens by level).
  const answer = scriptedReply(model, request.messages, { effort: request.effort ?? null, tools: request.tools });
  if (!answer) return wire.error(res, "not_found", `The model \`${model}\` does not exist.`);
  const { action } = answer;
  const scope = request.scope;
  const padding = fault?.kind === "oversize" ? fault.bytes : 0;
  const content = padding ? `${action.content ?? ""}\n${"x".repeat(padding)}` : action.content;
  const hash = createHash("sha256")
    .update(JSON.stringify({ model, messages: request.messages, tools: request.tools ?? null }))
    .digest("hex");
  const toolCalls = action.toolCalls.map((call, index) => ({
    id: createHash("sha256").update(`${hash}:${index}`).digest("hex").slice(0, 24),
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
  }));
  const reasoning = request.reasoning ? reasoningText(action, request.effort) : null;
  // The hidden reasoning a model at this effort spends, of which the reasoning item / thinking block is
  // the short summary the client sees (as OpenAI's summaries are of its reasoning tokens).
  const reasoningTokens = Math.max(answer.reasoningTokens, reasoning ? encode(reasoning, ENCODE).length : 0);
  const { cachedTokens, cacheWriteTokens } = request.promptCache();
  const countedCalls = toolCalls.map((c) => ({ name: c.name, arguments: state.mintedIds.normalizeText(c.arguments, scope) }));
  const usage = {
    promptTokens: request.promptTokens(),
    cachedTokens,
    cacheWriteTokens,
    completionTokens:
      countCompletionTokens(action.content === null ? null : state.mintedIds.normalizeText(action.content, scope), countedCalls) +
      Math.ceil(padding / 4) +
      reasoningTokens,
    reasoningTokens,
  };
  const reply: PlannedReply = { model, hash, content, toolCalls, reasoning, finishReason: toolCalls.length ? "tool_calls" : "stop", usage, padding };

  if (fault?.kind === "stall") {
    const phase = fault.phase ?? (request.stream ? "after_headers" : "before_headers");
    if (phase === "after_headers") {
      res.writeHead(200, { "content-type": stallContentType(request.stream), "x-request-id": `req_${hash.slice(0, 32)}` });
      res.flushHeaders();
    }
    if (!(await state.wait(fault.stallMs, res))) return;
  }
  // A server that cannot stream answers a streamed request with the whole body.
  const stream = request.stream && fault?.kind !== "no_stream";
  if (fault?.kind !== "cut") {
    stats.completions++;
    if (stream) stats.streamed++;
  }
  wire.render(res, reply, { stream, fault, request });
}
