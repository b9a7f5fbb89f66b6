/**
 * The kinds of model-call failure and which of them are transient. They are the loop's vocabulary as
 * much as the provider's: the provider adapters (server/llm) raise a ModelCallError of one kind, the
 * agent's steps decide from the kind whether to retry (server/agent/model-retry.ts), and the loop
 * decides how a run that ran out of retries ends (agent-loop/reasons.ts). The table lives here, in
 * the domain, so the domain reads it without importing the adapters. Pure: no imports.
 */

/**
 * Kinds of model-call failure, each with a fixed retry policy:
 * - `rate_limited` 429 (retryable; `retryAfterMs` when the provider said how long)
 * - `overloaded`   the provider is over capacity: Anthropic's 529 `overloaded_error` (retryable; its
 *                  retry-after when sent, else the executor's backoff)
 * - `server`       5xx, or an error event inside the stream (retryable)
 * - `timeout`      no response headers within `timeoutMs`, or no chunk within `chunkTimeoutMs` (retryable)
 * - `stream_cut`   the response ended or broke before a `finish_reason` (retryable)
 * - `network`      connection refused/reset before any response (retryable)
 * - `context_length` the prompt does not fit the model's context window (OpenAI: HTTP 400 with code
 *                  `context_length_exceeded`): not retryable as is; the agent loop compacts and tries once more
 * - `unknown_model` 404 on the model (OpenAI's `model_not_found`, Anthropic's `not_found_error`
 *                  naming the model): the profile names a model the provider does not serve (not retryable)
 * - `bad_request`  other 4xx: bad parameters (not retryable)
 * - `auth`         401/403 (not retryable)
 * - `aborted`      the caller's own AbortSignal fired (not retryable: the caller asked to stop)
 */
export type ModelCallErrorKind =
  "rate_limited" | "overloaded" | "server" | "timeout" | "stream_cut" | "network" | "bad_request" | "unknown_model" | "context_length" | "auth" | "aborted";

/**
 * Which kinds are transient (the provider or the network was down): the one table. The agent's
 * steps retry them (agent/model-retry.ts), and a run that ran out of retries on one ends
 * `transient`, which a profile may auto-resume (domain/agent-loop endReasonOfModelError).
 */
export const MODEL_ERROR_RETRYABLE: Readonly<Record<ModelCallErrorKind, boolean>> = {
  rate_limited: true,
  overloaded: true,
  server: true,
  timeout: true,
  stream_cut: true,
  network: true,
  bad_request: false,
  unknown_model: false,
  context_length: false,
  auth: false,
  aborted: false,
};
