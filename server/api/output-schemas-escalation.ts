/**
 * Output schemas of `escalation.list` and `escalation.get` (docs/CONTRACTS.md "Escalations": rows
 * and card carry `claimedBy`, `claimedAt`, `overdue`, `applyInMs`; the card also `applyAfter`,
 * `appliedAt`, `undos`, `proposedCall`, …). Strict like server/api/output-schemas.ts, and typed
 * against the queries' own result types (server/db/escalation-queries.ts), so a field added to the
 * query and not to the contract fails to compile or fails the call in the tests. Stored JSON
 * (evidence, step arguments, fact values) is checked only as JSON: it is the run's data, untrusted and
 * free-form.
 */
import { z } from "zod";
import {
  ceilingEvidenceSchema,
  proposedCallSchema,
  unresolvedEffectSchema,
  type getEscalationCardOrThrow,
  type listEscalations,
} from "../features/escalations/index.ts";
import { count, factChangeOutput, json, timeoutPlanOutput, usd, wasteSplitOutput } from "./output-schemas-shared.ts";

type EscalationRow = Awaited<ReturnType<typeof listEscalations>>[number];
type EscalationCard = Awaited<ReturnType<typeof getEscalationCardOrThrow>>;

/** Fields a list row and the card share. */
const common = {
  id: z.string(),
  taskId: z.string(),
  runId: z.string(),
  goal: z.string(),
  taskStatus: z.string(),
  reason: z.string(),
  message: z.string(),
  status: z.string(),
  decision: z.string().nullable(),
  decidedBy: z.string().nullable(),
  decidedAt: z.date().nullable(),
  /** ms left of the undo window by the database clock (0: none, or over). */
  applyInMs: count,
  claimedBy: z.string().nullable(),
  claimedAt: z.date().nullable(),
  assigneeRole: z.string(),
  /** When the answer was due (opened + the profile's due time), overdue, what the run does, the next reminder (lib/contracts/escalation-timeout.ts escalationClock). */
  dueAt: z.date(),
  overdue: z.boolean(),
  phase: z.enum(["reminding", "reminders_over", "decided"]),
  nextReminderAt: z.date().nullable(),
  remindersSent: count,
  createdAt: z.date(),
};

/** `escalation.list`: open rows (soonest due first), then closed ones (pending applications first). */
export const escalationListOutput: z.ZodType<EscalationRow[]> = z.array(z.strictObject({ ...common, costUsd: usd, taskCostUsd: usd, notifications: count }));

/** `escalation.get`: the context card (secrets in stored payloads answered as `[redacted: <rule>]`). */
export const escalationCardOutput: z.ZodType<EscalationCard> = z.strictObject({
  ...common,
  profile: z.strictObject({ name: z.string(), model: z.string() }),
  evidence: json,
  guidance: z.string().nullable(),
  deadEndReason: z.string().nullable(),
  applyAfter: z.date().nullable(),
  appliedAt: z.date().nullable(),
  timeout: timeoutPlanOutput.nullable(),
  applyFailures: count,
  applyError: z.string().nullable(),
  applyFailedAt: z.date().nullable(),
  resultRunId: z.string().nullable(),
  proposedCall: proposedCallSchema.nullable(),
  ceiling: ceilingEvidenceSchema.shape.ceiling.nullable(),
  unresolvedEffect: unresolvedEffectSchema.nullable(),
  undos: z.array(z.strictObject({ decision: z.string(), decidedBy: z.string().nullable(), undoneBy: z.string(), undoneAt: z.date().nullable() })),
  checkpoint: z
    .strictObject({
      id: z.string(),
      seq: z.number().int(),
      openQuestion: z.string().nullable(),
      summary: z.string(),
      workingSet: z.record(z.string(), z.unknown()),
    })
    .nullable(),
  factDiff: z.array(factChangeOutput),
  lastSteps: z.array(
    z.strictObject({
      stepId: z.string(),
      kind: z.string(),
      tool: z.string().nullable(),
      status: z.string(),
      summary: z.string(),
      arguments: json.nullable(),
    }),
  ),
  alerts: z.array(z.strictObject({ kind: z.string(), severity: z.string(), stepId: z.string(), message: z.string(), createdAt: z.date() })),
  spend: z.strictObject({
    usd,
    wastedUsd: usd,
    waste: wasteSplitOutput,
    costBudgetUsd: usd.nullable(),
    steps: count,
    stepBudget: z.number().int(),
    tokens: count,
    tokenBudget: z.number().int().nullable(),
  }),
});

/** `escalation.inboxCount`: open escalations waiting on the caller, and how many of them are overdue. */
export const inboxCountOutput = z.strictObject({ open: count, overdue: count });
