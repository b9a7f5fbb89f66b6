import { NonRetriableError, RetryAfterError } from "inngest";
import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_AFTER_MS, modelRetryBehaviour, stepErrorForModelCall } from "../../server/agent/model-retry.ts";
import { AppError, StepRetryError } from "../../server/errors.ts";
import { toInngestError, withInngestRetries } from "../../server/inngest/errors.ts";
import { ModelCallError } from "../../server/llm/errors.ts";
import { MODEL_ERROR_RETRYABLE, type ModelCallErrorKind } from "../../server/domain/model-error-kinds.ts";

// The one mapping from the agent layer's engine-neutral StepRetryError to Inngest's errors
// (server/inngest/errors.ts), and the model-call retry table it is fed by (server/agent/model-retry.ts).

describe("toInngestError", () => {
  it.each([
    ["permanent", new StepRetryError("m", { permanent: true }), NonRetriableError, null],
    ["permanent wins over a wait", new StepRetryError("m", { permanent: true, retryAfterMs: 5_000 }), NonRetriableError, null],
    ["a wait of 3 s", new StepRetryError("m", { retryAfterMs: 3_000 }), RetryAfterError, "3"],
    ["the executor's backoff", new StepRetryError("m"), Error, null],
  ] as const)("%s → %s", (_name, error, type, retryAfter) => {
    const mapped = toInngestError(error) as Error;
    expect(mapped).toBeInstanceOf(type);
    if (type === Error) {
      expect(mapped).not.toBeInstanceOf(NonRetriableError);
      expect(mapped).not.toBeInstanceOf(RetryAfterError);
      expect(mapped).not.toBeInstanceOf(StepRetryError);
    }
    if (retryAfter !== null) expect((mapped as RetryAfterError).retryAfter).toBe(retryAfter);
    expect(mapped.message).toBe("m");
    expect(mapped.cause).toBeUndefined();
  });

  it("passes any other error through as it is", () => {
    const other = new AppError("NOT_FOUND", "task t not found");
    expect(toInngestError(other)).toBe(other);
    expect(toInngestError("text")).toBe("text");
  });

  it("withInngestRetries maps what the body throws and returns what it returns", async () => {
    await expect(withInngestRetries(async () => 7)()).resolves.toBe(7);
    await expect(
      withInngestRetries(() => {
        throw new StepRetryError("x", { permanent: true });
      })(),
    ).rejects.toBeInstanceOf(NonRetriableError);
    await expect(withInngestRetries(() => Promise.reject(new StepRetryError("x", { retryAfterMs: 2_000 })))()).rejects.toBeInstanceOf(RetryAfterError);
  });
});

describe("stepErrorForModelCall: every model-call kind", () => {
  const kinds = Object.keys(MODEL_ERROR_RETRYABLE) as ModelCallErrorKind[];

  it.each(kinds)("%s follows modelRetryBehaviour and ModelCallError.retryable", (kind) => {
    const error = new ModelCallError({ kind, message: "m" });
    const step = stepErrorForModelCall(error);
    expect(step.message).toBe(`[${kind}] m`);
    expect(step.cause).toBe(error);
    expect(step.permanent).toBe(modelRetryBehaviour(kind) === "non_retriable");
    // The one retry table agrees with the error's own flag (llm/errors.ts).
    expect(step.permanent).toBe(!error.retryable);
    expect(step.retryAfterMs).toBe(modelRetryBehaviour(kind) === "retry_after" ? DEFAULT_RETRY_AFTER_MS : null);
  });

  it.each([
    ["rate_limited", "retry_after"],
    ["server", "retry"],
    ["timeout", "retry"],
    ["stream_cut", "retry"],
    ["network", "retry"],
    ["bad_request", "non_retriable"],
    ["context_length", "non_retriable"],
    ["auth", "non_retriable"],
    ["aborted", "non_retriable"],
  ] as const)("%s → %s", (kind, behaviour) => {
    expect(modelRetryBehaviour(kind)).toBe(behaviour);
  });

  it("a 429 waits the provider's retry-after", () => {
    expect(stepErrorForModelCall(new ModelCallError({ kind: "rate_limited", message: "m", retryAfterMs: 4_000 })).retryAfterMs).toBe(4_000);
  });
});
