import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from "openai";
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";
import { kindForStatus, ModelCallError, parseRetryAfter, type ModelCallErrorKind } from "./errors.ts";
import { countCompletionTokens, countTokens } from "./tokens.ts";
import type { ChatMessage, EffortLevel, ModelToolCall, ModelUsage, ToolSchema } from "./types.ts";
import { env as parsedEnv, namedVariables, type Env } from "../env.ts";

/** Default deadline for response headers (streaming) or the whole response (non-streaming), ms. */
export const DEFAULT_TIMEOUT_MS = 120_000;
/** Default longest silence allowed between two stream chunks (and before the first one), ms. */
export const DEFAULT_CHUNK_TIMEOUT_MS = 30_000;

/** First wait before calling a local provider again after its connection failed (ms); the step's later attempts wait this × (attempt + 1). */
export const LOCAL_RECONNECT_MS = 1_000;

/**
 * True when `baseUrl` points at this machine or a private network (loopback, 10/8, 172.16/12,
 * 192.168/16, link-local, `localhost`, `*.local`, `host.docker.internal`): a local model server,
 * whose connection errors are retried quickly (a restart takes seconds). False for a URL that does
 * not parse.
 */
export function isLocalBaseUrl(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.toLowerCase().replace(/^\[|\]$/g, "");
  } catch {
    return false;
  }
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") || host === "host.docker.internal") return true;
  if (host === "::1" || host === "::" || host.startsWith("fe80:") || host.startsWith("fc") || host.startsWith("fd")) return host.includes(":");
  const m = /^(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/.exec(host);
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  return a === 127 || a === 10 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
}

export interface ChatCompletionRequest {
  /** OpenAI-compatible base URL ending in `/v1` (see resolveProvider). */
  baseUrl: string;
  /** Bearer key; null/undefined for servers that need none (a placeholder is sent). */
  apiKey?: string | null;
  /** Extra HTTP headers sent with the request (a profile's `headers`, already resolved). */
  headers?: Record<string, string>;
  model: string;
  messages: ChatMessage[];
  tools?: ToolSchema[];
  /** Stream the reply as SSE (with `stream_options.include_usage`). Default true. */
  stream?: boolean;
  /** Non-streaming: deadline for the whole call. Streaming: deadline for the response headers. ms. */
  timeoutMs?: number;
  /** Streaming only: longest silence between chunks (and from headers to the first chunk), ms. */
  chunkTimeoutMs?: number;
  /** The caller's cancellation; firing it raises ModelCallError kind `aborted`. */
  signal?: AbortSignal;
  temperature?: number;
  maxTokens?: number;
  /**
   * Sent as `prompt_cache_key` (OpenAI: requests with the same key and prefix share a prompt cache);
   * Longhaul passes the run id, so a run's requests share their cache and unrelated runs don't.
   */
  promptCacheKey?: string;
  /**
   * The reasoning effort the agent loop chose for this call, sent as Chat Completions'
   * `reasoning_effort` (OpenAI's reasoning models honour it; a server without such a control may
   * ignore it). Absent = the provider's default, nothing sent.
   */
  effort?: EffortLevel;
}

export interface ChatCompletionResult {
  message: { content: string | null; toolCalls: ModelToolCall[] };
  /** `stop`, `tool_calls`, `length`, `content_filter`, … as the provider sent it. */
  finishReason: string;
  usage: ModelUsage;
  /** True when the provider sent no usage and `usage` was counted locally with gpt-tokenizer. */
  usageEstimated: boolean;
  /** Wall time from sending the request to the end of the response, ms. */
  latencyMs: number;
  httpStatus: number;
  /** The provider's response id (`chatcmpl-…`) and request id header, when present. */
  responseId: string | null;
  requestId: string | null;
}

type AbortCause = "caller" | "timeout_headers" | "timeout_chunk";

/**
 * One Chat Completions call with tools through the `openai` SDK v6, with Longhaul owning retries and
 * timeouts (STACK.md pitfall 7): the SDK runs with `maxRetries: 0`; our own timer aborts the request
 * when headers (or, non-streaming, the whole body) do not arrive within `timeoutMs`; a per-chunk
 * watchdog aborts a stream silent for `chunkTimeoutMs`; and a stream that ends without a
 * `finish_reason` is reported as a cut stream, because the SDK ends the loop silently on abort.
 *
 * Tool-call arguments are returned as raw strings, unparsed: they are untrusted model output for the
 * tool gateway to validate. Any failure is thrown as a ModelCallError (see errors.ts for kinds,
 * `retryable`, `retryAfterMs`, `billed`); nothing is retried here.
 */
