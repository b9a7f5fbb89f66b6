import { AppError } from "../errors.ts";
import { resumeTask, type ResumePorts } from "./resume-task.ts";

/** A decision's budget raise as stored on the escalation (steps, tokens, US dollars). */
export interface BudgetIncrease {
  steps?: number;
  tokens?: number;
  usd?: number;
}

/** The escalation row as applying a decision reads it (inside the applying transaction). */
export interface EscalationToApply {
  id: string;
  taskId: string;
  runId: string;
  stepId: string;
  reason: string;
  status: string;
  decision: string | null;
  decidedBy: string | null;
  decidedAt: Date | null;
  createdAt: Date;
  guidance: string | null;
  evidence: unknown;
  checkpointId: string | null;
  budgetIncrease: BudgetIncrease | null;
  factEdits: Record<string, unknown> | null;
  deadEndReason: string | null;
  resultRunId: string | null;
  fromCheckpointForResult: string | null;
}

/** The writes of one application, all inside one transaction ({@link ApplyDecisionPorts.atomically}). */
export interface ApplyDecisionTx {
  /**
   * Guarded write: `decided → applying`, only when the undo window has ended (`applyAfter` null or ≤
   * database now). Inside the transaction, so the `applying` state is never seen committed: it is
   * either rolled back (back to `decided`) or replaced by `applied` in the same commit. A concurrent
   * caller blocks on the row lock and then finds the row no longer `decided`. Returns whether it won.
   */
  claim(escalationId: string): Promise<boolean>;
  /** The escalation row (after the claim). @throws when it does not exist. */
  read(escalationId: string): Promise<EscalationToApply>;
  /** Adds a decision's raise to the task's budgets (see db/task-repository.ts `raiseBudgets`). */
  raiseBudgets(taskId: string, increase: BudgetIncrease): Promise<void>;
  /**
   * Writes a new checkpoint (`reason: human_edit`, `afterStepId`) copying `checkpointId` with
   * `edits` set over its working set; returns its id.
   */
  copyCheckpointWithEdits(input: { checkpointId: string; edits: Record<string, unknown>; afterStepId: string; by: string }): Promise<string>;
  /** Resume ports over the same transaction (`sendRunStarted` is not called inside it: the start is sent after commit). */
  resumePorts: ResumePorts;
  /** Ends the task (only if still `waiting_for_human`) as `dead_end` with the reason, or `cancelled` with who cancelled. */
  endTask(input: { taskId: string; status: "dead_end" | "cancelled"; reason: string }): Promise<void>;
  /** Writes the completed `human-<escalation step>` step on the escalated run (idempotent per run + step id). */
  writeHumanStep(input: {
    runId: string;
    stepId: string;
    index: number;
    durationMs: number | null;
    arguments: Record<string, unknown>;
    output: Record<string, unknown>;
    summary: string;
  }): Promise<void>;
  /** `applying → applied` with the run it started (if any) and that run's checkpoint: the last write of the transaction. */
  markApplied(input: { escalationId: string; resultRunId: string | null; fromCheckpointId: string | null }): Promise<void>;
}

export interface ApplyDecisionPorts {
  /**
   * Runs `work` in one database transaction: every write it makes commits together or not at all
   * (a process that dies half-way leaves the escalation `decided`, to be applied again).
   */
  atomically<T>(work: (tx: ApplyDecisionTx) => Promise<T>): Promise<T>;
}

/** What applying found or did. `start`: the run it started (or, already applied, the run it had started), for the caller to send `longhaul/run.started`. */
export interface ApplyDecisionResult {
  start: { runId: string; checkpointId: string | null } | null;
  decision: string;
  /** Another caller holds the row in `applying` (a row left by an older version: see {@link recoverEscalationDecisions}). */
  byOther?: true;
  /** Still inside its undo window: nothing was done (escalation-apply applies it when the window ends). */
  pending?: true;
}

const RESUMING = ["resume", "approve", "reject"];

/** The call of an `unresolved_effect` escalation's evidence, if it has that shape. */
function unresolvedTool(evidence: unknown): string | null {
  const tool = (evidence as { tool?: unknown } | null)?.tool;
  return typeof tool === "string" ? tool : null;
}

