import { z } from "zod";
import { findUnstorableString } from "./unstorable.ts";
import { idempotencyKeyField, idField, inputObject, textField } from "./input-fields.ts";
import {
  APPROVAL_REASONS,
  decisionsFor,
  ESCALATION_DECISIONS,
  MAX_COST_BUDGET_USD,
  MAX_EXTRA_STEPS,
  MAX_EXTRA_TOKENS,
  MAX_EXTRA_USD,
  MAX_TOKEN_BUDGET,
  MAX_UNDO_SECONDS,
  type EscalationDecision,
} from "../../lib/contracts/escalation.ts";
import { MAX_FACT_EDITS, MAX_FACT_KEY_LENGTH, MAX_FACT_VALUE_BYTES, MAX_GUIDANCE_CHARS } from "../../lib/contracts/limits.ts";
import { AppError } from "../errors.ts";
import { applyDecision, type DecisionApplyPorts } from "./apply-escalation-decision.ts";
import { isoUtc } from "../../lib/contracts/dates.ts";

export {
  ESCALATION_DECISIONS,
  MAX_UNDO_SECONDS,
  MAX_EXTRA_STEPS,
  MAX_EXTRA_TOKENS,
  MAX_EXTRA_USD,
  MAX_TOKEN_BUDGET,
  MAX_COST_BUDGET_USD,
  APPROVAL_REASONS,
  decisionsFor,
  type EscalationDecision,
} from "../../lib/contracts/escalation.ts";
export { MAX_FACT_KEY_LENGTH, MAX_FACT_VALUE_BYTES, MAX_FACT_EDITS } from "../../lib/contracts/limits.ts";

/**
 * Why `value` cannot be a fact value, or null when it can: it must survive JSON unchanged (no
 * undefined, functions, NaN or Infinity) and serialise to at most {@link MAX_FACT_VALUE_BYTES} bytes (UTF-8).
 */
export function factValueProblem(value: unknown): string | null {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return "not JSON (it cannot be serialised)";
  }
  if (text === undefined) return "not JSON (no value)";
  if (!isPlainJson(value)) return "not plain JSON (NaN, Infinity or a non-JSON object)";
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_FACT_VALUE_BYTES) return `at most ${MAX_FACT_VALUE_BYTES} bytes of JSON (got ${bytes})`;
  return null;
}

function isPlainJson(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isPlainJson);
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value) as unknown;
    return (proto === Object.prototype || proto === null) && Object.values(value as Record<string, unknown>).every(isPlainJson);
  }
  return false;
}

const escalationIdSchema = idField("escalationId");