export async function createChatCompletion(request: ChatCompletionRequest): Promise<ChatCompletionResult> {
  const stream = request.stream ?? true;
  const timeoutMs = request.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const chunkTimeoutMs = request.chunkTimeoutMs ?? DEFAULT_CHUNK_TIMEOUT_MS;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);

  const controller = new AbortController();
  let abortCause: AbortCause | null = null;
  const abort = (cause: AbortCause) => {
    if (abortCause !== null) return;
    abortCause = cause;
    controller.abort();
  };
  const onCallerAbort = () => abort("caller");
  if (request.signal?.aborted) {
    throw new ModelCallError({ kind: "aborted", message: "model call aborted by the caller before it started" });
  }
  request.signal?.addEventListener("abort", onCallerAbort, { once: true });
  let timer: NodeJS.Timeout | undefined = setTimeout(() => abort("timeout_headers"), timeoutMs);
  const armChunkWatchdog = () => {
    clearTimeout(timer);
    timer = setTimeout(() => abort("timeout_chunk"), chunkTimeoutMs);
  };

  const client = new OpenAI({
    baseURL: request.baseUrl,
    apiKey: request.apiKey || "not-needed",
    maxRetries: 0,
    ...(request.headers && Object.keys(request.headers).length ? { defaultHeaders: request.headers } : {}),
    // Our own timer decides; the SDK's (which stops at headers anyway) only backs it up.
    timeout: timeoutMs + 5_000,
  });
  const params = {
    model: request.model,
    messages: request.messages as ChatCompletionCreateParams["messages"],
    ...(request.tools && request.tools.length > 0 ? { tools: request.tools as ChatCompletionCreateParams["tools"] } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.maxTokens !== undefined ? { max_completion_tokens: request.maxTokens } : {}),
    ...(request.promptCacheKey ? { prompt_cache_key: request.promptCacheKey } : {}),
    ...(request.effort ? { reasoning_effort: request.effort } : {}),
  };

  let content = "";
  let sawContent = false;
  const calls: { id: string; name: string; arguments: string }[] = [];
  let tokensFlowed = false;
  let httpStatus = 0;

  const estimate = (): ModelUsage => ({
    promptTokens: countTokens(request.messages, request.tools),
    cachedTokens: 0,
    completionTokens: countCompletionTokens(content || null, calls),
  });
  const fail = (
    kind: ModelCallErrorKind,
    message: string,
    extra: { status?: number | null; retryAfterMs?: number | null; billed?: boolean; cause?: unknown } = {},
  ) => {
    const billed = extra.billed ?? false;
    return new ModelCallError({
      kind,
      message,
      status: extra.status ?? (httpStatus || null),
      retryAfterMs: extra.retryAfterMs ?? null,
      billed,
      latencyMs: elapsed(),
      estimatedUsage: billed ? estimate() : null,
      cause: extra.cause,
    });
  };
  const abortError = (cause: AbortCause, during: "request" | "stream", err?: unknown) => {
    if (cause === "caller") {
      return fail("aborted", `model call aborted by the caller during the ${during}`, { billed: during === "stream" ? tokensFlowed : !stream, cause: err });
    }
    if (cause === "timeout_headers") {
      // A non-streaming request keeps generating (and billing) at the provider after we hang up.
      return fail("timeout", stream ? `no response headers within ${timeoutMs} ms` : `no complete response within ${timeoutMs} ms`, {
        billed: !stream,
        cause: err,
      });
    }
    return fail("timeout", `stream silent for ${chunkTimeoutMs} ms (per-chunk watchdog)`, { billed: tokensFlowed, cause: err });
  };
  const classify = (err: unknown, during: "request" | "stream"): ModelCallError => {
    if (err instanceof ModelCallError) return err;
    if (abortCause !== null) return abortError(abortCause, during, err);
    if (err instanceof APIUserAbortError) return fail("aborted", "model call aborted", { cause: err });
    if (err instanceof APIConnectionError) {
      if (during === "stream") return fail("stream_cut", `stream broke: ${err.message}`, { billed: tokensFlowed, cause: err });
      // A local server (Ollama, vLLM, the scripted model) that died is usually back within seconds:
      // retry soon instead of waiting out the executor's long backoff (issue 18).
      const retryAfterMs = isLocalBaseUrl(request.baseUrl) ? LOCAL_RECONNECT_MS : null;
      return fail("network", `could not reach the model provider at ${request.baseUrl}: ${err.message}`, { status: null, cause: err, retryAfterMs });
    }
    if (err instanceof APIError) {
      if (err.status === undefined) {
        // An `error` event inside an SSE stream (the provider failed mid-generation).
        return fail("server", `provider error inside the stream: ${err.message}`, { billed: tokensFlowed, cause: err });
      }
      const kind = kindForStatus(err.status, typeof err.code === "string" ? err.code : null, err.message);
      return fail(kind, `model provider answered ${err.status}: ${err.message}`, {
        status: err.status,
        retryAfterMs: kind === "rate_limited" ? parseRetryAfter(err.headers) : null,
        cause: err,
      });
    }
    const message = err instanceof Error ? err.message : String(err);
    if (during === "stream") return fail("stream_cut", `stream broke: ${message}`, { billed: tokensFlowed, cause: err });
    if (err instanceof SyntaxError) return fail("stream_cut", `response body was cut or malformed: ${message}`, { billed: true, cause: err });
    return fail("network", `model call failed: ${message}`, { cause: err });
  };

  try {
    if (!stream) {
      let data: OpenAI.Chat.Completions.ChatCompletion;
      let response: Response;
      try {
        ({ data, response } = await client.chat.completions.create({ ...params, stream: false }, { signal: controller.signal }).withResponse());
      } catch (err) {
        throw classify(err, "request");
      }
      clearTimeout(timer);
      httpStatus = response.status;
      if (abortCause !== null) throw abortError(abortCause, "request");
      const choice = data.choices?.[0];
      if (!choice || !choice.finish_reason) throw fail("stream_cut", "response carried no choice with a finish_reason", { billed: true });
      const toolCalls: ModelToolCall[] = [];
      for (const call of choice.message.tool_calls ?? []) {
        if (call.type === "function") toolCalls.push({ id: call.id, name: call.function.name, arguments: call.function.arguments });
      }
      content = choice.message.content ?? "";
      calls.push(...toolCalls);
      const usage = data.usage;
      return {
        message: { content: choice.message.content ?? null, toolCalls },
        finishReason: choice.finish_reason,
        usage: usage
          ? {
              promptTokens: usage.prompt_tokens,
              cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
              completionTokens: usage.completion_tokens,
              reasoningTokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
            }
          : estimate(),
        usageEstimated: !usage,
        latencyMs: elapsed(),
        httpStatus,
        responseId: data.id ?? null,
        requestId: response.headers.get("x-request-id"),
      };
    }

    let iterable: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>;
    let response: Response;
    try {
      ({ data: iterable, response } = await client.chat.completions
        .create({ ...params, stream: true, stream_options: { include_usage: true } }, { signal: controller.signal })
        .withResponse());
    } catch (err) {
      throw classify(err, "request");
    }
    httpStatus = response.status;
    armChunkWatchdog();
    let finishReason: string | null = null;
    let usage: ModelUsage | null = null;
    let responseId: string | null = null;
    const byIndex = new Map<number, { id: string; name: string; arguments: string }>();
    try {
      for await (const chunk of iterable) {
        armChunkWatchdog();
        responseId ??= chunk.id ?? null;
        if (chunk.usage) {
          usage = {
            promptTokens: chunk.usage.prompt_tokens,
            cachedTokens: chunk.usage.prompt_tokens_details?.cached_tokens ?? 0,
            completionTokens: chunk.usage.completion_tokens,
            reasoningTokens: chunk.usage.completion_tokens_details?.reasoning_tokens ?? 0,
          };
        }
        for (const choice of chunk.choices ?? []) {
          if (choice.index !== 0) continue;
          const delta = choice.delta;
          if (delta?.content) {
            content += delta.content;
            sawContent = true;
            tokensFlowed = true;
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
            tokensFlowed = true;
          }
          if (choice.finish_reason) finishReason = choice.finish_reason;
        }
      }
    } catch (err) {
      throw classify(err, "stream");
    }
    clearTimeout(timer);
    // The SDK ends the loop without an error when the request is aborted (pitfall 7). A stream that
    // went silent only after its finish_reason (waiting for the usage chunk or [DONE]) is complete.
    if (abortCause !== null && !(abortCause === "timeout_chunk" && finishReason !== null)) throw abortError(abortCause, "stream");
    if (finishReason === null) throw fail("stream_cut", "stream ended without a finish_reason", { billed: tokensFlowed });
    const toolCalls = [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, call]) => call);
    return {
      message: { content: sawContent ? content : null, toolCalls },
      finishReason,
      usage: usage ?? estimate(),
      usageEstimated: usage === null,
      latencyMs: elapsed(),
      httpStatus,
      responseId,
      requestId: response.headers.get("x-request-id"),
    };
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener("abort", onCallerAbort);
    if (abortCause === null) controller.abort(); // release the socket of an unfinished body
  }
}

