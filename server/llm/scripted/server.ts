import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { countCompletionTokens, tokenizePrompt } from "../tokens.ts";
import type { ChatMessage, ToolSchema } from "../types.ts";
import { decideNextAction, SCRIPTED_MODELS } from "./agent.ts";
import { MintedIdNormalizer } from "./minted-ids.ts";
import { PrefixCache } from "./prefix-cache.ts";

/**
 * The scripted OpenAI-compatible model server (ARCHITECTURE.md, processes: "model"). Loopback only.
 *
 * - `POST /v1/chat/completions` — streaming (SSE chunks, tool-call deltas, a final usage chunk when
 *   `stream_options.include_usage`) and not; the reply comes from the scripted agent named by `model`.
 *   Deterministic: ids and content depend only on the request. `usage.prompt_tokens` is counted with
 *   gpt-tokenizer over messages + tool schemas, `completion_tokens` over the reply, and
 *   `prompt_tokens_details.cached_tokens` emulates prefix caching (see PrefixCache). All three count
 *   the ids a run mints (task, run, checkpoint, tool call, message ids) as fixed-width placeholders
 *   (MintedIdNormalizer), so identical work gets identical usage whatever ids it drew.
 * - `GET /v1/models`, `GET /v1/models/<id>`, `GET /health`.
 * - `POST /control/faults` arms faults (an object or an array): `{kind: "429"|"500"|"stall"|"cut",
 *   count = 1, retryAfterSeconds = 1 (429), stallMs = 600000 (stall: longer than any sane watchdog), phase (stall: "before_headers"
 *   | "after_headers", default after_headers when streaming, before_headers otherwise), model?}`.
 *   Each served fault uses up one `count`; faults are served first-armed first; `skip: n` lets the
 *   first n matching requests through before it is served. `GET` lists,
 *   `DELETE` clears. A stall is silence, then the normal answer if the client is still there; a cut
 *   is half the stream (or half the JSON body) and then the end of the response, with no
 *   finish_reason and no `[DONE]`. `no_usage` answers normally but reports no `usage` (as some
 *   OpenAI-compatible servers do), so the client has to estimate the tokens. `oversize` answers
 *   normally with `bytes` (default 5 MiB) of padding appended to the content (a runaway reply);
 *   its completion tokens count the padding as one token per 4 bytes (tokenizing megabytes is slow).
 *   `context_length` refuses a prompt over `maxPromptTokens` with HTTP 400 as a provider does
 *   (`style`: OpenAI's words and code `context_length_exceeded`, vLLM's or llama.cpp's words without
 *   the code, or `unstated`: no limit in the words), stating `statedLimitTokens` (default
 *   `maxPromptTokens`) and the prompt's tokens; a prompt that fits is answered and uses up nothing.
 * - `GET /control/stats` counts requests; `POST /control/reset` clears faults, stats and the cache.
 */

const faultSchema = z.object({
  kind: z.enum(["429", "500", "stall", "cut", "no_usage", "oversize", "context_length"]),
  count: z.number().int().min(1).max(1_000_000).default(1),
  retryAfterSeconds: z.number().min(0).max(86_400).default(1),
  stallMs: z.number().int().min(0).max(3_600_000).default(600_000),
  phase: z.enum(["before_headers", "after_headers"]).optional(),
  model: z.string().min(1).optional(),
  /** Requests (matching `model`) answered normally before this fault is served: arms a fault for a known point of a deterministic scripted run, with no race against it. */
  skip: z.number().int().min(0).max(1_000_000).default(0),
  /** oversize: bytes of padding appended to the reply's content. */
  bytes: z
    .number()
    .int()
    .min(1)
    .max(64 * 1024 * 1024)
    .default(5 * 1024 * 1024),
  /** context_length: the largest prompt (tokens, as `usage.prompt_tokens` counts them) answered; a longer one is refused. */
  maxPromptTokens: z.number().int().min(0).max(100_000_000).default(0),
  /** context_length: the window the refusal states (default: `maxPromptTokens`). */
  statedLimitTokens: z.number().int().min(1).max(100_000_000).optional(),
  /** context_length: whose words the refusal uses — OpenAI's (code `context_length_exceeded`), vLLM's or llama.cpp's (no code), or none (no limit stated). */
  style: z.enum(["openai", "vllm", "llamacpp", "unstated"]).default("openai"),
});
export type FaultSpec = z.input<typeof faultSchema>;
type Fault = z.output<typeof faultSchema> & { id: number };

