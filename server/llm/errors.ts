import type { ModelUsage } from "./types.ts";
import { MODEL_ERROR_RETRYABLE, type ModelCallErrorKind } from "../domain/model-error-kinds.ts";

/**
 * The single error a model call raises. `billed` says whether the provider most likely charged the
 * attempt: providers bill generated tokens, so a stream that was cut or stalled after tokens flowed
 * and a non-streaming call abandoned while the provider was still generating are billed; a 429, a
 * 4xx, a 5xx and a connection failure are not. `estimatedUsage` (counted locally with gpt-tokenizer)
 * is set when `billed` is true, so the cost ledger can record the waste.
 */
export class ModelCallError extends Error {
  readonly kind: ModelCallErrorKind;
  readonly status: number | null;
  readonly retryable: boolean;
  readonly retryAfterMs: number | null;
  readonly billed: boolean;
  readonly latencyMs: number;
  readonly estimatedUsage: ModelUsage | null;

  constructor(options: {
    kind: ModelCallErrorKind;
    message: string;
    status?: number | null;
    retryAfterMs?: number | null;
    billed?: boolean;
    latencyMs?: number;
    estimatedUsage?: ModelUsage | null;
    cause?: unknown;
  }) {
    super(options.message, { cause: options.cause });
    this.name = "ModelCallError";
    this.kind = options.kind;
    this.status = options.status ?? null;
    this.retryable = MODEL_ERROR_RETRYABLE[options.kind];
    this.retryAfterMs = options.retryAfterMs ?? null;
    this.billed = options.billed ?? false;
    this.latencyMs = options.latencyMs ?? 0;
    this.estimatedUsage = options.estimatedUsage ?? null;
  }
}

