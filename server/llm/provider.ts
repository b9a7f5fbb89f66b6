import { providerInfo, type ProviderInfo } from "../../lib/contracts/profile.ts";
import { env as parsedEnv, namedVariables, type Env } from "../env.ts";
import { createChatCompletion } from "./adapters/chat.ts";
import { createMessage } from "./adapters/messages.ts";
import { createResponse } from "./adapters/responses.ts";
import type { ModelRequest, ModelResult } from "./types.ts";

export { DEFAULT_CHUNK_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, isLocalBaseUrl, LOCAL_RECONNECT_MS } from "./adapters/call-guard.ts";
export { createChatCompletion } from "./adapters/chat.ts";

/** The request of one model call (types.ts ModelRequest); the Chat Completions name is kept for its callers. */
export type ChatCompletionRequest = ModelRequest;
/** The result of one model call (types.ts ModelResult). */
export type ChatCompletionResult = ModelResult;

/**
 * The one port to the model providers: sends `request` through the adapter of its wire format —
 * `chat` (OpenAI Chat Completions, adapters/chat.ts), `responses` (OpenAI Responses API,
 * adapters/responses.ts) or `messages` (Anthropic Messages API, adapters/messages.ts) — each through
 * its official SDK, with the same timeouts, cancellation, error kinds (errors.ts ModelCallError)
 * and result shape (types.ts ModelResult). Nothing is retried inside.
 */
export function callModel(request: ModelRequest): Promise<ModelResult> {
  switch (request.wireFormat ?? "chat") {
    case "responses":
      return createResponse(request);
    case "messages":
      return createMessage(request);
    default:
      return createChatCompletion(request);
  }
}

/** Where a profile's model calls go (the profile's columns; prisma/schema/longhaul.prisma AgentProfile). */
export interface ProfileEndpoint {
  /** A provider kind (lib/contracts/profile.ts PROFILE_PROVIDERS): picks the wire format, and `scripted*` the local scripted model server. */
  provider?: string | null;
  baseUrl?: string | null;
  /** Name of the environment variable holding the API key; null = the provider's own key, only to the provider's own endpoint (see resolveProvider). */
  apiKeyEnv?: string | null;
  /** Extra headers; `${NAME}` in a value is replaced by environment variable NAME. */
  headers?: Record<string, string> | null;
}

export interface ResolvedProvider {
  /** Base URL, no trailing slash: OpenAI-style with `/v1` for the OpenAI wires, without `/v1` for Anthropic's (its SDK adds it). */
  baseUrl: string;
  apiKey: string | null;
  /** Extra headers with `${NAME}` references filled in from the environment (empty when none). */
  headers: Record<string, string>;
  /** Where the choice came from, for logs: the scripted server, the profile, OPENAI_BASE_URL / ANTHROPIC_BASE_URL, the provider's own API, or the default. */
  source: "scripted" | "profile" | "env_base_url" | "openai" | "anthropic" | "default_local";
  /** The adapter the calls go through. */
  wireFormat: ProviderInfo["wireFormat"];
  /** Set when the profile names a key variable that is not set (the call would be refused with a 401), or the provider's own key is needed and unset. */
  missingKeyEnv?: string;
  /** Set when Longhaul's own key was not sent because the base URL is not the one Longhaul's configuration points it at (the key rule). */
  keyWithheld?: string;
}

/** What {@link resolveProvider} reads of Longhaul's own configuration (server/env.ts, parsed once). */
export type ProviderConfig = Pick<Env, "MODEL_PORT" | "OPENAI_API_KEY" | "OPENAI_BASE_URL"> & Partial<Pick<Env, "ANTHROPIC_API_KEY" | "ANTHROPIC_BASE_URL">>;

/** OpenAI's API, where OPENAI_API_KEY goes when OPENAI_BASE_URL is not set. */
export const OPENAI_API_BASE_URL = "https://api.openai.com/v1";
/** Anthropic's API, where ANTHROPIC_API_KEY goes when ANTHROPIC_BASE_URL is not set. */
export const ANTHROPIC_API_BASE_URL = "https://api.anthropic.com";

