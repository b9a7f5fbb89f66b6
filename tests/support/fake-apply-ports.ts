import type { ApplyDecisionTx, DecisionApplyPorts, EscalationToApply } from "../../server/domain/apply-escalation-decision.ts";

/**
 * DecisionApplyPorts for unit tests of the callers of `applyDecision` (decideEscalation): the
 * application itself is a stand-in. `claim` calls `onApply(escalationId)` (the test marks its row
 * applied there, or does nothing) and reports the row as not claimed, so `applyEscalationDecision`
 * reads `statusOf(escalationId)` and answers as for a decision applied by someone ("applied", no
 * resumed run) or still pending ("decided"). Every other transaction port throws: a test that reaches
 * them needs the real fakes (tests/unit/domain-apply-decision.test.ts).
 */
export function fakeApplyPorts({
  onApply = () => {},
  statusOf = () => "applied",
  now = () => new Date(0),
}: {
  onApply?: (escalationId: string) => void;
  statusOf?: (escalationId: string) => string;
  now?: () => Date;
} = {}): DecisionApplyPorts {
  const unused = () => {
    throw new Error("fakeApplyPorts: only claim and read are faked");
  };
  return {
    apply: {
      atomically: (work) =>
        work({
          async claim(escalationId) {
            onApply(escalationId);
            return false;
          },
          async read(escalationId) {
            return { id: escalationId, status: statusOf(escalationId), decision: "resume", resultRunId: null } as EscalationToApply;
          },
          raiseBudgets: unused,
          copyCheckpointWithEdits: unused,
          resumePorts: new Proxy({}, { get: unused }) as ApplyDecisionTx["resumePorts"],
          endTask: unused,
          writeHumanStep: unused,
          markApplied: unused,
        }),
    },
    locate: async () => ({ taskId: "task_1", runId: "run_1", status: "decided", applyAfter: null }),
    nextStepIndex: async () => 1,
    now: async () => now(),
  };
}