/** A handler's decision (validated at the tRPC boundary). */
export const decideEscalationInputSchema = z
  .object(
    {
      escalationId: escalationIdSchema,
      decision: z.enum(ESCALATION_DECISIONS),
      guidance: textField("guidance", MAX_GUIDANCE_CHARS).optional(),
      budgetIncrease: z
        .object({
          steps: z
            .number("budgetIncrease.steps: a whole number of steps")
            .int("budgetIncrease.steps: a whole number of steps")
            .min(0, "budgetIncrease.steps: at least 0")
            .max(MAX_EXTRA_STEPS, `budgetIncrease.steps: at most ${MAX_EXTRA_STEPS}`)
            .optional(),
          tokens: z
            .number("budgetIncrease.tokens: a whole number of tokens")
            .int("budgetIncrease.tokens: a whole number of tokens")
            .min(0, "budgetIncrease.tokens: at least 0")
            .max(MAX_EXTRA_TOKENS, `budgetIncrease.tokens: at most ${MAX_EXTRA_TOKENS}`)
            .optional(),
          /** US dollars added to the task's dollar budget (Task.costBudgetUsd), stored to the micro-dollar. */
          usd: z
            .number("budgetIncrease.usd: a number of US dollars")
            .positive("budgetIncrease.usd: must be more than 0")
            .max(MAX_EXTRA_USD, `budgetIncrease.usd: at most ${MAX_EXTRA_USD}`)
            .optional(),
        })
        .strict()
        .optional(),
      /**
       * Facts to set in the working set the resumed run starts from ({key: JSON value}), written as a
       * `human_edit` checkpoint. Keys 1–200 characters (as `record_fact`), values JSON of at most 16 KiB.
       */
      factEdits: z
        .record(z.string(), z.unknown())
        .superRefine((edits, ctx) => {
          const keys = Object.keys(edits);
          if (keys.length > MAX_FACT_EDITS)
            ctx.addIssue({ code: "custom", message: `factEdits: at most ${MAX_FACT_EDITS} facts per decision (got ${keys.length})` });
          for (const key of keys) {
            if (key.length === 0) ctx.addIssue({ code: "custom", path: [key], message: "factEdits: a fact key must not be empty" });
            if (key.length > MAX_FACT_KEY_LENGTH)
              ctx.addIssue({ code: "custom", path: [key], message: `factEdits: a fact key has at most ${MAX_FACT_KEY_LENGTH} characters (got ${key.length})` });
            const problem = factValueProblem(edits[key]);
            if (problem) ctx.addIssue({ code: "custom", path: [key], message: `factEdits["${key}"]: ${problem}` });
          }
        })
        .optional(),
      deadEndReason: textField("deadEndReason", 4_000).optional(),
      /**
       * Undo window in seconds (0–60). 0 (the default, what the API and the CLI get) applies the decision
       * in the request; more records it with `applyAfter = database now + undoSeconds` and leaves the
       * application to the `escalation-apply` function, so the handler can undo it until then.
       */
      /**
       * The handler the caller saw holding the claim, to take the escalation over from them and decide
       * ("Take over from …", audited with the decision). Without it, an escalation another handler
       * has claimed is refused (CONFLICT naming who holds it).
       */
      takeOverFrom: textField("takeOverFrom", 100).pipe(z.string().min(1, "takeOverFrom: must not be empty")).optional(),
      /** The caller's idempotency key: the same key from the same handler is one decision (server/db/request-keys.ts). */
      idempotencyKey: idempotencyKeyField().optional(),
      undoSeconds: z
        .number("undoSeconds: a whole number of seconds")
        .int("undoSeconds: a whole number of seconds")
        .min(0, "undoSeconds: at least 0")
        .max(MAX_UNDO_SECONDS, `undoSeconds: at most ${MAX_UNDO_SECONDS}`)
        .default(0),
    },
    "input: must be an object with escalationId and decision",
  )
  .superRefine((v, ctx) => {
    // Fact edits end up in jsonb, which cannot hold NUL or unpaired surrogates: refused in our words.
    const problem = v.factEdits ? findUnstorableString(v.factEdits, "factEdits") : null;
    if (problem) ctx.addIssue({ code: "custom", message: `${problem}: PostgreSQL cannot store it`, path: [] });
  })
  .refine((v) => v.decision !== "dead_end" || (v.deadEndReason ?? "").length > 0, {
    message: "deadEndReason: required to mark a dead end",
    path: ["deadEndReason"],
  });
export type DecideEscalationInput = z.output<typeof decideEscalationInputSchema>;

/** Undo of a decision still inside its undo window. */
export const undoEscalationInputSchema = inputObject({ escalationId: escalationIdSchema });

/**
 * Claim ("<handler> is on this"). `takeOverFrom`: the handler the caller saw holding the claim; the
 * claim moves only if that handler still holds it (an explicit take-over, never a silent one).
 */
export const claimEscalationInputSchema = inputObject({
  escalationId: escalationIdSchema,
  takeOverFrom: textField("takeOverFrom", 100).pipe(z.string().min(1, "takeOverFrom: must not be empty")).optional(),
});
export type ClaimEscalationInput = z.output<typeof claimEscalationInputSchema>;

/** What a guarded write found when its condition did not hold (the row as it is now). */
export interface EscalationState {
  status: string;
  decision: string | null;
  decidedBy: string | null;
  decidedAt: Date | null;
  applyAfter: Date | null;
  appliedAt: Date | null;
  claimedBy: string | null;
  claimedAt: Date | null;
}

export type GuardedWrite<T> = ({ ok: true } & T) | { ok: false; state: EscalationState } | null;

