import { MODEL_ERROR_RETRYABLE } from "../model-error-kinds.ts";
import type { CheckpointReason } from "../checkpoint.ts";
import type { Alert } from "../detectors.ts";
import type { LoopEscalationReason, LoopModelErrorKind } from "./types.ts";

// The agent loop's reason tables: one reason to another (escalation → checkpoint reason and alert
// kind, alert → escalation reason, model error → end reason).

/** The checkpoint reason taken before an escalation of `reason`. */
export function checkpointReasonForEscalation(reason: LoopEscalationReason): CheckpointReason {
  switch (reason) {
    case "budget":
      return "ceiling";
    case "manual":
      return "on_request";
    case "risky_action":
      return "before_risky";
    case "unresolved_effect":
      return "failure";
    default:
      return reason;
  }
}

/** The alert kind recorded with an escalation of `reason` (human-initiated ones are "escalation"). */
export function alertKindForEscalation(reason: LoopEscalationReason): string {
  return reason === "request_human" || reason === "risky_action" || reason === "unresolved_effect" ? "escalation" : reason;
}

/** The escalation reason for an escalating detector alert (budget ceilings are enforced apart). */
export function escalationReasonOfAlert(alert: Alert): "loop" | "stall" | "tool_failure" {
  return alert.kind === "loop" || alert.kind === "tool_failure" ? alert.kind : "stall";
}

/**
 * The end reason of a model call that failed for good: the retryable kinds (llm/errors.ts
 * MODEL_ERROR_RETRYABLE: the provider or the network was down) are `transient` — the profile may auto-resume — the rest `error`.
 */
export function endReasonOfModelError(kind: LoopModelErrorKind): "transient" | "error" {
  return kind !== "step_error" && MODEL_ERROR_RETRYABLE[kind] ? "transient" : "error";
}
