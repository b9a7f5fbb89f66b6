/**
 * Status names of tasks and runs (docs/ARCHITECTURE.md "States"), shared by the UI, the CLI and the
 * server. Client-safe: no imports.
 */

export const TASK_STATUSES = ["queued", "running", "waiting_for_human", "completed", "dead_end", "failed", "cancelled"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** Task statuses after which a task never runs again on its own (a human may still resume or fork it). */
export const TERMINAL_TASK_STATUSES = ["completed", "dead_end", "failed", "cancelled"] as const satisfies readonly TaskStatus[];

/** Task statuses at which a task does nothing more until a human acts: the terminal ones, and waiting for a human (what the CLI's `--wait` and chaos wait for). */
export const SETTLED_TASK_STATUSES = [...TERMINAL_TASK_STATUSES, "waiting_for_human"] as const satisfies readonly TaskStatus[];

export const RUN_STATUSES = ["running", "completed", "dead_end", "escalated", "failed", "cancelled"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Run.endReason when a run did not complete. */
export const RUN_END_REASONS = ["budget_exhausted", "loop", "stall", "transient", "saturation", "drift", "error", "cancelled_by_user"] as const;
export type RunEndReason = (typeof RUN_END_REASONS)[number];
