import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import type { ConnectionTestResult } from "../../lib/contracts/profile.ts";
import { resolveProvider, type ProfileEndpoint, type ProviderConfig } from "./provider.ts";

/** The innermost code or message of an error's cause chain (fetch failed → ECONNREFUSED). */
function rootCause(error: unknown): string {
  let found = error instanceof Error ? error.message : String(error);
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 6; e = e.cause, depth++) {
    const code = (e as Error & { code?: unknown }).code;
    found = typeof code === "string" ? code : e.message || found;
  }
  return found;
}

/** How long the test waits for the provider's answer, ms. */
export const CONNECTION_TEST_TIMEOUT_MS = 15_000;

/**
 * "Test connection" of a profile (issue 16): one tiny Chat Completions request (`max_tokens: 1`, one
 * short user message) through the `openai` SDK v6 to the profile's endpoint (server/llm/provider.ts
 * resolveProvider: its base URL, model, the key from the variable it names). Never throws: the result
 * says in words what is wrong — `unreachable` (nothing answers: refused, DNS, timeout), `unauthorized`
 * (401/403: the key is missing or wrong), `unknown_model` (404, or the provider's model_not_found),
 * `missing_key` (the named variable is not set), else `error` with the provider's status and message.
 */
export async function testProfileConnection({
  endpoint,
  model,
  config,
  variables,
  timeoutMs = CONNECTION_TEST_TIMEOUT_MS,
}: {
  endpoint: ProfileEndpoint;
  model: string;
  /** Longhaul's configuration and the variables a profile names: default env() / namedVariables() (resolveProvider). */
  config?: ProviderConfig;
  variables?: Readonly<Record<string, string | undefined>>;
  timeoutMs?: number;
}): Promise<ConnectionTestResult> {
  const p = resolveProvider({ endpoint, config, variables });
  if (p.missingKeyEnv) {
    return { ok: false, kind: "missing_key", baseUrl: p.baseUrl, message: `the API key variable ${p.missingKeyEnv} is not set in Longhaul's environment` };
  }
  const client = new OpenAI({ baseURL: p.baseUrl, apiKey: p.apiKey || "not-needed", maxRetries: 0, timeout: timeoutMs, defaultHeaders: p.headers });
  const started = performance.now();
  try {
    await client.chat.completions.create({ model, messages: [{ role: "user", content: "ping" }], max_tokens: 1, stream: false });
    return { ok: true, model, baseUrl: p.baseUrl, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    if (error instanceof APIConnectionTimeoutError) {
      return { ok: false, kind: "unreachable", baseUrl: p.baseUrl, message: `no answer from ${p.baseUrl} within ${timeoutMs} ms` };
    }
    if (error instanceof APIConnectionError) {
      const cause = rootCause(error);
      return {
        ok: false,
        kind: "unreachable",
        baseUrl: p.baseUrl,
        message: `cannot reach ${p.baseUrl} (${cause}): is the server running and the base URL right?`,
      };
    }
    if (error instanceof APIError) {
      const detail = error.message.replace(/^\d{3}\s*/, "").slice(0, 300);
      if (error.status === 401 || error.status === 403) {
        return {
          ok: false,
          kind: "unauthorized",
          baseUrl: p.baseUrl,
          message: `${error.status}: the provider refused the API key${endpoint.apiKeyEnv ? ` from ${endpoint.apiKeyEnv}` : " (OPENAI_API_KEY)"}: ${detail}`,
        };
      }
      if (error.status === 404 || error.code === "model_not_found" || /model.*(not found|does not exist|unknown)/i.test(detail)) {
        return {
          ok: false,
          kind: "unknown_model",
          baseUrl: p.baseUrl,
          message: `the provider does not know the model "${model}" (${error.status ?? "error"}): ${detail}`,
        };
      }
      return { ok: false, kind: "error", baseUrl: p.baseUrl, message: `the provider answered ${error.status ?? "an error"}: ${detail}` };
    }
    return { ok: false, kind: "error", baseUrl: p.baseUrl, message: error instanceof Error ? error.message : String(error) };
  }
}