/** Where a profile's model calls go (the profile's columns; prisma/schema/longhaul.prisma AgentProfile). */
export interface ProfileEndpoint {
  /** "scripted": always the local scripted model server; "openai": any OpenAI-compatible server. */
  provider?: string | null;
  baseUrl?: string | null;
  /** Name of the environment variable holding the API key; null = OPENAI_API_KEY. */
  apiKeyEnv?: string | null;
  /** Extra headers; `${NAME}` in a value is replaced by environment variable NAME. */
  headers?: Record<string, string> | null;
}

export interface ResolvedProvider {
  /** OpenAI-compatible base URL, no trailing slash. */
  baseUrl: string;
  apiKey: string | null;
  /** Extra headers with `${NAME}` references filled in from the environment (empty when none). */
  headers: Record<string, string>;
  /** Where the choice came from, for logs: the scripted server, the profile, OPENAI_BASE_URL, OPENAI_API_KEY, or the default. */
  source: "scripted" | "profile" | "env_base_url" | "openai" | "default_local";
  /** Set when the profile names a key variable that is not set (the call would be refused with a 401). */
  missingKeyEnv?: string;
}

/** What {@link resolveProvider} reads of Longhaul's own configuration (server/env.ts, parsed once). */
export type ProviderConfig = Pick<Env, "MODEL_PORT" | "OPENAI_API_KEY" | "OPENAI_BASE_URL">;

