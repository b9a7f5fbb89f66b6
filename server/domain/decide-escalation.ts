import { z } from "zod";
import { AppError } from "../errors.ts";

export const ESCALATION_DECISIONS = ["resume", "approve", "reject", "dead_end", "cancel"] as const;
export type EscalationDecision = (typeof ESCALATION_DECISIONS)[number];

/** A handler's decision (validated at the tRPC boundary). */
export const decideEscalationInputSchema = z
  .object({
    escalationId: z.string().min(1).max(100),
    decision: z.enum(ESCALATION_DECISIONS),
    guidance: z.string().trim().max(10_000, "guidance: at most 10000 characters").optional(),
    budgetIncrease: z
      .object({
        steps: z.number().int().min(0).max(100_000, "budgetIncrease.steps: at most 100000").optional(),
        tokens: z.number().int().min(0).max(1_000_000_000).optional(),
      })
      .optional(),
    factEdits: z.record(z.string().min(1).max(200), z.unknown()).optional(),
    deadEndReason: z.string().trim().max(4_000).optional(),
  })
  .refine((v) => v.decision !== "dead_end" || (v.deadEndReason ?? "").length > 0, { message: "deadEndReason: required to mark a dead end", path: ["deadEndReason"] });
export type DecideEscalationInput = z.output<typeof decideEscalationInputSchema>;

export interface DecidePorts {
  /**
   * Guarded write: the escalation moves from `open` to `decided` with the decision, who and when.
   * Returns null when it was not open (decided already, by someone else or by a double click),
   * with who decided it.
   */
  recordDecision(input: DecideEscalationInput & { actor: string }): Promise<{ ok: true } | { ok: false; status: string; decidedBy: string | null; decision: string | null } | null>;
  /** Tells the escalated run the decision is applied (`longhaul/escalation.applied`). */
  sendApplied(event: { escalationId: string; decision: EscalationDecision }): Promise<void>;
  /** Applies the recorded decision now (idempotent with the waiting run applying it). */
  applyNow(escalationId: string): Promise<void>;
}

/**
 * Records a human decision on an escalation (stored on the row first), applies it, then tells the
 * waiting run (`longhaul/escalation.applied`), which ends. Applying here rather than only
 * in the waiting run closes the race of a decision sent between the run's read of the row and its
 * wait being registered (events are not retroactive). Takes effect once: a second click, or a second
 * handler at the same time, gets CONFLICT naming who decided.
 * @throws AppError NOT_FOUND, CONFLICT.
 */
export async function decideEscalation({ input, actor, ports }: { input: DecideEscalationInput; actor: string; ports: DecidePorts }): Promise<{ escalationId: string; decision: EscalationDecision }> {
  const recorded = await ports.recordDecision({ ...input, actor });
  if (recorded === null) throw new AppError("NOT_FOUND", `escalation ${input.escalationId} not found`);
  if (!recorded.ok) {
    throw new AppError("CONFLICT", `escalation ${input.escalationId} is already ${recorded.status}${recorded.decision ? ` (${recorded.decision} by ${recorded.decidedBy ?? "someone"})` : ""}`);
  }
  await ports.applyNow(input.escalationId);
  // Wakes the waiting run so it can end; best-effort (its wait also times out and re-reads the row).
  await ports.sendApplied({ escalationId: input.escalationId, decision: input.decision }).catch(() => {});
  return { escalationId: input.escalationId, decision: input.decision };
}