/**
 * The guidance the resumed run gets for a decision (pure): the handler's own for resume; for approve /
 * reject a sentence saying what was decided, then the handler's note. For `unresolved_effect`
 * (an external call whose outcome was unknown) approve means "it happened — don't repeat it" and
 * reject "it did not happen — do it again" (docs/CONTRACTS.md, Escalations).
 */
export function resumeGuidance({
  decision,
  reason,
  evidence,
  by,
  note,
}: {
  decision: string;
  reason: string;
  evidence: unknown;
  by: string;
  note: string | null;
}): string | null {
  const extra = note ? ` ${note}` : "";
  if (reason === "unresolved_effect" && (decision === "approve" || decision === "reject")) {
    const tool = unresolvedTool(evidence) ?? "the external call";
    return decision === "approve"
      ? `${by} checked the external system: ${tool} did happen. Do not repeat it; go on from there.${extra}`
      : `${by} checked the external system: ${tool} did not happen. Do it again.${extra}`;
  }
  if (decision === "reject") return `The proposed action was rejected by ${by}: do not do it.${extra}`;
  if (decision === "approve") return `The proposed action was approved by ${by}: go ahead with it.${extra}`;
  return note;
}

/**
 * Applies a recorded decision exactly once, atomically (status `decided → applied` in one
 * transaction over `ports.atomically`), and only once its undo window has ended (`applyAfter` null or
 * ≤ database now).
 * - resume / approve / reject: budgets raised (steps, tokens, US dollars — a task without a token or
 *   dollar budget keeps none), edited facts written into a new `human_edit` checkpoint (a copy of the
 *   escalation's checkpoint with the edits over its working set), and a new run (cause resume) from
 *   the checkpoint with {@link resumeGuidance}. The run is returned for the caller to start after the
 *   commit (`longhaul/run.started`, id `run-started-<runId>`, so a repeat dedupes). If the task moved
 *   on meanwhile (an operator resumed or cancelled it: resumeTask CONFLICT / NOT_FOUND), the decision
 *   is closed as not applicable (`notApplied` on the human step) rather than left open.
 * - dead_end: the task ends `dead_end` with the handler's reason; cancel: the task is cancelled.
 * A `human-<escalation step>` step (at `stepIndex`) is written on the escalated run's timeline either way.
 *
 * Several callers may get here at once (the handler's request, escalation-apply, the waiting run, the
 * recovery sweep): one applies; the others find it applied (returning the run it started), or
 * `pending` (inside its undo window), or `byOther` (a committed `applying` row, left by an older
 * version, which {@link recoverEscalationDecisions} reverts).
 * A process that dies half-way commits nothing: the row stays `decided` and the next caller applies it.
 * @throws Error when the escalation does not exist or is still open (nothing to apply).
 */
