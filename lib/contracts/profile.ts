/**
 * Agent profiles as the browser, the API and `profiles apply` files name them. Client-safe
 * constants; the validating schema is server/domain/profile-spec.ts `profileSpecSchema`.
 */

/** The built-in tools a profile may list (server/tools/registry.ts builtinToolNames; a unit test keeps them equal). */
export const BUILTIN_TOOL_NAMES = [
  "list_files",
  "read_file",
  "search_files",
  "record_fact",
  "read_reference",
  "write_artifact",
  "send_email",
  "http_post",
  "complete_phase",
  "request_human",
  "finish",
  "declare_dead_end",
] as const;

/**
 * Provider kinds. A provider picks the wire format and where the calls go:
 * - `openai`: OpenAI Chat Completions — any compatible server (its base URL, else OPENAI_BASE_URL,
 *   else OpenAI itself): OpenAI, Ollama, vLLM, LM Studio, llama.cpp…
 * - `openai-responses`: OpenAI's Responses API (reasoning items carried across tool calls).
 * - `anthropic`: Anthropic's Messages API (explicit cache breakpoints, thinking blocks).
 * - `scripted`, `scripted-responses`, `scripted-anthropic`: the local scripted model server, offline,
 *   through the Chat Completions, Responses and Messages adapters respectively.
 */
export const PROFILE_PROVIDERS = ["openai", "openai-responses", "anthropic", "scripted", "scripted-responses", "scripted-anthropic"] as const;
export type ProfileProvider = (typeof PROFILE_PROVIDERS)[number];

/** What a provider kind speaks and supports (PROFILE_PROVIDERS has the words). */
export interface ProviderInfo {
  /** The adapter: Chat Completions, Responses or Messages (server/llm/adapters/). */
  wireFormat: "chat" | "responses" | "messages";
  /** True for the offline scripted model server (no key, no network). */
  offline: boolean;
  /** Short name for forms and lists. */
  label: string;
  /**
   * The request parameter a call's effort level goes out as, and what it reaches: OpenAI's reasoning
   * models honour `reasoning_effort` / `reasoning.effort`; other OpenAI-compatible servers may ignore
   * the parameter or refuse it (then leave the profile's effort unset).
   */
  effort: { parameter: string; note: string };
  /** Where a profile without `apiKeyEnv` takes its key from, and the only base URL(s) it goes to (the key rule). */
  defaultKeyEnv: "OPENAI_API_KEY" | "ANTHROPIC_API_KEY" | null;
}

export const PROVIDERS: Readonly<Record<ProfileProvider, ProviderInfo>> = {
  openai: {
    wireFormat: "chat",
    offline: false,
    label: "OpenAI-compatible (Chat Completions)",
    effort: { parameter: "reasoning_effort", note: "honoured by OpenAI's reasoning models; other compatible servers may ignore or refuse it" },
    defaultKeyEnv: "OPENAI_API_KEY",
  },
  "openai-responses": {
    wireFormat: "responses",
    offline: false,
    label: "OpenAI Responses API",
    effort: { parameter: "reasoning.effort", note: "honoured by OpenAI's reasoning models" },
    defaultKeyEnv: "OPENAI_API_KEY",
  },
  anthropic: {
    wireFormat: "messages",
    offline: false,
    label: "Anthropic Messages API",
    effort: { parameter: "output_config.effort", note: "honoured by Claude models that support effort" },
    defaultKeyEnv: "ANTHROPIC_API_KEY",
  },
  scripted: {
    wireFormat: "chat",
    offline: true,
    label: "scripted model server (Chat Completions)",
    effort: { parameter: "reasoning_effort", note: "the scripted server reads it" },
    defaultKeyEnv: null,
  },
  "scripted-responses": {
    wireFormat: "responses",
    offline: true,
    label: "scripted model server (Responses API)",
    effort: { parameter: "reasoning.effort", note: "the scripted server reads it" },
    defaultKeyEnv: null,
  },
  "scripted-anthropic": {
    wireFormat: "messages",
    offline: true,
    label: "scripted model server (Messages API)",
    effort: { parameter: "output_config.effort", note: "the scripted server reads it" },
    defaultKeyEnv: null,
  },
};

/** The provider info of a stored provider string (an unknown one reads as `openai`, the column's default). */
export function providerInfo(provider: string | null | undefined): ProviderInfo {
  return PROVIDERS[(PROFILE_PROVIDERS as readonly string[]).includes(provider ?? "") ? (provider as ProfileProvider) : "openai"];
}

/** A profile name: 1–63 characters of a-z, 0-9, `.`, `_`, `-`, starting with a letter or digit. */
export const PROFILE_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;

/** An environment variable name (POSIX: letters, digits, `_`, not starting with a digit), at most 128 characters. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** How `profile.testConnection` ended, in words a person can act on. */
export type ConnectionTestResult =
  | {
      ok: true;
      model: string;
      baseUrl: string;
      latencyMs: number;
      /** False when the server answered the streamed test without streaming (launches read it the same way). */
      streamed?: boolean;
      /** What the person should know although it worked (a server that does not stream, a key withheld). */
      note?: string;
    }
  | { ok: false; kind: "unreachable" | "unauthorized" | "unknown_model" | "missing_key" | "error"; message: string; baseUrl: string };
