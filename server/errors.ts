/**
 * One application error with a closed set of codes, so every layer fails the same way, mapped in one table to
 * tRPC codes, HTTP statuses and Inngest behaviour.
 */
export const appErrorCodes = {
  BAD_INPUT: { trpc: "BAD_REQUEST", http: 400, retryable: false },
  /** Not signed in, or the API token is invalid / expired / revoked. */
  UNAUTHENTICATED: { trpc: "UNAUTHORIZED", http: 401, retryable: false },
  /** Signed in without the role the action needs (the message names it). */
  FORBIDDEN: { trpc: "FORBIDDEN", http: 403, retryable: false },
  NOT_FOUND: { trpc: "NOT_FOUND", http: 404, retryable: false },
  CONFLICT: { trpc: "CONFLICT", http: 409, retryable: false },
  /**
   * Well-formed input that a policy refuses (the egress policy at launch): not bad usage, so the CLI
   * exits 1 with these words rather than 2 with a help hint. HTTP 422 (RFC 9110 §15.5.21: the
   * request is understood and its syntax right, but it cannot be processed); the message names the rule.
   */
  REFUSED: { trpc: "UNPROCESSABLE_CONTENT", http: 422, retryable: false },
  PRECONDITION_FAILED: { trpc: "PRECONDITION_FAILED", http: 412, retryable: false },
  /** Too many attempts in a window (the message says when to try again). */
  TOO_MANY_REQUESTS: { trpc: "TOO_MANY_REQUESTS", http: 429, retryable: true },
  UNAVAILABLE: { trpc: "INTERNAL_SERVER_ERROR", http: 503, retryable: true },
  INTERNAL: { trpc: "INTERNAL_SERVER_ERROR", http: 500, retryable: true },
} as const;

export type AppErrorCode = keyof typeof appErrorCodes;

export class AppError extends Error {
  readonly code: AppErrorCode;
  readonly retryable: boolean;
  constructor(code: AppErrorCode, message: string, options?: { cause?: unknown; retryable?: boolean }) {
    super(message, { cause: options?.cause });
    this.name = "AppError";
    this.code = code;
    this.retryable = options?.retryable ?? appErrorCodes[code].retryable;
  }
}

/** Throws NOT_FOUND naming the entity and id when `value` is null/undefined. */
export function orThrowNotFound<T>(value: T | null | undefined, entity: string, id: string): T {
  if (value === null || value === undefined) throw new AppError("NOT_FOUND", `${entity} ${id} not found`);
  return value;
}

/**
 * A durable step's body asks its executor to try the step again (or, `permanent`, never again),
 * without naming the executor: the agent layer throws it, the Inngest function layer maps it to
 * Inngest's errors (inngest/errors.ts `toInngestError`). `retryAfterMs` (ms, or null for the
 * executor's own backoff) is how long to wait first; it is ignored when `permanent`.
 */
export class StepRetryError extends Error {
  readonly retryAfterMs: number | null;
  readonly permanent: boolean;
  constructor(message: string, options: { retryAfterMs?: number | null; permanent?: boolean; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = "StepRetryError";
    this.retryAfterMs = options.retryAfterMs ?? null;
    this.permanent = options.permanent ?? false;
  }
}
