import { NonRetriableError, RetryAfterError } from "inngest";
import { StepRetryError } from "../errors.ts";
import { stepErrorForModelCall } from "../agent/model-retry.ts";
import type { ModelCallError } from "../llm/errors.ts";

/**
 * Maps an error a step body threw to the error Inngest understands (the agent layer knows no
 * engine, docs/ARCHITECTURE.md "Layers"). The one table:
 *
 * | thrown                                   | Inngest gets                          |
 * | ---------------------------------------- | ------------------------------------- |
 * | StepRetryError `permanent`               | NonRetriableError (same message)      |
 * | StepRetryError with `retryAfterMs`       | RetryAfterError(message, retryAfterMs) |
 * | StepRetryError without `retryAfterMs`    | Error (retried with the backoff)      |
 * | anything else                            | itself (Inngest retries it)           |
 *
 * No `cause` is attached: Inngest serializes the error it gets onto the step, and it stays what it
 * was before the agent layer stopped throwing Inngest's errors (a message, no nested error).
 */
export function toInngestError(error: unknown): unknown {
  if (!(error instanceof StepRetryError)) return error;
  if (error.permanent) return new NonRetriableError(error.message);
  if (error.retryAfterMs !== null) return new RetryAfterError(error.message, error.retryAfterMs);
  return new Error(error.message);
}

/**
 * Wraps a step body so what it throws reaches Inngest as Inngest's error (`toInngestError`):
 * `step.run(id, withInngestRetries(() => runModelStep(...)))`. The result passes through unchanged.
 */
export function withInngestRetries<T>(body: () => Promise<T>): () => Promise<T> {
  return async () => {
    try {
      return await body();
    } catch (error) {
      throw toInngestError(error);
    }
  };
}

/**
 * The Inngest error for a failed model call (`stepErrorForModelCall` mapped by `toInngestError`):
 * RetryAfterError for a 429 or a local reconnect, a plain Error for the other transient kinds,
 * NonRetriableError for the rest.
 */
export function inngestErrorForModelCall(error: ModelCallError, attempt = 0): Error {
  return toInngestError(stepErrorForModelCall(error, attempt)) as Error;
}