/**
 * What a decision may change, read before it is recorded: the task's token budget and dollar budget
 * (USD; null = no such ceiling), and whether the escalation stopped at a checkpoint (fact edits are
 * written into a copy of it).
 */
export interface DecisionTarget {
  taskId: string;
  /** Escalation.reason (loop, stall, budget, …, risky_action, unresolved_effect): which decisions fit ({@link decisionsFor}). */
  reason: string;
  tokenBudget: number | null;
  costBudgetUsd: number | null;
  hasCheckpoint: boolean;
}

const RESUMING_DECISIONS: readonly EscalationDecision[] = ["resume", "approve", "reject"];

/**
 * Problems of a valid-looking decision against what it would change (pure), each naming the field:
 * - `decision` must fit the escalation ({@link decisionsFor}: approve / reject only for risky_action
 *   and unresolved_effect); a misfit is the only problem reported;
 * - `budgetIncrease` / `factEdits` only with resume, approve or reject (the decisions that start a run);
 * - `budgetIncrease.usd` only when the task has a dollar budget (a task without one has no dollar
 *   ceiling to raise), and not past {@link MAX_COST_BUDGET_USD} in total;
 * - `budgetIncrease.tokens` on a task without a token budget is accepted and changes nothing (no
 *   ceiling stays no ceiling); with one, not past {@link MAX_TOKEN_BUDGET} in total;
 * - `factEdits` only when the escalation has a checkpoint (the working set to edit).
 * Returns [] when there is none.
 */
export function decisionTargetProblems(input: Pick<DecideEscalationInput, "decision" | "budgetIncrease" | "factEdits">, target: DecisionTarget): string[] {
  const problems: string[] = [];
  const inc = input.budgetIncrease;
  const edits = input.factEdits && Object.keys(input.factEdits).length > 0 ? input.factEdits : null;
  const fitting = decisionsFor(target.reason);
  if (!fitting.includes(input.decision)) {
    problems.push(
      `decision: ${input.decision} does not fit a ${target.reason} escalation (only ${APPROVAL_REASONS.join(" and ")} escalations propose a call to approve or reject); decide one of ${fitting.join(", ")}`,
    );
    return problems;
  }
  const resuming = RESUMING_DECISIONS.includes(input.decision);
  if (!resuming) {
    if (inc && (inc.steps || inc.tokens || inc.usd))
      problems.push(`budgetIncrease: only with resume, approve or reject (a ${input.decision.replace("_", " ")} starts no run)`);
    if (edits) problems.push(`factEdits: only with resume, approve or reject (a ${input.decision.replace("_", " ")} starts no run)`);
    return problems;
  }
  if (inc?.usd !== undefined) {
    if (target.costBudgetUsd === null)
      problems.push(`budgetIncrease.usd: task ${target.taskId} has no dollar budget, so there is no dollar ceiling to raise; leave it out`);
    else if (target.costBudgetUsd + inc.usd > MAX_COST_BUDGET_USD)
      problems.push(
        `budgetIncrease.usd: the dollar budget would become $${(target.costBudgetUsd + inc.usd).toFixed(6)}, more than the most a task can hold ($${MAX_COST_BUDGET_USD.toFixed(6)})`,
      );
  }
  if (inc?.tokens && target.tokenBudget !== null && target.tokenBudget + inc.tokens > MAX_TOKEN_BUDGET) {
    problems.push(
      `budgetIncrease.tokens: the token budget would become ${target.tokenBudget + inc.tokens}, more than the most a task can hold (${MAX_TOKEN_BUDGET})`,
    );
  }
  if (edits && !target.hasCheckpoint)
    problems.push(
      "factEdits: this escalation has no checkpoint (the run stopped before its first one), so there is no working set to edit; resume without edits and give the facts as guidance",
    );
  return problems;
}