export async function applyEscalationDecision({
  escalationId,
  stepIndex,
  ports,
}: {
  escalationId: string;
  stepIndex: number;
  ports: ApplyDecisionPorts;
}): Promise<ApplyDecisionResult> {
  return ports.atomically(async (tx) => {
    const claimed = await tx.claim(escalationId);
    const e = await tx.read(escalationId);
    if (!claimed) {
      if (e.status === "applied")
        return {
          start: e.resultRunId ? { runId: e.resultRunId, checkpointId: e.fromCheckpointForResult ?? e.checkpointId } : null,
          decision: e.decision ?? "",
        };
      if (e.status === "applying") return { start: null, decision: e.decision ?? "", byOther: true as const };
      if (e.status === "decided") return { start: null, decision: e.decision ?? "", pending: true as const };
      throw new Error(`escalation ${escalationId} is ${e.status}, not decided: nothing to apply yet`);
    }
    const decision = e.decision ?? "cancel";
    const by = e.decidedBy ?? "a handler";
    const humanStepId = `human-${e.stepId}`;
    let notApplied: string | null = null;
    let start: { runId: string; checkpointId: string | null } | null = null;
    if (RESUMING.includes(decision)) {
      await tx.raiseBudgets(e.taskId, e.budgetIncrease ?? {});
      let checkpointId = e.checkpointId;
      const edits = e.factEdits;
      if (edits && Object.keys(edits).length > 0 && checkpointId) {
        checkpointId = await tx.copyCheckpointWithEdits({ checkpointId, edits, afterStepId: humanStepId, by });
      }
      const guidance = resumeGuidance({ decision, reason: e.reason, evidence: e.evidence, by, note: e.guidance });
      try {
        start = await resumeTask({ taskId: e.taskId, checkpointId, guidance, cause: "resume", actor: e.decidedBy ?? "handler", ports: tx.resumePorts });
      } catch (error) {
        if (!(error instanceof AppError) || !["CONFLICT", "NOT_FOUND"].includes(error.code)) throw error;
        notApplied = error.message;
      }
    } else if (decision === "dead_end") {
      await tx.endTask({ taskId: e.taskId, status: "dead_end", reason: e.deadEndReason ?? "marked a dead end by a handler" });
    } else {
      await tx.endTask({ taskId: e.taskId, status: "cancelled", reason: `cancelled by ${by}` });
    }
    await tx.writeHumanStep({
      runId: e.runId,
      stepId: humanStepId,
      index: stepIndex,
      durationMs: e.decidedAt ? e.decidedAt.getTime() - e.createdAt.getTime() : null,
      arguments: { decision, guidance: e.guidance, budgetIncrease: e.budgetIncrease, factEdits: e.factEdits },
      output: { decidedBy: e.decidedBy, resultRunId: start?.runId ?? null, ...(notApplied ? { notApplied } : {}) },
      summary: `${decision.replace("_", " ")} by ${by}${e.guidance ? `: “${e.guidance.slice(0, 100)}”` : ""}${notApplied ? ` — not applied: ${notApplied}` : ""}`,
    });
    await tx.markApplied({ escalationId, resultRunId: start?.runId ?? null, fromCheckpointId: start?.checkpointId ?? null });
    return { start, decision };
  });
}

/** What {@link applyDecision} reads besides the applying transaction (the Prisma ones: server/db/apply-decision-ports.ts `prismaDecisionApplyPorts`). */
export interface DecisionApplyPorts {
  /** The applying transaction ({@link applyEscalationDecision}). */
  apply: ApplyDecisionPorts;
  /** The escalation's task, escalated run, status and `applyAfter` (end of its undo window; null = none). @throws when it does not exist. */
  locate(escalationId: string): Promise<{ taskId: string; runId: string; status: string; applyAfter: Date | null }>;
  /** The next step index on the escalated run (for the human step). */
  nextStepIndex(runId: string): Promise<number>;
  /** The database clock (every undo window is set and checked against it). */
  now(): Promise<Date>;
}

/**
 * What one attempt to apply a decision found or did ({@link applyDecision}):
 * - `applied` (now, or earlier by any caller): `start` is the resumed run (null for dead end /
 *   cancel, or a task that had moved on), for the caller to send `longhaul/run.started` with id
 *   `run-started-<runId>` (a repeat dedupes at the executor);
 * - `superseded`: the row no longer carries the decision the caller was sent for (undone, replaced
 *   by a newer one, which has its own apply, or applied early by its decider's Apply now) — nothing to do;
 * - `not_due`: still inside its undo window by the database clock; `waitMs` until it ends;
 * - `by_other`: another caller holds it `applying` (a row left by an older version; the recovery
 *   sweep reverts it).
 */
export type ApplyOutcome =
  | { outcome: "applied"; decision: string; start: { taskId: string; runId: string; checkpointId: string | null } | null }
  | { outcome: "superseded"; status: string }
  | { outcome: "not_due"; decision: string; waitMs: number }
  | { outcome: "by_other"; decision: string };

