/**
 * Escalations: the feature's front door. Everything above server/db, server/domain and server/tools
 * (routers, Inngest functions and their ports, the step bodies, route handlers, the benchmarks)
 * imports the feature from here, never its modules (the dependency rule front-door-escalations).
 * Re-exports only, by name; its map and its playbooks are in README.md beside it.
 */
export {
  factValueProblem,
  decisionTargetProblems,
  claimConflictMessage,
  describeEscalationConflict,
  decideEscalation,
  undoEscalationDecision,
  applyDecisionNow,
  claimEscalation,
  releaseEscalation,
  ESCALATION_DECISIONS,
  MAX_UNDO_SECONDS,
  MAX_EXTRA_STEPS,
  MAX_EXTRA_TOKENS,
  MAX_EXTRA_USD,
  MAX_TOKEN_BUDGET,
  MAX_COST_BUDGET_USD,
  APPROVAL_REASONS,
  decisionsFor,
  MAX_FACT_KEY_LENGTH,
  MAX_FACT_VALUE_BYTES,
  MAX_FACT_EDITS,
  decideEscalationInputSchema,
  undoEscalationInputSchema,
  applyNowInputSchema,
  claimEscalationInputSchema,
} from "../../domain/decide-escalation.ts";
export type {
  EscalationDecision,
  DecideEscalationInput,
  ClaimEscalationInput,
  EscalationState,
  GuardedWrite,
  DecisionTarget,
  DecidePorts,
  ClaimPorts,
} from "../../domain/decide-escalation.ts";
export {
  resumeGuidance,
  applyEscalationDecision,
  applyDecision,
  applyRetryDelayMs,
  describeApplyError,
  recoverEscalationDecisions,
  APPLY_RETRY_BASE_MS,
  APPLY_RETRY_MAX_MS,
} from "../../domain/apply-escalation-decision.ts";
export type {
  BudgetIncrease,
  EscalationToApply,
  ApplyDecisionTx,
  ApplyDecisionPorts,
  ApplyDecisionResult,
  DecisionApplyPorts,
  ApplyOutcome,
  RecoverDecisionsPorts,
  ApplyFailurePorts,
} from "../../domain/apply-escalation-decision.ts";
export {
  chainRoleForRound,
  timeoutPlanOf,
  clockOf,
  escalationTimeoutPlan,
  escalationWaitAction,
  ESCALATION_LAST_WAIT_ROUND,
} from "../../domain/escalation-wait.ts";
export type { EscalationTimeoutPlan, DecisionView, EscalationWaitAction } from "../../domain/escalation-wait.ts";
export { openEscalation, readDecision, dbNow, prismaDecidePorts, undoDecision, endUndoWindow, prismaClaimPorts } from "../../db/escalation-repository.ts";
export {
  listEscalations,
  getEscalationCardOrThrow,
  inboxCountsFor,
  egressEvidenceSchema,
  proposedCallSchema,
  ceilingEvidenceSchema,
  unresolvedEffectSchema,
  requestEscalation,
} from "../../db/escalation-queries.ts";
export { emailRecipientsForRole, emailRecipientsForAssignee, webhookUrlForRole, notifyEscalation } from "../../db/escalation-notify.ts";
export type { EscalationNotifyResult } from "../../db/escalation-notify.ts";
export { prismaApplyDecisionPorts, prismaDecisionApplyPorts, recordApplyFailure, prismaRecoverDecisionsPorts } from "../../db/apply-decision-ports.ts";
export { findRiskyVerdict, settleEffectByVerdict } from "../../db/approval-repository.ts";
export type { RiskyVerdict } from "../../db/approval-repository.ts";