export interface DecidePorts {
  /**
   * The task's budgets and whether the escalation has a checkpoint ({@link DecisionTarget}); null when
   * the escalation does not exist. Optional: without it the checks of {@link decisionTargetProblems}
   * are skipped (applyDecision still leaves a task without a dollar budget without one).
   */
  describeTarget?(escalationId: string): Promise<DecisionTarget | null>;
  /**
   * Guarded write: the escalation moves from `open` to `decided` with the decision, who and when
   * (database clock), and `applyAfter` = database now + `undoSeconds` when that is above 0 — only
   * while it is unclaimed, claimed by `actor`, or claimed by `takeOverFrom` when given (then the
   * claim moves to `actor` in the same write). Returns `{ok: true, applyAfter}`, `{ok: false, state}`
   * when it was not open or someone else holds it, or null when it does not exist.
   */
  recordDecision(input: DecideEscalationInput & { actor: string }): Promise<GuardedWrite<{ applyAfter: Date | null }>>;
  /** Tells the escalated run the decision is applied (`longhaul/escalation.applied`). */
  sendApplied(event: { escalationId: string; decision: EscalationDecision }): Promise<void>;
  /** Sends `longhaul/escalation.decided` with `applyAt` (ISO): `escalation-apply` applies it then. */
  sendDecided(event: { escalationId: string; decision: EscalationDecision; applyAt: string }): Promise<void>;
  /** What applying the decision right away ({@link applyDecision}, with `undoSeconds` 0) reads and writes. */
  apply: DecisionApplyPorts;
  /** Delivers the resumed run's `longhaul/run.started` (id `run-started-<runId>`) after the application committed. */
  sendRunStarted(event: { taskId: string; runId: string; checkpointId: string | null }): Promise<void>;
  /**
   * Guarded write: `status = decided AND applyAfter > database now AND decidedBy = onlyBy` →
   * `applyAfter = database now` (the undo window ends early; the decision is due at once). The pending
   * `escalation-apply`, which carries the old `applyAfter`, then finds it superseded.
   */
  endUndoWindow(input: { escalationId: string; onlyBy: string }): Promise<GuardedWrite<{ decision: EscalationDecision; applyAfter: Date }>>;
  /**
   * Guarded write: `status = decided AND applyAfter > database now` → `open`, the decision fields
   * cleared, and the undo recorded as a human step on the escalated run's timeline (who, when, what).
   * `expectedApplyAfter`, when given, must also match (undo of that decision only); `onlyBy`: undo
   * only a decision made by this actor (a handler may take back their own decision, not another's).
   */
  undoDecision(input: {
    escalationId: string;
    actor: string;
    expectedApplyAfter?: Date;
    onlyBy?: string;
  }): Promise<GuardedWrite<{ undone: { decision: string; decidedBy: string | null; at: Date } }>>;
}

export interface ClaimPorts {
  /**
   * Guarded write on `claimedBy`: to `actor` when it is `expected` (null = unclaimed) and the
   * escalation is not applied yet. Returns the claim time (database clock).
   */
  setClaim(input: { escalationId: string; actor: string | null; expected: string | null }): Promise<GuardedWrite<{ at: Date }>>;
}

/**
 * The CONFLICT message for deciding an escalation another handler holds: who holds it since when
 * (ISO, UTC) and how to take it over (`takeOverFrom`, the card's "Take over from …").
 */
export function claimConflictMessage(escalationId: string, state: Pick<EscalationState, "claimedBy" | "claimedAt">): string {
  return `escalation ${escalationId} is claimed by ${state.claimedBy}${state.claimedAt ? ` since ${isoUtc(state.claimedAt)}` : ""}: take it over explicitly to decide it (takeOverFrom: "${state.claimedBy}")`;
}

function describeDecision(s: EscalationState): string {
  return s.decision ? `${s.decision.replace("_", " ")} by ${s.decidedBy ?? "someone"}` : "";
}

/**
 * The CONFLICT message for a decision or undo that found the escalation in `state`: who decided
 * what, and whether and when it was applied ("already applied at …").
 */
