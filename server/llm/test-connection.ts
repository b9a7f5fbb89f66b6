import type { ConnectionTestResult } from "../../lib/contracts/profile.ts";
import { ModelCallError } from "./errors.ts";
import { callModel, resolveProvider, type ProfileEndpoint, type ProviderConfig } from "./provider.ts";
import type { ToolSchema } from "./types.ts";

/** The innermost code or message of an error's cause chain (fetch failed → ECONNREFUSED). */
function rootCause(error: unknown): string {
  let found = error instanceof Error ? error.message : String(error);
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 6; e = e.cause, depth++) {
    const code = (e as Error & { code?: unknown }).code;
    found = typeof code === "string" ? code : e.message || found;
  }
  return found;
}

/** How long the test waits for the provider's answer, ms (headers, then between chunks). */
export const CONNECTION_TEST_TIMEOUT_MS = 15_000;

/** The one tool the test offers, as a run offers its tools: the request has the shape of a launch's. */
const PROBE_TOOL: ToolSchema = {
  type: "function",
  function: {
    name: "finish",
    description: "Call when the task is done, with a one-line summary.",
    parameters: { type: "object", properties: { summary: { type: "string" } }, required: ["summary"] },
  },
};

/**
 * "Test connection" of a profile: exactly what a launch does, once — a streamed request with a tool,
 * through the profile's wire format (Chat Completions, Responses or Messages), endpoint and key
 * (provider.ts resolveProvider, callModel), with a short reply cap. Never throws: the result says in
 * words what is wrong — `unreachable` (nothing answers: refused, DNS, timeout), `unauthorized`
 * (401/403: the key is missing or wrong), `unknown_model` (the provider does not serve the model),
 * `missing_key` (the named variable is not set), else `error` with the provider's status and message
 * (a stream cut before its end: the server cannot stream as a launch needs). An ok result notes a
 * server that answered without streaming (launches read it the same way) and a key the key rule
 * withheld.
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
  const withheld = p.keyWithheld
    ? `${p.keyWithheld} was not sent: it goes only to the endpoint Longhaul's own configuration names; set apiKeyEnv to send a key to ${p.baseUrl}`
    : null;
  try {
    const res = await callModel({
      wireFormat: p.wireFormat,
      baseUrl: p.baseUrl,
      apiKey: p.apiKey,
      headers: p.headers,
      model,
      messages: [{ role: "user", content: "Connection test: reply with one word, or call finish." }],
      tools: [PROBE_TOOL],
      stream: true,
      maxTokens: 16,
      timeoutMs,
      chunkTimeoutMs: timeoutMs,
    });
    const notes = [res.streamFallback ? `${res.streamFallback}; launches read such answers the same way` : null, withheld].filter(
      (n): n is string => n !== null,
    );
    return {
      ok: true,
      model,
      baseUrl: p.baseUrl,
      latencyMs: res.latencyMs,
      streamed: res.streamed !== false,
      ...(notes.length ? { note: notes.join("; ") } : {}),
    };
  } catch (error) {
    if (!(error instanceof ModelCallError))
      return { ok: false, kind: "error", baseUrl: p.baseUrl, message: error instanceof Error ? error.message : String(error) };
    const detail = error.message.slice(0, 300);
    switch (error.kind) {
      case "network":
        return {
          ok: false,
          kind: "unreachable",
          baseUrl: p.baseUrl,
          message: `cannot reach ${p.baseUrl} (${rootCause(error)}): is the server running and the base URL right?`,
        };
      case "timeout":
        return { ok: false, kind: "unreachable", baseUrl: p.baseUrl, message: `no answer from ${p.baseUrl} within ${timeoutMs} ms (${detail})` };
      case "auth": {
        const keyName = endpoint.apiKeyEnv ?? (p.wireFormat === "messages" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY");
        return {
          ok: false,
          kind: "unauthorized",
          baseUrl: p.baseUrl,
          message: `${error.status ?? "401"}: the provider refused the request${p.apiKey ? ` with the key from ${keyName}` : " (no key was sent)"}: ${detail}${withheld ? `; ${withheld}` : ""}`,
        };
      }
      case "unknown_model":
        return {
          ok: false,
          kind: "unknown_model",
          baseUrl: p.baseUrl,
          message: `the provider does not know the model "${model}" (${error.status ?? "error"}): ${detail}`,
        };
      case "stream_cut":
        return {
          ok: false,
          kind: "error",
          baseUrl: p.baseUrl,
          message: `the streamed answer broke off (${detail}): a launch streams the same request and would be retried on this`,
        };
      default:
        return { ok: false, kind: "error", baseUrl: p.baseUrl, message: `the provider answered ${error.status ?? error.kind}: ${detail}` };
    }
  }
}
