/**
 * Output shapes several procedures share (server/api/output-schemas-*.ts build on them): amounts,
 * stored JSON, what a launch answers, where something is managed as code. Strict objects like the
 * rest: a field the code returns and the contract does not name fails the call
 * (INTERNAL_SERVER_ERROR, "Output validation failed") instead of reaching the client unchecked.
 */
import { z } from "zod";
import type { CodeSource } from "../features/profiles/index.ts";
import type { FactChange } from "../domain/checkpoint.ts";
import type { EscalationTimeoutPlan } from "../../lib/contracts/escalation-timeout.ts";
import type { WasteSplit } from "../features/costs/index.ts";

/** USD as a plain number. */
export const usd = z.number().finite();
/** A count: a whole number, 0 or more. */
export const count = z.number().int().nonnegative();
/** A stored JSON value (a run's data: checked only as JSON, it is untrusted and free-form). */
export const json = z.json();

/** What a launch answers (`task.launch`, `profile.smoke`, and `template.launch` with more): `deduplicated` when the launch key was seen before. */
export const launchResultShape = { taskId: z.string(), runId: z.string(), deduplicated: z.boolean() };
export const launchResultOutput = z.strictObject(launchResultShape);

/** The run a request lands on (`task.requestCheckpoint`, `escalation.request`). */
export const runIdOutput = z.strictObject({ runId: z.string() });

/** Where a profile or MCP server is managed as code (server/db/code-managed.ts), or null when edited in the browser. */
export const codeSourceOutput: z.ZodType<CodeSource> = z.strictObject({ source: z.string(), appliedBy: z.string(), appliedAt: z.date() });

/** One working-set change between two states: `before` absent when added, `after` when removed. */
export const factChangeShape = {
  key: z.string(),
  kind: z.enum(["added", "changed", "removed"]),
  before: z.unknown().optional(),
  after: z.unknown().optional(),
};
export const factChangeOutput: z.ZodType<FactChange> = z.strictObject(factChangeShape);

/** While an escalation is open, what happens when its wait times out (lib/contracts/escalation-timeout.ts). */
export const timeoutPlanOutput: z.ZodType<EscalationTimeoutPlan> = z.strictObject({
  reminders: count,
  remindersSent: count,
  nextReminder: count.nullable(),
  nextRole: z.string().nullable(),
  nextTimeoutAt: z.date().nullable(),
  rearmMinutes: count,
});

/** Wasted spend by kind (server/db/cost-repository.ts WasteSplit). */
export const wasteSplitOutput: z.ZodType<WasteSplit> = z.strictObject({ retryUsd: usd, replayUsd: usd, discardedUsd: usd, restartUsd: usd });
