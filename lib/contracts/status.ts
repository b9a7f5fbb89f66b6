/**
 * Status names of tasks, runs, steps and the rows they write (docs/ARCHITECTURE.md "States"),
 * shared by the UI, the CLI and the server. Client-safe: no imports. Each array is also a CHECK
 * constraint on its column (migration status_checks; tests/integration/status-checks.test.ts keeps
 * the two equal), so a value added here needs a migration that widens the constraint.
 */

export const TASK_STATUSES = ["queued", "running", "waiting_for_human", "completed", "dead_end", "failed", "cancelled"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** Task statuses after which a task never runs again on its own (a human may still resume or fork it). */
export const TERMINAL_TASK_STATUSES = ["completed", "dead_end", "failed", "cancelled"] as const satisfies readonly TaskStatus[];

/** Task statuses at which a task does nothing more until a human acts: the terminal ones, and waiting for a human (what the CLI's `--wait` and chaos wait for). */
export const SETTLED_TASK_STATUSES = [...TERMINAL_TASK_STATUSES, "waiting_for_human"] as const satisfies readonly TaskStatus[];

/**
 * Task.outcome of a completed task: `completed`, or `completed_with_gaps` (it met its goal only in
 * part; `result.gaps` says what was not done). Null until the task completes.
 */
export const TASK_COMPLETION_OUTCOMES = ["completed", "completed_with_gaps"] as const;
export type TaskCompletionOutcome = (typeof TASK_COMPLETION_OUTCOMES)[number];

/** Run.cause: why the run started — a launch, a person's resume, an automatic resume after a transient failure, a fork. */
export const RUN_CAUSES = ["initial", "resume", "auto_resume", "fork"] as const;
export type RunCause = (typeof RUN_CAUSES)[number];

export const RUN_STATUSES = ["running", "completed", "dead_end", "escalated", "failed", "cancelled"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * Run.endReason when a run did not complete: a failure's class, or the detector whose escalation
 * ended it (`loop`, `stall`, `tool_failure`); null when it completed or a person was asked.
 */
export const RUN_END_REASONS = ["budget_exhausted", "loop", "stall", "tool_failure", "transient", "saturation", "drift", "error", "cancelled_by_user"] as const;
export type RunEndReason = (typeof RUN_END_REASONS)[number];

/** Step.kind: a model call, a tool call, a checkpoint being written, a human's decision on an escalation. */
export const STEP_KINDS = ["model", "tool", "checkpoint", "human"] as const;
export type StepKind = (typeof STEP_KINDS)[number];

/** Step.status. */
export const STEP_STATUSES = ["running", "completed", "failed"] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

/** ModelCall.status of one HTTP attempt: the provider answered (`ok`) or it did not (`error`). */
export const MODEL_CALL_STATUSES = ["ok", "error"] as const;
export type ModelCallStatus = (typeof MODEL_CALL_STATUSES)[number];

/** SideEffect.status in the idempotency ledger: `intent` written before the call, `committed` with its result. */
export const SIDE_EFFECT_STATUSES = ["intent", "committed"] as const;
export type SideEffectStatus = (typeof SIDE_EFFECT_STATUSES)[number];