/** A base URL for comparison: scheme and host lower-cased, default port and trailing slashes dropped; null when it does not parse. */
function sameEndpointForm(url: string): string | null {
  try {
    const u = new URL(url.trim());
    const port = u.port && !((u.protocol === "https:" && u.port === "443") || (u.protocol === "http:" && u.port === "80")) ? `:${u.port}` : "";
    return `${u.protocol}//${u.hostname.toLowerCase()}${port}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    return null;
  }
}

/** Anthropic's SDK adds `/v1/messages` itself: a base URL given with `/v1` loses it. */
const anthropicBase = (url: string) => url.replace(/\/v1$/, "");

/**
 * Picks the endpoint and key of a profile's model calls.
 *
 * Where: a `scripted*` profile always gets the local scripted model server
 * (`http://127.0.0.1:${MODEL_PORT}`, `/v1` for the OpenAI wires), with no key, whatever OPENAI_* or
 * ANTHROPIC_* say. Otherwise, in order: the profile's base URL; the provider's base URL variable
 * (OPENAI_BASE_URL — any compatible server: Ollama, vLLM, llama.cpp, LM Studio — or
 * ANTHROPIC_BASE_URL); the provider's own API when its key is set (OpenAI: api.openai.com/v1;
 * Anthropic: api.anthropic.com, also without a key, which then is missing); otherwise (OpenAI wires)
 * the local model server.
 *
 * The key rule: the variable the profile names in `apiKeyEnv` goes wherever the profile points.
 * Without `apiKeyEnv`, Longhaul's own key (OPENAI_API_KEY, or ANTHROPIC_API_KEY for `anthropic`)
 * goes only where Longhaul's own configuration points it — the provider's API, or the base URL the
 * operator set in OPENAI_BASE_URL / ANTHROPIC_BASE_URL — and a profile with any other base URL sends
 * no key (`keyWithheld` names the variable): otherwise whoever may apply a profiles file could point
 * a base URL at a server of theirs and collect the organisation's key.
 *
 * Header values get `${NAME}` replaced by the variable's value ('' when unset). `config` defaults to
 * env(), `variables` (the ones a profile names) to namedVariables(); tests pass their own. Pure
 * given those.
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
  const info = providerInfo(endpoint?.provider);
  const wireFormat = info.wireFormat;
  const anthropic = wireFormat === "messages";
  const local = `http://127.0.0.1:${config.MODEL_PORT}${anthropic ? "" : "/v1"}`;
  const headers = Object.fromEntries(
    Object.entries(endpoint?.headers ?? {}).map(([k, v]) => [k, v.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => variables[name] ?? "")]),
  );
  if (info.offline) return { baseUrl: local, apiKey: null, headers, source: "scripted", wireFormat };
  const form = (url: string) => (anthropic ? anthropicBase(trim(url)) : trim(url));
  const ownKeyEnv = anthropic ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
  const ownKey = (anthropic ? config.ANTHROPIC_API_KEY : config.OPENAI_API_KEY)?.trim() || null;
  const ownBase = (anthropic ? config.ANTHROPIC_BASE_URL : config.OPENAI_BASE_URL)?.trim() || null;
  const officialBase = anthropic ? ANTHROPIC_API_BASE_URL : OPENAI_API_BASE_URL;

  const profileBase = (endpoint?.baseUrl ?? profileBaseUrl)?.trim() || null;
  let baseUrl: string;
  let source: ResolvedProvider["source"];
  if (profileBase) [baseUrl, source] = [form(profileBase), "profile"];
  else if (ownBase) [baseUrl, source] = [form(ownBase), "env_base_url"];
  else if (ownKey || anthropic) [baseUrl, source] = [officialBase, anthropic ? "anthropic" : "openai"];
  else return { baseUrl: local, apiKey: null, headers, source: "default_local", wireFormat };

  const keyEnv = endpoint?.apiKeyEnv?.trim() || null;
  if (keyEnv) {
    const apiKey = variables[keyEnv]?.trim() || null;
    return { baseUrl, apiKey, headers, source, wireFormat, ...(apiKey ? {} : { missingKeyEnv: keyEnv }) };
  }
  // Longhaul's own key, only to where Longhaul's own configuration points it.
  const target = sameEndpointForm(baseUrl);
  const sanctioned = [officialBase, ownBase ? form(ownBase) : null].some((u) => u !== null && target !== null && sameEndpointForm(u) === target);
  if (!sanctioned) return { baseUrl, apiKey: null, headers, source, wireFormat, ...(ownKey ? { keyWithheld: ownKeyEnv } : {}) };
  return { baseUrl, apiKey: ownKey, headers, source, wireFormat, ...(ownKey ? {} : anthropic ? { missingKeyEnv: ownKeyEnv } : {}) };
}
