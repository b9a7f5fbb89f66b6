import { StepRetryError } from "../errors.ts";
import type { ModelCallError } from "../llm/errors.ts";
import { MODEL_ERROR_RETRYABLE, type ModelCallErrorKind } from "../domain/model-error-kinds.ts";

/** How a step retries a failed model call of a given kind (one table, so every kind is retried the same way wherever it is met). */
export type ModelRetryBehaviour = "retry_after" | "retry" | "non_retriable";

/**
 * The retry behaviour of a ModelCallError kind, from the one transient table (llm/errors.ts
 * MODEL_ERROR_RETRYABLE, which has the reasons): a 429 waits as long as the provider asked, the
 * other transient kinds retry with the executor's backoff, the rest (bad request, context too long,
 * auth, aborted) are not retried.
 */
export function modelRetryBehaviour(kind: ModelCallErrorKind): ModelRetryBehaviour {
  if (!MODEL_ERROR_RETRYABLE[kind]) return "non_retriable";
  return kind === "rate_limited" ? "retry_after" : "retry";
}

/** Wait before retrying a 429 that named no `retry-after` (ms). */
export const DEFAULT_RETRY_AFTER_MS = 1_000;

/**
 * The engine-neutral error a step throws for a failed model call, by its typed kind (no parsing of
 * messages): a wait of `retryAfterMs` (or DEFAULT_RETRY_AFTER_MS) for a 429, the executor's backoff
 * (`retryAfterMs: null`) for the other transient kinds, `permanent` for the rest. A connection
 * error to a local provider carries `retryAfterMs` (llm/provider.ts LOCAL_RECONNECT_MS): it waits
 * that × (`attempt` + 1) instead of the executor's backoff (Inngest's default waits up to ~30 s with
 * jitter), so a model server that restarts in seconds does not stall the step; an overloaded provider
 * (Anthropic's 529) that sent a retry-after is waited for that long. The message is
 * `[kind] message`, as shown on the timeline.
 */
export function stepErrorForModelCall(error: ModelCallError, attempt = 0): StepRetryError {
  const message = `[${error.kind}] ${error.message}`;
  switch (modelRetryBehaviour(error.kind)) {
    case "retry_after":
      return new StepRetryError(message, { retryAfterMs: error.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS, cause: error });
    case "retry":
      return new StepRetryError(message, {
        // A local server's reconnect grows with the attempt; an overloaded provider's own retry-after is kept as sent.
        retryAfterMs:
          error.retryAfterMs === null
            ? null
            : error.kind === "network"
              ? error.retryAfterMs * (attempt + 1)
              : error.kind === "overloaded"
                ? error.retryAfterMs
                : null,
        cause: error,
      });
    case "non_retriable":
      return new StepRetryError(message, { permanent: true, cause: error });
  }
}

/**
 * True when a step should give up on this failed model call now and return the failure as its
 * result (the loop then decides): the kind is not retried, or `attempt` (0-based) is the step's last.
 */
export function isFinalModelFailure(error: ModelCallError, attempt: number, retries: number): boolean {
  return modelRetryBehaviour(error.kind) === "non_retriable" || attempt >= retries;
}
