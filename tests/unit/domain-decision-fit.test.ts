import { describe, expect, it } from "vitest";
import {
  decideEscalation,
  decideEscalationInputSchema,
  decisionsFor,
  decisionTargetProblems,
  type DecidePorts,
  type DecisionTarget,
} from "../../server/domain/decide-escalation.ts";
import { AppError } from "../../server/errors.ts";
import { fakeApplyPorts } from "../support/fake-apply-ports.ts";

// A decision must fit its escalation: approve / reject only where a call is proposed (risky_action,
// unresolved_effect); every other reason takes resume, dead_end or cancel. Refused BAD_INPUT before
// anything is recorded, naming the decisions that fit.

const target = (reason: string): DecisionTarget => ({ taskId: "task_1", reason, tokenBudget: null, costBudgetUsd: 1, hasCheckpoint: true });
const parse = (decision: string) =>
  decideEscalationInputSchema.parse({ escalationId: "esc_1", decision, ...(decision === "dead_end" ? { deadEndReason: "no way" } : {}) });

describe("decisionsFor", () => {
  it.each([
    ["risky_action", ["resume", "approve", "reject", "dead_end", "cancel"]],
    ["unresolved_effect", ["resume", "approve", "reject", "dead_end", "cancel"]],
    ["budget", ["resume", "dead_end", "cancel"]],
    ["loop", ["resume", "dead_end", "cancel"]],
    ["stall", ["resume", "dead_end", "cancel"]],
    ["saturation", ["resume", "dead_end", "cancel"]],
    ["tool_failure", ["resume", "dead_end", "cancel"]],
    ["request_human", ["resume", "dead_end", "cancel"]],
    ["manual", ["resume", "dead_end", "cancel"]],
  ])("%s → %j", (reason, decisions) => {
    expect(decisionsFor(reason)).toEqual(decisions);
  });
});

describe("decisionTargetProblems: the decision fits the escalation", () => {
  it.each(["budget", "loop", "stall", "request_human", "manual"])("approve and reject are refused for %s, naming what fits", (reason) => {
    for (const decision of ["approve", "reject"]) {
      expect(decisionTargetProblems(parse(decision), target(reason))).toEqual([
        `decision: ${decision} does not fit a ${reason} escalation (only risky_action and unresolved_effect escalations propose a call to approve or reject); decide one of resume, dead_end, cancel`,
      ]);
    }
  });

  it("every decision fits a risky_action or unresolved_effect escalation; resume, dead_end and cancel fit every reason", () => {
    for (const reason of ["risky_action", "unresolved_effect"]) {
      for (const decision of ["resume", "approve", "reject", "dead_end", "cancel"]) expect(decisionTargetProblems(parse(decision), target(reason))).toEqual([]);
    }
    for (const decision of ["resume", "dead_end", "cancel"]) expect(decisionTargetProblems(parse(decision), target("stall"))).toEqual([]);
  });

  it("decideEscalation refuses a misfit BAD_INPUT and records nothing", async () => {
    const recorded: unknown[] = [];
    const ports: DecidePorts = {
      describeTarget: () => Promise.resolve(target("loop")),
      recordDecision: (input) => {
        recorded.push(input);
        return Promise.resolve({ ok: true, applyAfter: null });
      },
      sendApplied: () => Promise.resolve(),
      sendDecided: () => Promise.resolve(),
      apply: fakeApplyPorts(),
      sendRunStarted: () => Promise.resolve(),
      undoDecision: () => Promise.resolve(null),
      endUndoWindow: () => Promise.resolve(null),
    };
    const err = await decideEscalation({ input: parse("approve"), actor: "ann", ports }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({
      code: "BAD_INPUT",
      message: expect.stringMatching(/^decision: approve does not fit a loop escalation .*decide one of resume, dead_end, cancel$/) as unknown,
    });
    expect(recorded).toEqual([]);
  });
});
