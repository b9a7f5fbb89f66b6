import { NonRetriableError, RetryAfterError } from "inngest";
import type { ModelCallError, ModelCallErrorKind } from "../llm/errors.ts";

/** How Inngest treats a failed model call of a given kind (STYLE.md "Errors": one table). */
export type InngestRetryBehaviour = "retry_after" | "retry" | "non_retriable";

/**
 * The retry behaviour per ModelCallError kind (llm/errors.ts has the reasons): a 429 waits as long
 * as the provider asked (RetryAfterError), the other transient kinds retry with the executor's
 * backoff, the rest (bad request, context too long, auth, aborted) are not retried.
 */
export const MODEL_ERROR_RETRY: Readonly<Record<ModelCallErrorKind, InngestRetryBehaviour>> = {
  rate_limited: "retry_after",
  server: "retry",
  timeout: "retry",
  stream_cut: "retry",
  network: "retry",
  bad_request: "non_retriable",
  context_length: "non_retriable",
  auth: "non_retriable",
  aborted: "non_retriable",
};

/** Wait before retrying a 429 that named no `retry-after` (ms). */
export const DEFAULT_RETRY_AFTER_MS = 1_000;

/**
 * The error a step throws for a failed model call, by its typed kind (no parsing of messages):
 * RetryAfterError (`retryAfterMs`, or DEFAULT_RETRY_AFTER_MS), a plain Error (retried with backoff),
 * or NonRetriableError. A connection error to a local provider carries `retryAfterMs`
 * (llm/provider.ts LOCAL_RECONNECT_MS): it is retried after that × (`attempt` + 1) instead of the
 * executor's backoff (Inngest's default waits up to ~30 s with jitter), so a model server that
 * restarts in seconds does not stall the step. The message is `[kind] message`, as shown on the timeline.
 */
export function inngestErrorForModelCall(error: ModelCallError, attempt = 0): Error {
  const message = `[${error.kind}] ${error.message}`;
  switch (MODEL_ERROR_RETRY[error.kind]) {
    case "retry_after":
      return new RetryAfterError(message, error.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS);
    case "retry":
      return error.kind === "network" && error.retryAfterMs !== null ? new RetryAfterError(message, error.retryAfterMs * (attempt + 1)) : new Error(message);
    case "non_retriable":
      return new NonRetriableError(message);
  }
}

/**
 * True when a step should give up on this failed model call now and return the failure as its
 * result (the loop then decides): the kind is not retried, or `attempt` (0-based) is the step's last.
 */
export function isFinalModelFailure(error: ModelCallError, attempt: number, retries: number): boolean {
  return MODEL_ERROR_RETRY[error.kind] === "non_retriable" || attempt >= retries;
}