/**
 * The one entry point for applying a recorded decision, used by all four callers that race to do it:
 * the handler's request (decideEscalation with `undoSeconds` 0, or Apply now: applyDecisionNow), `escalation-apply` after the undo
 * window (`applyAt`), the waiting `agent-run` (`stepIndex`: the human step's index it reserved) and
 * the recovery sweep ({@link recoverEscalationDecisions}). It locates the escalation, skips a
 * decision that is no longer the one sent for (`applyAt` given and ≠ the row's `applyAfter`:
 * `superseded`), then applies it in one transaction ({@link applyEscalationDecision}; the human step
 * at `stepIndex`, default the run's next index) and says what happened ({@link ApplyOutcome}).
 * Sending the resumed run's start stays with the caller (a durable step in the Inngest functions, a
 * plain send in the request and the sweep).
 * @throws Error when the escalation does not exist or is still open; whatever the transaction throws.
 */
export async function applyDecision({
  escalationId,
  ports,
  applyAt,
  stepIndex,
}: {
  escalationId: string;
  ports: DecisionApplyPorts;
  /** Only the decision whose undo window ends at this time (escalation-apply's event). */
  applyAt?: Date;
  stepIndex?: number;
}): Promise<ApplyOutcome> {
  const e = await ports.locate(escalationId);
  if (applyAt && e.applyAfter?.getTime() !== applyAt.getTime()) return { outcome: "superseded", status: e.status };
  const applied = await applyEscalationDecision({ escalationId, stepIndex: stepIndex ?? (await ports.nextStepIndex(e.runId)), ports: ports.apply });
  if (applied.byOther) return { outcome: "by_other", decision: applied.decision };
  if (applied.pending) {
    const end = applyAt ?? e.applyAfter;
    return { outcome: "not_due", decision: applied.decision, waitMs: end ? Math.max(0, end.getTime() - (await ports.now()).getTime()) : 0 };
  }
  return { outcome: "applied", decision: applied.decision, start: applied.start ? { taskId: e.taskId, ...applied.start } : null };
}

/** What the recovery sweep reads and does (see {@link recoverEscalationDecisions}). */
export interface RecoverDecisionsPorts extends DecisionApplyPorts {
  /** Rows left `applying` (committed): only an older version of Longhaul wrote that state outside a transaction. */
  findStuckApplying(): Promise<string[]>;
  /** Guarded write `applying → decided` (the application is re-driven); returns whether it held. */
  revertApplying(escalationId: string): Promise<boolean>;
  /**
   * `decided` rows due (undo window over) for at least `graceMs` by the database clock, that nobody
   * applied; with how often applying them failed for good and how long ago the last failure was
   * (ms by the database clock; null = never failed).
   */
  findUnappliedDue(graceMs: number): Promise<{ escalationId: string; taskId: string; runId: string; applyFailures: number; msSinceFailure: number | null }[]>;
  /** Records that applying failed for good (see {@link ApplyFailurePorts}). */
  recordApplyFailure: ApplyFailurePorts["recordApplyFailure"];
  /** `applied` rows (applied ≥ `graceMs` ago) whose resumed run has not started: its task still `queued`. */
  findUnstartedResults(graceMs: number): Promise<{ escalationId: string; taskId: string; runId: string; checkpointId: string | null; decision: string }[]>;
  /** Delivers `longhaul/run.started` with id `run-started-<runId>` (a repeat dedupes at the executor). */
  sendRunStarted(event: { taskId: string; runId: string; checkpointId: string | null }): Promise<void>;
  /** Wakes the escalated run waiting on the decision (`longhaul/escalation.applied`); best-effort. */
  sendApplied(event: { escalationId: string; decision: string }): Promise<void>;
}

/** Where a failed application is recorded. */
export interface ApplyFailurePorts {
  /**
   * A decision's application failed for good (escalation-apply's onFailure, a sweep attempt): on a
   * `decided` (or a committed `applying`) row, counts the failure, stores `error` and the time, puts
   * the row back to `decided` and notes the failure on the escalated run's timeline (an `error`
   * alert). Returns false when the row is no longer waiting to be applied (applied, undone, open).
   */
  recordApplyFailure(input: { escalationId: string; error: string }): Promise<boolean>;
}

/** First wait before the sweep applies a decision again after applying it failed for good, ms (then doubling). */
export const APPLY_RETRY_BASE_MS = 30_000;
/** Longest such wait, ms: a decision that keeps failing is still tried once an hour. */
export const APPLY_RETRY_MAX_MS = 3_600_000;