/** Minimal header access, satisfied by the Fetch API's `Headers` and by a plain lower-cased record. */
export type HeaderSource = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource | null | undefined, name: string): string | null {
  if (!headers) return null;
  if (typeof (headers as { get?: unknown }).get === "function") return (headers as { get(name: string): string | null }).get(name);
  const value = (headers as Record<string, string | string[] | undefined>)[name.toLowerCase()];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

/**
 * How long a provider asked us to wait, in milliseconds, or null when it did not say.
 *
 * Sources, in order: `retry-after-ms` (OpenAI's extension, milliseconds, may be fractional), then
 * `retry-after` as delta-seconds or as an HTTP-date (RFC 9110 §10.2.3), relative to `now` (ms since
 * epoch). A date in the past gives 0. Unparseable or negative values give null.
 */
export function parseRetryAfter(headers: HeaderSource | null | undefined, now: number = Date.now()): number | null {
  const ms = header(headers, "retry-after-ms");
  if (ms !== null && ms.trim() !== "") {
    const value = Number(ms.trim());
    if (Number.isFinite(value) && value >= 0) return Math.ceil(value);
  }
  const raw = header(headers, "retry-after");
  if (raw === null) return null;
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  if (/^-/.test(text)) return null;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

/** Words a provider refuses an over-long prompt with when it sends no `context_length_exceeded` code. */
const CONTEXT_LENGTH_WORDS =
  /maximum context length|exceed context limit|context length (?:of|is|exceeded)|exceeds? (?:the )?(?:available |model'?s? )?context (?:size|length|window)|prompt is too long|input (?:length|prompt)[^.]{0,40}(?:too long|exceeds)/i;

/** What a context-length refusal says of the limit: the window the provider enforces and the prompt it measured (tokens; null when it does not say). */
export interface StatedContextLimit {
  /** The provider's maximum context, in tokens. */
  limitTokens: number | null;
  /** The prompt tokens the provider counted for the refused request (the messages alone when it splits them from the completion). */
  promptTokens: number | null;
}

const num = (text: string | undefined): number | null => {
  if (text === undefined) return null;
  const value = Number(text.replaceAll(",", ""));
  return Number.isSafeInteger(value) && value > 0 ? value : null;
};

/**
 * Reads the limit a provider states in a context-length refusal, in the phrasings of the common
 * OpenAI-compatible servers; fields it does not state are null (never guessed):
 * - OpenAI: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9012 tokens."
 * - OpenAI / vLLM with a completion: "… However, you requested 9500 tokens (9012 in the messages, 488 in the completion)."
 * - vLLM (newer): "… maximum context length is 2048 tokens. However, your request has 3000 input tokens."
 * - llama.cpp: "request (9012 tokens) exceeds the available context size (8192 tokens)"
 * - Ollama and others: "input length (9012 tokens) exceeds the context length (8192 tokens)"
 * - Anthropic (and proxies in its words): "prompt is too long: 9012 tokens > 8192 maximum"
 * - Anthropic, prompt + max_tokens: "input length and `max_tokens` exceed context limit: 7800 + 1024 > 8192"
 * Pure.
 */
export function parseContextLimit(message: string): StatedContextLimit {
  const text = message.replace(/\s+/g, " ");
  const n = String.raw`(\d[\d,]*)`;
  let m = new RegExp(String.raw`maximum context length is ${n} tokens`, "i").exec(text);
  if (m) {
    const limitTokens = num(m[1]);
    const inMessages = new RegExp(String.raw`\(${n} (?:tokens )?in (?:the|your) messages`, "i").exec(text);
    const resulted = new RegExp(String.raw`(?:messages resulted in|request has|you requested|prompt (?:has|contains)) ${n}(?: input)? tokens`, "i").exec(text);
    return { limitTokens, promptTokens: num(inMessages?.[1]) ?? num(resulted?.[1]) };
  }
  m = new RegExp(String.raw`\(${n} tokens\)[^()]{0,80}exceeds?[^()]{0,60}context (?:size|length|window)[^()]{0,20}\(${n} tokens\)`, "i").exec(text);
  if (m) return { limitTokens: num(m[2]), promptTokens: num(m[1]) };
  m = new RegExp(String.raw`prompt is too long: ${n} tokens > ${n}`, "i").exec(text);
  if (m) return { limitTokens: num(m[2]), promptTokens: num(m[1]) };
  // Anthropic, when the prompt fits but the prompt and max_tokens together do not.
  m = new RegExp(String.raw`exceed context limit: ${n} \+ ${n} > ${n}`, "i").exec(text);
  if (m) return { limitTokens: num(m[3]), promptTokens: num(m[1]) };
  m = new RegExp(String.raw`context (?:length|size|window)(?: of| is)? ${n}(?: tokens)?`, "i").exec(text);
  return { limitTokens: num(m?.[1]), promptTokens: null };
}

/**
 * Maps an HTTP status (and the provider's error `code` or Anthropic's error `type`, when it sent one)
 * of a failed response to an error kind (see ModelCallErrorKind). A 400 whose code is
 * `context_length_exceeded` (OpenAI's documented code; also sent by vLLM and llama.cpp servers in
 * OpenAI mode) is `context_length`, and so is a 400/413 whose `message` says so in words
 * (CONTEXT_LENGTH_WORDS: servers without the code, Anthropic's "prompt is too long"). 529 or type
 * `overloaded_error` is `overloaded` (Anthropic's errors page); a 404 about the model is `unknown_model`.
 */
export function kindForStatus(status: number, code?: string | null, message?: string | null): ModelCallErrorKind {
  if ((status === 400 || status === 413) && code === "context_length_exceeded") return "context_length";
  // Servers that send no such code (vLLM, llama.cpp, Ollama, proxies, Anthropic) say it in words.
  if ((status === 400 || status === 413) && message && CONTEXT_LENGTH_WORDS.test(message)) return "context_length";
  if (status === 429) return "rate_limited";
  if (status === 529 || code === "overloaded_error") return "overloaded";
  if (status === 404 && (code === "model_not_found" || (message !== null && message !== undefined && /\bmodel\b/i.test(message)))) return "unknown_model";
  if (status === 401 || status === 403) return "auth";
  if (status === 408) return "timeout";
  if (status >= 500) return "server";
  return "bad_request";
}