export function describeEscalationConflict(escalationId: string, state: EscalationState, attempted: "decide" | "undo"): string {
  const what = describeDecision(state);
  if (state.status === "open") {
    if (attempted === "undo") return `escalation ${escalationId} has no decision to undo (it is open)`;
    return state.claimedBy ? claimConflictMessage(escalationId, state) : `escalation ${escalationId} is open`;
  }
  if (state.status === "applied")
    return `escalation ${escalationId}: ${what} was already applied at ${state.appliedAt ? isoUtc(state.appliedAt) : "an earlier time"}${attempted === "undo" ? ": too late to undo" : ""}`;
  if (state.status === "applying") return `escalation ${escalationId}: ${what} is being applied${attempted === "undo" ? ": too late to undo" : ""}`;
  // decided
  if (attempted === "undo") {
    return state.applyAfter
      ? `escalation ${escalationId}: too late to undo ${what}: its undo window ended at ${isoUtc(state.applyAfter)} and it is being applied`
      : `escalation ${escalationId}: ${what} had no undo window (it is applied right away); too late to undo`;
  }
  return `escalation ${escalationId} is already decided (${what}${state.applyAfter ? `, applies at ${isoUtc(state.applyAfter)}` : ""})`;
}

/**
 * Records a human decision on an escalation (stored on the row first, CAS open → decided).
 * - `undoSeconds` 0: applies it in the request ({@link applyDecision}), sends the resumed run's start
 *   (`ports.sendRunStarted`), then tells the waiting run
 *   (`longhaul/escalation.applied`), which ends. Applying here rather than only in the waiting run
 *   closes the race of a decision sent between the run's read of the row and its wait.
 * - `undoSeconds` > 0: only records it, with `applyAfter` = database now + undoSeconds, and sends
 *   `longhaul/escalation.decided` with `applyAt`; `escalation-apply` applies it then unless it was
 *   undone ({@link undoEscalationDecision}). When that event cannot be sent the decision is undone
 *   again (nothing would apply it) and the call fails UNAVAILABLE.
 * Takes effect once: a second click, or a second handler at the same time, gets CONFLICT naming who
 * decided. An escalation another handler has claimed is refused (CONFLICT naming who holds it and
 * since when) unless `takeOverFrom` names them: then the claim moves to `actor` with the decision
 * (one guarded write), and the audit log's entry of the decision carries `takeOverFrom`.
 * Before recording, checks it against the task (`ports.describeTarget`, {@link decisionTargetProblems}):
 * a dollar raise on a task without a dollar budget, fact edits without a checkpoint, or budgets and
 * edits on a dead end / cancel are refused BAD_INPUT naming the field.
 * Returns `applyAt` (ISO; null when applied now) and `undoSeconds`.
 * @throws AppError NOT_FOUND, BAD_INPUT, CONFLICT, UNAVAILABLE.
 */