const requestSchema = z
  .object({
    model: z.string().min(1),
    messages: z.array(z.object({ role: z.string() }).passthrough()).min(1),
    tools: z.array(z.object({ type: z.string(), function: z.object({ name: z.string() }).passthrough() }).passthrough()).optional(),
    stream: z.boolean().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullish(),
  })
  .passthrough();

export interface ScriptedServerStats {
  /** Chat completion requests received (faulted ones included). */
  requests: number;
  /** Of those, answered normally (a stalled-then-answered request counts here too). */
  completions: number;
  streamed: number;
  byModel: Record<string, number>;
  faultsServed: Record<string, number>;
}

export interface ScriptedModelServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `http://127.0.0.1:<port>/v1`, the base URL for an OpenAI client. */
  baseUrl: string;
  port: number;
  stop(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

function apiError(res: ServerResponse, status: number, message: string, type: string, code: string | null = null, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error: { message, type, param: null, code } }, headers);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

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

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/**
 * Starts the scripted model server on 127.0.0.1:`port` (0 = any free port). Resolves once listening.
 * Errors: rejects when the port cannot be bound.
 */
export async function startScriptedModelServer({ port = 0, host = "127.0.0.1" }: { port?: number; host?: string } = {}): Promise<ScriptedModelServer> {
  let faults: Fault[] = [];
  let nextFaultId = 1;
  const cache = new PrefixCache();
  const mintedIds = new MintedIdNormalizer();
  const timers = new Set<NodeJS.Timeout>();
  const emptyStats = (): ScriptedServerStats => ({ requests: 0, completions: 0, streamed: 0, byModel: {}, faultsServed: {} });
  let stats = emptyStats();

  const wait = (ms: number, res: ServerResponse) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        res.off("close", onClose);
        resolve(!res.destroyed);
      }, ms);
      const onClose = () => {
        clearTimeout(timer);
        timers.delete(timer);
        resolve(false);
      };
      timers.add(timer);
      res.once("close", onClose);
    });

  const takeFault = (model: string, promptTokens: () => number): Fault | null => {
    const fault = faults.find((f) => (f.model === undefined || f.model === model) && (f.kind !== "context_length" || promptTokens() > f.maxPromptTokens));
    if (!fault) return null;
    if (fault.skip > 0) {
      fault.skip--;
      return null;
    }
    fault.count--;
    if (fault.count <= 0) faults = faults.filter((f) => f !== fault);
    stats.faultsServed[fault.kind] = (stats.faultsServed[fault.kind] ?? 0) + 1;
    return fault;
  };

  async function chatCompletions(req: IncomingMessage, res: ServerResponse): Promise<void> {
    stats.requests++;
    let json: unknown;
    try {
      json = JSON.parse(await readBody(req));
    } catch (err) {
      apiError(res, 400, `Request body is not valid JSON: ${(err as Error).message}`, "invalid_request_error");
      return;
    }
    const parsed = requestSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      apiError(res, 400, `Invalid request: ${issue?.path.join(".") || "body"}: ${issue?.message}`, "invalid_request_error");
      return;
    }
    const body = parsed.data;
    const model = body.model;
    stats.byModel[model] = (stats.byModel[model] ?? 0) + 1;
    if (!(model in SCRIPTED_MODELS)) {
      apiError(res, 404, `The model \`${model}\` does not exist or you do not have access to it.`, "invalid_request_error", "model_not_found");
      return;
    }
    const stream = body.stream === true;
    const messages = normalizeMessages(body.messages);
    const tools = body.tools as unknown as ToolSchema[] | undefined;
    let counted: number[] | null = null;
    const scope = typeof body.prompt_cache_key === "string" ? body.prompt_cache_key : "";
    // The prompt's tokens with minted ids normalised, counted once: the context-length fault sizes it, usage reports it.
    const promptTokenIds = () => (counted ??= tokenizePrompt(mintedIds.normalizeMessages(messages, scope), tools));
    const fault = takeFault(model, () => promptTokenIds().length);
    if (fault?.kind === "context_length") {
      const limit = fault.statedLimitTokens ?? fault.maxPromptTokens;
      const prompt = promptTokenIds().length;
      if (fault.style === "openai")
        return apiError(
          res,
          400,
          `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${prompt} tokens. Please reduce the length of the messages.`,
          "invalid_request_error",
          "context_length_exceeded",
        );
      if (fault.style === "vllm")
        return apiError(
          res,
          400,
          `This model's maximum context length is ${limit} tokens. However, you requested ${prompt + 256} tokens (${prompt} in the messages, 256 in the completion). Please reduce the length of the messages or completion.`,
          "BadRequestError",
        );
      if (fault.style === "llamacpp")
        return apiError(
          res,
          400,
          `request (${prompt} tokens) exceeds the available context size (${limit} tokens), try increasing it`,
          "exceed_context_size_error",
        );
      return apiError(res, 400, "The input is too long for the model's context window.", "invalid_request_error", "context_length_exceeded");
    }
    if (fault?.kind === "429") {
      apiError(res, 429, `Rate limit reached for ${model}. Please try again in ${fault.retryAfterSeconds}s.`, "requests", "rate_limit_exceeded", {
        "retry-after": String(fault.retryAfterSeconds),
      });
      return;
    }
    if (fault?.kind === "500") {
      apiError(res, 500, "The server had an error while processing your request. Sorry about that!", "server_error");
      return;
    }

    const action = decideNextAction(model, messages, tools);
    if (!action) {
      apiError(res, 404, `The model \`${model}\` does not exist.`, "invalid_request_error", "model_not_found");
      return;
    }
    const padding = fault?.kind === "oversize" ? "x".repeat(fault.bytes) : "";
    const content = padding ? `${action.content ?? ""}\n${padding}` : action.content;
    const requestHash = createHash("sha256")
      .update(JSON.stringify({ model, messages, tools: tools ?? null }))
      .digest("hex");
    const toolCalls = action.toolCalls.map((call, index) => ({
      id: `call_${createHash("sha256").update(`${requestHash}:${index}`).digest("hex").slice(0, 24)}`,
      name: call.name,
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    }));
    const finishReason = toolCalls.length > 0 ? "tool_calls" : "stop";
    // Usage is counted over the prompt and reply with minted ids normalised (MintedIdNormalizer: identical
    // work, identical usage); the agent above read the real messages.
    const promptTokens = promptTokenIds();
    const countedReply = toolCalls.map((c) => ({ name: c.name, arguments: mintedIds.normalizeText(c.arguments, scope) }));
    const usage = {
      prompt_tokens: promptTokens.length,
      completion_tokens:
        countCompletionTokens(action.content === null ? null : mintedIds.normalizeText(action.content, scope), countedReply) + Math.ceil(padding.length / 4),
      total_tokens: 0,
      prompt_tokens_details: {
        cached_tokens: cache.lookupAndStore(promptTokens, scope),
        audio_tokens: 0,
      },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    };
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
    const id = `chatcmpl-${requestHash.slice(0, 29)}`;
    const created = Math.floor(Date.now() / 1000);
    const requestId = `req_${requestHash.slice(0, 32)}`;

    if (fault?.kind === "stall") {
      const phase = fault.phase ?? (stream ? "after_headers" : "before_headers");
      if (phase === "after_headers") {
        res.writeHead(200, { "content-type": stream ? "text/event-stream" : "application/json", "x-request-id": requestId });
        res.flushHeaders();
      }
      if (!(await wait(fault.stallMs, res))) return;
    }

    if (!stream) {
      const completion = {
        id,
        object: "chat.completion",
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content,
              refusal: null,
              ...(toolCalls.length > 0
                ? { tool_calls: toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })) }
                : {}),
            },
            logprobs: null,
            finish_reason: finishReason,
          },
        ],
        ...(fault?.kind === "no_usage" ? {} : { usage }),
        system_fingerprint: "fp_scripted",
      };
      const text = JSON.stringify(completion);
      if (fault?.kind === "cut") {
        if (!res.headersSent) res.writeHead(200, { "content-type": "application/json", "x-request-id": requestId });
        res.end(text.slice(0, Math.floor(text.length / 2)));
        return;
      }
      stats.completions++;
      if (res.headersSent) res.end(text);
      else sendJson(res, 200, completion, { "x-request-id": requestId });
      return;
    }

    const includeUsage = body.stream_options?.include_usage === true && fault?.kind !== "no_usage";
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, system_fingerprint: "fp_scripted", choices, ...(includeUsage ? { usage: null } : {}), ...extra })}\n\n`;
    const events: string[] = [chunk([{ index: 0, delta: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: null }])];
    for (const piece of pieces(content ?? "", padding ? 65_536 : 24))
      events.push(chunk([{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }]));
    toolCalls.forEach((call, index) => {
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
    events.push(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason }]));
    if (includeUsage) events.push(chunk([], { usage }));
    events.push("data: [DONE]\n\n");

    if (!res.headersSent) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", "x-request-id": requestId });
    }
    if (fault?.kind === "cut") {
      // Half of the content/tool-call chunks (at least the role chunk and one more), then the end.
      const keep = Math.max(2, Math.floor(bodyEvents / 2));
      for (const event of events.slice(0, Math.min(keep, bodyEvents))) res.write(event);
      res.end();
      return;
    }
    stats.completions++;
    stats.streamed++;
    for (const event of events) res.write(event);
    res.end();
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const path = url.pathname.replace(/\/+$/, "") || "/";
    const route = `${req.method} ${path}`;
    const handle = async () => {
      // Loopback callers only, and never a web page: a browser adds Origin to cross-site requests, and a
      // Host other than a loopback name means DNS rebinding — either could arm faults or spend the scripted budget.
      if (req.headers.origin !== undefined || !/^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(req.headers.host ?? "")) {
        return apiError(
          res,
          403,
          "the scripted model server answers local programs only (no browser origins, loopback Host)",
          "invalid_request_error",
          "forbidden",
        );
      }
      if (route === "POST /v1/chat/completions") return chatCompletions(req, res);
      if (route === "GET /health") return sendJson(res, 200, { ok: true, models: Object.keys(SCRIPTED_MODELS) });
      if (route === "GET /v1/models") {
        return sendJson(res, 200, {
          object: "list",
          data: Object.keys(SCRIPTED_MODELS).map((id) => ({ id, object: "model", created: 0, owned_by: "longhaul-scripted" })),
        });
      }
      if (req.method === "GET" && path.startsWith("/v1/models/")) {
        const id = decodeURIComponent(path.slice("/v1/models/".length));
        if (id in SCRIPTED_MODELS) return sendJson(res, 200, { id, object: "model", created: 0, owned_by: "longhaul-scripted" });
        return apiError(res, 404, `The model \`${id}\` does not exist.`, "invalid_request_error", "model_not_found");
      }
      if (route === "GET /control/faults") return sendJson(res, 200, { faults });
      if (route === "DELETE /control/faults") {
        faults = [];
        return sendJson(res, 200, { faults });
      }
      if (route === "POST /control/faults") {
        let input: unknown;
        try {
          input = JSON.parse(await readBody(req));
        } catch {
          return apiError(res, 400, "body must be JSON: a fault object or an array of them", "invalid_request_error");
        }
        const parsed = z.array(faultSchema).safeParse(Array.isArray(input) ? input : [input]);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          return apiError(res, 400, `invalid fault: ${issue?.path.slice(1).join(".") || "body"}: ${issue?.message}`, "invalid_request_error");
        }
        const armed = parsed.data.map((f) => ({ ...f, id: nextFaultId++ }));
        faults.push(...armed);
        return sendJson(res, 201, { armed, faults });
      }
      if (route === "GET /control/stats") return sendJson(res, 200, stats);
      if (route === "POST /control/reset") {
        faults = [];
        stats = emptyStats();
        cache.clear();
        mintedIds.clear();
        return sendJson(res, 200, { reset: true });
      }
      return apiError(res, 404, `no route ${route}`, "invalid_request_error", "not_found");
    };
    handle().catch((err: unknown) => {
      process.stderr.write(`[scripted-model] ${route} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      if (!res.headersSent) apiError(res, 500, "internal error in the scripted model server", "server_error");
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const actualPort = (server.address() as AddressInfo).port;
  const url = `http://${host}:${actualPort}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    port: actualPort,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