/**
 * How long after its last failure the sweep waits before applying a decision again: 0 without
 * failures, else `baseMs · 2^(failures − 1)`, at most {@link APPLY_RETRY_MAX_MS}. A decision that
 * fails every time (its checkpoint gone, a bug) is retried ever more rarely, never given up on: the
 * failure is on the row and the run's timeline for a human to see and fix. Pure.
 */
export function applyRetryDelayMs(failures: number, baseMs = APPLY_RETRY_BASE_MS): number {
  if (failures <= 0) return 0;
  return Math.min(APPLY_RETRY_MAX_MS, baseMs * 2 ** Math.min(failures - 1, 30));
}

/** "Name: message" of an error, never empty (what is stored as a failed application's error). */
export function describeApplyError(error: unknown): string {
  const e = error instanceof Error ? error : null;
  const text = e ? (e.name && e.name !== "Error" && !e.message.startsWith(e.name) ? `${e.name}: ${e.message}` : e.message) : String(error);
  return text.trim().slice(0, 2_000) || "applying the decision failed without an error message";
}

/**
 * The recovery sweep for decisions a dead process left behind (idempotent; run at web start and
 * every so often):
 * 1. a committed `applying` row (only an older version could leave one) goes back to `decided`;
 * 2. a `decided` row due for at least `graceMs` (the handler's request, or escalation-apply, died
 *    before committing) is applied ({@link applyDecision}), its resumed run started and the
 *    waiting run woken;
 * 3. an `applied` row whose resumed run never started (the process died between the commit and
 *    sending `longhaul/run.started`) gets the start sent again (same event id: the executor dedupes a
 *    start already delivered).
 * A decision whose application fails (escalation-apply gave up on it, or it fails here) stays
 * `decided` with the failure recorded (`recordApplyFailure`) and is tried again after
 * {@link applyRetryDelayMs}; one failing decision never stops the sweep from handling the others.
 * `graceMs` (default 30 s) leaves the normal paths time to finish first; `retryBaseMs` (default
 * {@link APPLY_RETRY_BASE_MS}) is the first wait after a failure. Returns the escalation ids handled
 * in each part, and the failures with their errors.
 */
export async function recoverEscalationDecisions({
  ports,
  graceMs = 30_000,
  retryBaseMs = APPLY_RETRY_BASE_MS,
}: {
  ports: RecoverDecisionsPorts;
  graceMs?: number;
  retryBaseMs?: number;
}): Promise<{ reverted: string[]; applied: string[]; restarted: string[]; failed: { escalationId: string; error: string }[] }> {
  const reverted: string[] = [];
  for (const id of await ports.findStuckApplying()) if (await ports.revertApplying(id)) reverted.push(id);
  const applied: string[] = [];
  const failed: { escalationId: string; error: string }[] = [];
  for (const row of await ports.findUnappliedDue(graceMs)) {
    if (row.msSinceFailure !== null && row.msSinceFailure < applyRetryDelayMs(row.applyFailures, retryBaseMs)) continue;
    let result: ApplyOutcome;
    try {
      result = await applyDecision({ escalationId: row.escalationId, ports });
    } catch (error) {
      const message = describeApplyError(error);
      await ports.recordApplyFailure({ escalationId: row.escalationId, error: message });
      failed.push({ escalationId: row.escalationId, error: message });
      continue;
    }
    if (result.outcome !== "applied") continue;
    if (result.start) await ports.sendRunStarted(result.start);
    await ports.sendApplied({ escalationId: row.escalationId, decision: result.decision }).catch(() => {});
    applied.push(row.escalationId);
  }
  const restarted: string[] = [];
  for (const row of await ports.findUnstartedResults(graceMs)) {
    if (applied.includes(row.escalationId)) continue;
    await ports.sendRunStarted({ taskId: row.taskId, runId: row.runId, checkpointId: row.checkpointId });
    await ports.sendApplied({ escalationId: row.escalationId, decision: row.decision }).catch(() => {});
    restarted.push(row.escalationId);
  }
  return { reverted, applied, restarted, failed };
}