/**
 * Picks the model endpoint of a profile. A `scripted` profile always gets the local scripted model
 * server `http://127.0.0.1:${MODEL_PORT ?? 8787}/v1` with no key, whatever OPENAI_* says (issue 16:
 * OPENAI_API_KEY once sent the scripted profiles to OpenAI with the model name "scripted"). Otherwise,
 * in order: the profile's base URL; OPENAI_BASE_URL (any compatible server: Ollama, vLLM, llama.cpp,
 * LM Studio); OPENAI_API_KEY alone → OpenAI (https://api.openai.com/v1); otherwise the local model
 * server (ARCHITECTURE.md, processes). The key is the variable the profile names (`apiKeyEnv`), else
 * OPENAI_API_KEY. Header values get `${NAME}` replaced by the variable's value ('' when unset).
 * `config` defaults to env(), `variables` (the ones a profile names) to namedVariables(); tests pass
 * their own.
 */
export function resolveProvider({
  profileBaseUrl,
  endpoint,
  config = parsedEnv(),
  variables = namedVariables(),
}: {
  profileBaseUrl?: string | null;
  endpoint?: ProfileEndpoint;
  config?: ProviderConfig;
  variables?: Readonly<Record<string, string | undefined>>;
} = {}): ResolvedProvider {
  const trim = (url: string) => url.trim().replace(/\/+$/, "");
  const port = config.MODEL_PORT;
  const local = `http://127.0.0.1:${port}/v1`;
  const headers = Object.fromEntries(
    Object.entries(endpoint?.headers ?? {}).map(([k, v]) => [k, v.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => variables[name] ?? "")]),
  );
  if (endpoint?.provider === "scripted") return { baseUrl: local, apiKey: null, headers, source: "scripted" };
  const keyEnv = endpoint?.apiKeyEnv?.trim() || null;
  const apiKey = (keyEnv ? variables[keyEnv]?.trim() : config.OPENAI_API_KEY?.trim()) || null;
  const missing = keyEnv && !apiKey ? { missingKeyEnv: keyEnv } : {};
  const base = endpoint?.baseUrl ?? profileBaseUrl;
  if (base?.trim()) return { baseUrl: trim(base), apiKey, headers, source: "profile", ...missing };
  if (config.OPENAI_BASE_URL?.trim()) return { baseUrl: trim(config.OPENAI_BASE_URL), apiKey, headers, source: "env_base_url", ...missing };
  if (apiKey) return { baseUrl: "https://api.openai.com/v1", apiKey, headers, source: "openai" };
  return { baseUrl: local, apiKey: null, headers, source: "default_local", ...missing };
}
