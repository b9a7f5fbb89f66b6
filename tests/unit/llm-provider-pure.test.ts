import { describe, expect, it } from "vitest";
import { kindForStatus, ModelCallError, parseContextLimit, parseRetryAfter } from "../../server/llm/errors.ts";
import { resolveProvider, type ProviderConfig } from "../../server/llm/provider.ts";
import { countCompletionTokens, countTokens, tokenizePrompt } from "../../server/llm/tokens.ts";
import { PrefixCache } from "../../server/llm/scripted/prefix-cache.ts";
import type { ChatMessage } from "../../server/llm/types.ts";

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  it("reads delta-seconds", () => {
    expect(parseRetryAfter(new Headers({ "retry-after": "7" }), now)).toBe(7000);
    expect(parseRetryAfter(new Headers({ "retry-after": "0.5" }), now)).toBe(500);
  });
  it("reads an HTTP date relative to now, never negative", () => {
    expect(parseRetryAfter(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }), now)).toBe(30_000);
    expect(parseRetryAfter(new Headers({ "retry-after": "Wed, 31 Dec 2025 23:59:00 GMT" }), now)).toBe(0);
  });
  it("prefers retry-after-ms", () => {
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "1234.2", "retry-after": "9" }), now)).toBe(1235);
  });
  it("accepts a plain record and gives null for nothing or garbage", () => {
    expect(parseRetryAfter({ "retry-after": "3" }, now)).toBe(3000);
    expect(parseRetryAfter(new Headers(), now)).toBeNull();
    expect(parseRetryAfter(new Headers({ "retry-after": "soon" }), now)).toBeNull();
    expect(parseRetryAfter(new Headers({ "retry-after": "-5" }), now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});

describe("context-length refusals", () => {
  it.each([
    [
      "OpenAI",
      "This model's maximum context length is 8192 tokens. However, your messages resulted in 9012 tokens. Please reduce the length of the messages.",
      8_192,
      9_012,
    ],
    [
      "OpenAI / vLLM with a completion",
      "This model's maximum context length is 16384 tokens. However, you requested 122946 tokens (112946 in the messages, 10000 in the completion). Please reduce the length of the messages or completion.",
      16_384,
      112_946,
    ],
    [
      "vLLM (newer)",
      "This model's maximum context length is 2048 tokens. However, your request has 3000 input tokens. Please reduce the length of the input messages.",
      2_048,
      3_000,
    ],
    ["llama.cpp", "request (9012 tokens) exceeds the available context size (8192 tokens), try increasing it", 8_192, 9_012],
    ["Ollama-style", "input length (9,012 tokens) exceeds the model's context length (8,192 tokens)", 8_192, 9_012],
    ["Anthropic-style", "prompt is too long: 208310 tokens > 200000 maximum", 200_000, 208_310],
    ["a limit alone", "the prompt exceeds the context window of 4096 tokens", 4_096, null],
    ["nothing stated", "The input is too long for the model's context window.", null, null],
    [
      "behind the provider adapter's prefix",
      "model provider answered 400: 400 This model's maximum context length is 6000 tokens. However, your messages resulted in 7000 tokens.",
      6_000,
      7_000,
    ],
  ] as const)("reads the limit %s states", (_n, message, limitTokens, promptTokens) => {
    expect(parseContextLimit(message)).toEqual({ limitTokens, promptTokens });
  });

  it.each([
    [400, null, "This model's maximum context length is 2048 tokens. However, your request has 3000 input tokens.", "context_length"],
    [400, null, "request (9012 tokens) exceeds the available context size (8192 tokens), try increasing it", "context_length"],
    [413, null, "prompt is too long: 208310 tokens > 200000 maximum", "context_length"],
    [400, null, "Invalid value for 'temperature'", "bad_request"],
    [500, null, "maximum context length is 8192 tokens", "server"],
  ] as const)("a %i without the code, %j, in words: %j → %s", (status, code, message, kind) => {
    expect(kindForStatus(status, code, message)).toBe(kind);
  });
});

describe("error kinds", () => {
  it("maps statuses", () => {
    expect(kindForStatus(429)).toBe("rate_limited");
    expect(kindForStatus(401)).toBe("auth");
    expect(kindForStatus(403)).toBe("auth");
    expect(kindForStatus(400)).toBe("bad_request");
    // OpenAI answers a prompt over the window with 400 + code context_length_exceeded: saturation, not a bad request.
    expect(kindForStatus(400, "context_length_exceeded")).toBe("context_length");
    expect(kindForStatus(400, "invalid_request_error")).toBe("bad_request");
    expect(new ModelCallError({ kind: "context_length", message: "too long" }).retryable).toBe(false);
    expect(kindForStatus(404)).toBe("bad_request");
    expect(kindForStatus(408)).toBe("timeout");
    expect(kindForStatus(500)).toBe("server");
    expect(kindForStatus(503)).toBe("server");
  });
  it("derives retryable from the kind", () => {
    expect(new ModelCallError({ kind: "rate_limited", message: "x" }).retryable).toBe(true);
    expect(new ModelCallError({ kind: "stream_cut", message: "x" }).retryable).toBe(true);
    expect(new ModelCallError({ kind: "bad_request", message: "x" }).retryable).toBe(false);
    expect(new ModelCallError({ kind: "auth", message: "x" }).retryable).toBe(false);
  });
});

describe("resolveProvider", () => {
  /** Longhaul's own parsed configuration as resolveProvider reads it (server/env.ts defaults). */
  const config = (over: Partial<ProviderConfig> = {}): ProviderConfig => ({ MODEL_PORT: 8787, ...over });
  it("uses the local model server when nothing is configured", () => {
    expect(resolveProvider({ config: config(), variables: {} })).toEqual({
      baseUrl: "http://127.0.0.1:8787/v1",
      apiKey: null,
      headers: {},
      source: "default_local",
      wireFormat: "chat",
    });
    expect(resolveProvider({ config: config({ MODEL_PORT: 9999 }), variables: {} }).baseUrl).toBe("http://127.0.0.1:9999/v1");
  });
  it("uses OpenAI with only a key, OPENAI_BASE_URL when set, and the profile first", () => {
    expect(resolveProvider({ config: config({ OPENAI_API_KEY: "sk-x" }), variables: {} })).toEqual({
      baseUrl: "https://api.openai.com/v1",
      apiKey: "sk-x",
      headers: {},
      source: "openai",
      wireFormat: "chat",
    });
    expect(resolveProvider({ config: config({ OPENAI_BASE_URL: "http://localhost:11434/v1/" }), variables: {} })).toEqual({
      baseUrl: "http://localhost:11434/v1",
      apiKey: null,
      headers: {},
      source: "env_base_url",
      wireFormat: "chat",
    });
    expect(
      resolveProvider({ profileBaseUrl: "http://vllm:8000/v1", config: config({ OPENAI_BASE_URL: "http://other/v1", OPENAI_API_KEY: "k" }), variables: {} }),
    ).toEqual({
      baseUrl: "http://vllm:8000/v1",
      // Longhaul's own key goes only where its own configuration points it (OpenAI, OPENAI_BASE_URL).
      apiKey: null,
      headers: {},
      source: "profile",
      wireFormat: "chat",
      keyWithheld: "OPENAI_API_KEY",
    });
  });
  it("sends a scripted profile to the scripted server whatever OPENAI_* says", () => {
    const real = config({ OPENAI_API_KEY: "sk-real", OPENAI_BASE_URL: "https://api.openai.com/v1", MODEL_PORT: 4102 });
    expect(resolveProvider({ endpoint: { provider: "scripted", baseUrl: null }, config: real, variables: { OPENAI_API_KEY: "sk-real" } })).toEqual({
      baseUrl: "http://127.0.0.1:4102/v1",
      apiKey: null,
      headers: {},
      source: "scripted",
      wireFormat: "chat",
    });
  });
  it("reads the key from the profile's variable and fills ${NAME} in headers", () => {
    const variables = { OPENAI_API_KEY: "sk-default", MY_KEY: "sk-mine", ORG: "acme" };
    const withKey = config({ OPENAI_API_KEY: "sk-default" });
    const r = resolveProvider({
      endpoint: { provider: "openai", baseUrl: "http://h/v1", apiKeyEnv: "MY_KEY", headers: { "X-Org": "${ORG}" } },
      config: withKey,
      variables,
    });
    expect(r).toEqual({ baseUrl: "http://h/v1", apiKey: "sk-mine", headers: { "X-Org": "acme" }, source: "profile", wireFormat: "chat" });
    expect(resolveProvider({ endpoint: { baseUrl: "http://h/v1", apiKeyEnv: "UNSET_KEY" }, config: withKey, variables }).missingKeyEnv).toBe("UNSET_KEY");
  });
});

describe("token counting", () => {
  const messages: ChatMessage[] = [
    { role: "system", content: "You are a careful agent." },
    { role: "user", content: "<goal>Say hello</goal>" },
  ];
  it("counts more for longer prompts and for tools", () => {
    const base = countTokens(messages);
    expect(base).toBeGreaterThan(10);
    expect(countTokens([...messages, { role: "assistant", content: "hello there" }])).toBeGreaterThan(base);
    expect(countTokens(messages, [{ type: "function", function: { name: "finish", parameters: { type: "object" } } }])).toBeGreaterThan(base);
  });
  it("keeps an extended conversation's token sequence a prefix-extension of the shorter one", () => {
    const short = tokenizePrompt(messages);
    const long = tokenizePrompt([
      ...messages,
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "finish", arguments: "{}" } }] },
    ]);
    expect(long.slice(0, short.length - 3)).toEqual(short.slice(0, short.length - 3));
  });
  it("counts completion tokens of content and tool calls", () => {
    expect(countCompletionTokens(null, [])).toBe(0);
    expect(countCompletionTokens("hello world", [])).toBe(2);
    expect(countCompletionTokens(null, [{ name: "finish", arguments: '{"result":"ok"}' }])).toBeGreaterThan(3);
  });
});

describe("PrefixCache", () => {
  const seq = (n: number, salt = 0) => Array.from({ length: n }, (_, i) => (i * 7 + salt) % 50_000);
  it("caches nothing on first sight and below 1024 tokens", () => {
    const cache = new PrefixCache();
    expect(cache.lookupAndStore(seq(3000))).toBe(0);
    expect(cache.lookupAndStore(seq(1000))).toBe(0); // shared prefix of 896 tokens (7 blocks) < 1024
  });
  it("gives the longest shared prefix with any earlier prompt, rounded down to 128", () => {
    const cache = new PrefixCache();
    cache.lookupAndStore(seq(2000));
    const extended = [...seq(2000), ...seq(500, 3)];
    expect(cache.lookupAndStore(extended)).toBe(1920); // 15 full blocks of the 2000 shared tokens
    expect(cache.lookupAndStore(extended)).toBe(2432); // identical prompt: all 19 full blocks
    const diverging = [...seq(1300), ...seq(800, 1)];
    expect(cache.lookupAndStore(diverging)).toBe(1280);
  });
});
