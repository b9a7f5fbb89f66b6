/**
 * Output schemas of the tRPC procedures docs/CONTRACTS.md documents (the executor's view, the
 * working-set history, escalation decisions), so each documented result shape is checked on every
 * call, not hand-kept. Strict objects: a field the code returns and the contract does not name fails
 * the call (INTERNAL_SERVER_ERROR, "Output validation failed") in the tests that call these procedures,
 * instead of being stripped silently. Each schema is typed against the domain's own type, so the two
 * cannot drift at compile time either.
 */
import { z } from "zod";
import { ESCALATION_DECISIONS } from "../../lib/contracts/escalation.ts";
import type { WorkingSetChange, WorkingSetRun } from "../db/working-set-queries.ts";
import { EXECUTOR_STATES, type ExecutorView } from "../domain/executor-view.ts";
import type { LaunchEstimate } from "../domain/launch-estimate.ts";

/** `task.executorView` (docs/CONTRACTS.md "The executor's view of a run"). */
export const executorViewOutput: z.ZodType<ExecutorView> = z.discriminatedUnion("available", [
  z.strictObject({ available: z.literal(false), reason: z.string() }),
  z.strictObject({
    available: z.literal(true),
    state: z.enum(EXECUTOR_STATES),
    label: z.string(),
    executorRunId: z.string(),
    executorStatus: z.string(),
    segments: z.number().int(),
    step: z.string().nullable(),
    attempt: z.number().int().nullable(),
    maxAttempts: z.number().int(),
    at: z.string().nullable(),
    event: z.string().nullable(),
    lastError: z.string().nullable(),
    checkedAt: z.string(),
  }),
]);

/** One working-set change (docs/CONTRACTS.md "Working-set history"): `before` absent when added, `after` when removed. */
const workingSetChange: z.ZodType<WorkingSetChange> = z.strictObject({
  stepId: z.string().nullable(),
  runId: z.string(),
  stepIndex: z.number().int().min(-1),
  key: z.string(),
  kind: z.enum(["added", "changed", "removed"]),
  before: z.unknown().optional(),
  after: z.unknown().optional(),
  at: z.date(),
  cause: z.enum(["input", "record_fact", "human_edit", "run_start"]),
  checkpointId: z.string().nullable(),
});

const workingSetRun: z.ZodType<WorkingSetRun> = z.strictObject({
  id: z.string(),
  ordinal: z.number().int().positive(),
  cause: z.string(),
  status: z.string(),
  fromCheckpointId: z.string().nullable(),
  fromCheckpointSeq: z.number().int().nullable(),
  startedAt: z.date(),
});

/** `workingSet.history`. */
export const workingSetHistoryOutput = z.strictObject({
  changes: z.array(workingSetChange),
  nextCursor: z.strictObject({ runId: z.string(), stepIndex: z.number().int(), key: z.string() }).nullable(),
  total: z.number().int().nonnegative(),
  runs: z.array(workingSetRun),
});

/** `workingSet.current`. */
export const workingSetCurrentOutput = z.strictObject({
  facts: z.array(z.strictObject({ key: z.string(), value: z.unknown(), change: workingSetChange })),
  total: z.number().int().nonnegative(),
  nextCursor: z.string().nullable(),
});

/** `workingSet.step`. */
export const workingSetStepOutput = z.array(workingSetChange);

/** `workingSet.summary`. */
export const workingSetSummaryOutput = z.strictObject({
  steps: z.array(
    z.strictObject({
      runId: z.string(),
      stepId: z.string().nullable(),
      added: z.number().int().nonnegative(),
      changed: z.number().int().nonnegative(),
      removed: z.number().int().nonnegative(),
    }),
  ),
  currentSize: z.number().int().nonnegative(),
  totalChanges: z.number().int().nonnegative(),
});

/** `escalation.decide` (docs/CONTRACTS.md "Escalations"): `applyAt` ISO, null when applied in the request. */
export const decideOutput = z.strictObject({
  escalationId: z.string(),
  decision: z.enum(ESCALATION_DECISIONS),
  applyAt: z.string().nullable(),
  undoSeconds: z.number().int().nonnegative(),
});

/** `escalation.undo`. */
export const undoOutput = z.strictObject({
  escalationId: z.string(),
  undone: z.string(),
  decidedBy: z.string().nullable(),
  undoneBy: z.string(),
  at: z.date(),
});

/** `escalation.applyNow`: `alreadyDue` when the decision was due or applied before this call. */
export const applyNowOutput = z.strictObject({
  escalationId: z.string(),
  decision: z.enum(ESCALATION_DECISIONS),
  alreadyDue: z.boolean(),
});

/** `escalation.claim`. */
export const claimOutput = z.strictObject({ escalationId: z.string(), claimedBy: z.string(), claimedAt: z.date() });

/** `escalation.release`. */
export const releaseOutput = z.strictObject({ escalationId: z.string(), claimedBy: z.null() });

/** `task.estimateLaunch`: what similar completed tasks cost (server/domain/launch-estimate.ts). */
export const launchEstimateOutput: z.ZodType<LaunchEstimate & { profile: string }> = z.strictObject({
  profile: z.string(),
  basis: z.enum(["history", "none"]),
  method: z.enum(["goal", "per-unit"]),
  samples: z.number().int().nonnegative(),
  costP50Usd: z.number().finite().nullable(),
  costP90Usd: z.number().finite().nullable(),
  stepsP50: z.number().finite().nullable(),
  stepsP90: z.number().finite().nullable(),
  limits: z.strictObject({ min: z.number().int(), max: z.number().int() }).nullable(),
  note: z.string(),
});