export async function decideEscalation({
  input,
  actor,
  ports,
}: {
  input: DecideEscalationInput;
  actor: string;
  ports: DecidePorts;
}): Promise<{ escalationId: string; decision: EscalationDecision; applyAt: string | null; undoSeconds: number }> {
  if (ports.describeTarget) {
    const target = await ports.describeTarget(input.escalationId);
    if (target === null) throw new AppError("NOT_FOUND", `escalation ${input.escalationId} not found`);
    const problems = decisionTargetProblems(input, target);
    if (problems.length) throw new AppError("BAD_INPUT", problems.join("; "));
  }
  const recorded = await ports.recordDecision({ ...input, actor });
  if (recorded === null) throw new AppError("NOT_FOUND", `escalation ${input.escalationId} not found`);
  if (!recorded.ok) throw new AppError("CONFLICT", describeEscalationConflict(input.escalationId, recorded.state, "decide"));
  if (recorded.applyAfter) {
    const applyAt = recorded.applyAfter.toISOString();
    try {
      await ports.sendDecided({ escalationId: input.escalationId, decision: input.decision, applyAt });
    } catch (error) {
      const undone = await ports.undoDecision({ escalationId: input.escalationId, actor, expectedApplyAfter: recorded.applyAfter }).catch(() => null);
      // Not taken back because the decider applied it meanwhile (Apply now on a card refreshed while
      // this send hung moves applyAfter earlier; a later decision would carry a later one): it is
      // kept and applied, and nothing waits on the event, so this is no failure.
      const keptUntil = undone?.ok === false && undone.state.status !== "open" && undone.state.decidedBy === actor ? undone.state.applyAfter : null;
      if (keptUntil !== null && keptUntil < recorded.applyAfter)
        return { escalationId: input.escalationId, decision: input.decision, applyAt: null, undoSeconds: 0 };
      throw new AppError(
        "UNAVAILABLE",
        `could not deliver longhaul/escalation.decided to the executor, so the decision was not kept: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    return { escalationId: input.escalationId, decision: input.decision, applyAt, undoSeconds: input.undoSeconds };
  }
  await applyInRequest(input.escalationId, input.decision, ports);
  return { escalationId: input.escalationId, decision: input.decision, applyAt: null, undoSeconds: 0 };
}

/**
 * Applies a due decision in the request, so it never depends on the waiting run having registered
 * its wait in time (the waiting run, woken by the event or its timeout, then finds it applied); sends
 * the resumed run's start, then wakes the waiting run (best-effort). A start lost between the commit
 * and the send is re-sent by the recovery sweep; a decision whose application fails is applied by it.
 */
async function applyInRequest(escalationId: string, decision: EscalationDecision, ports: Pick<DecidePorts, "apply" | "sendRunStarted" | "sendApplied">) {
  const applied = await applyDecision({ escalationId, ports: ports.apply });
  if (applied.outcome === "applied" && applied.start) await ports.sendRunStarted(applied.start);
  await ports.sendApplied({ escalationId, decision }).catch(() => {});
  return applied;
}

/** "Apply now" of a decision waiting out its undo window. */
export const applyNowInputSchema = inputObject({ escalationId: escalationIdSchema });

/**
 * "Apply now": the handler who decided ends their decision's undo window early and applies it in
 * the request, as a decision made with `undoSeconds` 0 is (the resumed run starts now, not when the
 * window would have ended). The write is guarded (`ports.endUndoWindow`): an undo and an Apply now
 * racing inside the window resolve to one of them, and the pending `escalation-apply` finds the
 * decision superseded when it wakes.
 * Idempotent for the decider: their decision already due, being applied or applied answers
 * `alreadyDue: true` and changes nothing (a second click, or the window ending meanwhile).
 * Returns the decision and whether this call ended the window.
 * @throws AppError NOT_FOUND; CONFLICT when someone else decided (only they can apply it early, in
 *   any state) or there is no decision (open: never decided, or undone).
 */
export async function applyDecisionNow({
  input,
  actor,
  ports,
}: {
  input: z.output<typeof applyNowInputSchema>;
  actor: string;
  ports: Pick<DecidePorts, "endUndoWindow" | "apply" | "sendRunStarted" | "sendApplied">;
}): Promise<{ escalationId: string; decision: EscalationDecision; alreadyDue: boolean }> {
  const ended = await ports.endUndoWindow({ escalationId: input.escalationId, onlyBy: actor });
  if (ended === null) throw new AppError("NOT_FOUND", `escalation ${input.escalationId} not found`);
  if (!ended.ok) {
    const s = ended.state;
    const decision = ESCALATION_DECISIONS.find((d) => d === s.decision);
    if (s.status === "open" || decision === undefined)
      throw new AppError("CONFLICT", `escalation ${input.escalationId} has no decision to apply (it is ${s.status})`);
    if (s.decidedBy !== actor)
      throw new AppError(
        "CONFLICT",
        `escalation ${input.escalationId}: only ${s.decidedBy ?? "the handler who decided"}, who decided (${describeDecision(s)}), can apply it early`,
      );
    // Mine, and already due (its window over, or none), being applied or applied: nothing to end.
    return { escalationId: input.escalationId, decision, alreadyDue: true };
  }
  await applyInRequest(input.escalationId, ended.decision, ports);
  return { escalationId: input.escalationId, decision: ended.decision, alreadyDue: false };
}

/**
 * Undoes a decision inside its undo window (CAS `decided AND applyAfter > database now` → `open`,
 * decision fields cleared); the undo is recorded as a human step on the escalated run's timeline.
 * The pending `escalation-apply` then finds it open and does nothing. Any handler may undo.
 * Returns what was undone.
 * @throws AppError NOT_FOUND; CONFLICT after the window ("… already applied at …"), or when there is
 *   no decision to undo.
 */
export async function undoEscalationDecision({
  input,
  actor,
  ports,
}: {
  input: z.output<typeof undoEscalationInputSchema>;
  actor: string;
  ports: Pick<DecidePorts, "undoDecision">;
}): Promise<{ escalationId: string; undone: string; decidedBy: string | null; undoneBy: string; at: Date }> {
  const result = await ports.undoDecision({ escalationId: input.escalationId, actor, onlyBy: actor });
  if (result === null) throw new AppError("NOT_FOUND", `escalation ${input.escalationId} not found`);
  if (!result.ok) {
    const s = result.state;
    if (s.status === "decided" && s.decidedBy !== null && s.decidedBy !== actor) {
      throw new AppError("CONFLICT", `escalation ${input.escalationId}: only ${s.decidedBy}, who decided (${describeDecision(s)}), can undo it`);
    }
    throw new AppError("CONFLICT", describeEscalationConflict(input.escalationId, s, "undo"));
  }
  return { escalationId: input.escalationId, undone: result.undone.decision, decidedBy: result.undone.decidedBy, undoneBy: actor, at: result.undone.at };
}

/**
 * Claims an escalation for `actor` ("<actor> is on this"). Claiming one already yours is a no-op.
 * One claimed by someone else needs `takeOverFrom` naming them (CAS on claimedBy), so a take-over is
 * always deliberate. Claims do not block deciding. Returns who holds it and since when.
 * @throws AppError NOT_FOUND; CONFLICT when someone else holds it (naming them) or it is applied.
 */
export async function claimEscalation({
  input,
  actor,
  ports,
}: {
  input: ClaimEscalationInput;
  actor: string;
  ports: ClaimPorts;
}): Promise<{ escalationId: string; claimedBy: string; claimedAt: Date }> {
  const expected = input.takeOverFrom ?? null;
  const result = await ports.setClaim({ escalationId: input.escalationId, actor, expected });
  if (result === null) throw new AppError("NOT_FOUND", `escalation ${input.escalationId} not found`);
  if (result.ok) return { escalationId: input.escalationId, claimedBy: actor, claimedAt: result.at };
  const s = result.state;
  if (s.status === "applied")
    throw new AppError(
      "CONFLICT",
      `escalation ${input.escalationId} is closed: ${describeDecision(s)} was applied at ${s.appliedAt ? isoUtc(s.appliedAt) : "an earlier time"}`,
    );
  if (s.claimedBy === actor && s.claimedAt) return { escalationId: input.escalationId, claimedBy: actor, claimedAt: s.claimedAt };
  if (s.claimedBy === null) {
    // Released since the caller looked: a plain claim.
    if (expected !== null) return claimEscalation({ input: { escalationId: input.escalationId }, actor, ports });
    throw new AppError("CONFLICT", `escalation ${input.escalationId} could not be claimed (it changed meanwhile); try again`);
  }
  throw new AppError(
    "CONFLICT",
    expected === null
      ? `${s.claimedBy} is on this since ${s.claimedAt ? isoUtc(s.claimedAt) : "earlier"}: take it over explicitly (takeOverFrom: "${s.claimedBy}")`
      : `${s.claimedBy} is on this now, not ${expected}: look again before taking it over`,
  );
}

/**
 * Releases `actor`'s claim (CAS claimedBy = actor → null). Releasing an unclaimed escalation is a no-op.
 * @throws AppError NOT_FOUND; CONFLICT when someone else holds the claim.
 */
export async function releaseEscalation({
  input,
  actor,
  ports,
}: {
  input: { escalationId: string };
  actor: string;
  ports: ClaimPorts;
}): Promise<{ escalationId: string; claimedBy: null }> {
  const result = await ports.setClaim({ escalationId: input.escalationId, actor: null, expected: actor });
  if (result === null) throw new AppError("NOT_FOUND", `escalation ${input.escalationId} not found`);
  if (result.ok || result.state.claimedBy === null) return { escalationId: input.escalationId, claimedBy: null };
  throw new AppError(
    "CONFLICT",
    `escalation ${input.escalationId} is claimed by ${result.state.claimedBy}, not ${actor}: only they can release it (or take it over)`,
  );
}
