import { describe, expect, it } from "vitest";
import type { RunPorts } from "../../server/agent/ports.ts";
import { runApplyDecisionStep, runEndOf, runEscalateStep, runStartStep } from "../../server/agent/run-steps.ts";

// The bodies of the run's own steps (server/agent/run-steps.ts) over fake ports: what each asks
// of the ports and returns, without a database or an executor.

const ids = { taskId: "task_1", runId: "run_1" };

describe("runStartStep (step `start`)", () => {
  it("waits for a cancelled run's steps only in a run's first segment, and warns with what is still running", async () => {
    const calls: string[] = [];
    const warnings: string[] = [];
    const ports: Pick<RunPorts<{ from: string | null }>, "settleCancelledSteps" | "startSegment"> = {
      settleCancelledSteps: async () => {
        calls.push("settle");
        return { settled: false, waitedMs: 10_000, running: ["tool-3-0"] };
      },
      startSegment: async ({ checkpointId }) => {
        calls.push(`start ${checkpointId}`);
        return { from: checkpointId };
      },
    };
    const first = await runStartStep({ ports, ...ids, checkpointId: null, segment: 1, warn: (m) => warnings.push(m) });
    expect(first).toEqual({ from: null });
    expect(warnings).toEqual(["[agent-run] task task_1 run run_1: starts with step(s) tool-3-0 of a cancelled run still running after 10000 ms"]);
    const later = await runStartStep({ ports, ...ids, checkpointId: "cp_2", segment: 2, warn: (m) => warnings.push(m) });
    expect(later).toEqual({ from: "cp_2" });
    expect(calls).toEqual(["settle", "start null", "start cp_2"]);
    expect(warnings).toHaveLength(1);
  });
});

describe("runEscalateStep (step `escalate-<n>`)", () => {
  it("records the critical alert on the last step, then opens the escalation at the checkpoint", async () => {
    const calls: { method: string; input: unknown }[] = [];
    const escalation = await runEscalateStep({
      ports: {
        recordAlert: async (input) => void calls.push({ method: "recordAlert", input }),
        openEscalation: async (input) => {
          calls.push({ method: "openEscalation", input });
          return { escalationId: "esc_1" };
        },
      },
      ...ids,
      stepId: "escalate-7",
      lastStepId: "tool-6-0",
      checkpointId: "cp_3",
      action: {
        kind: "escalate",
        n: 7,
        reason: "loop",
        message: "the same call three times",
        evidence: { calls: 3 },
        endReason: "loop",
        fingerprint: null,
        checkpointFirst: null,
        alertKind: "loop",
      },
    });
    expect(escalation).toEqual({ escalationId: "esc_1" });
    expect(calls).toEqual([
      {
        method: "recordAlert",
        input: { ...ids, stepId: "tool-6-0", kind: "loop", severity: "critical", message: "the same call three times", evidence: { calls: 3 } },
      },
      {
        method: "openEscalation",
        input: {
          ...ids,
          stepId: "escalate-7",
          reason: "loop",
          message: "the same call three times",
          evidence: { calls: 3 },
          checkpointId: "cp_3",
          endReason: "loop",
          fingerprint: null,
        },
      },
    ]);
  });
});

describe("runApplyDecisionStep (step `apply-decision-<n>`)", () => {
  const apply = (outcome: Awaited<ReturnType<RunPorts["applyEscalationDecision"]>>) => {
    const seen: unknown[] = [];
    const ports = {
      applyEscalationDecision: async (input: { escalationId: string; stepIndex: number }) => {
        seen.push(input);
        return outcome;
      },
    };
    return { seen, run: () => runApplyDecisionStep({ ports, escalationId: "esc_1", stepIndex: 12 }) };
  };

  it("returns the run a resume started, with the human step at the given index", async () => {
    const { seen, run } = apply({ outcome: "applied", decision: "resume", start: { taskId: "task_1", runId: "run_2", checkpointId: "cp_3" } });
    expect(await run()).toEqual({ start: { runId: "run_2", checkpointId: "cp_3" }, decision: "resume" });
    expect(seen).toEqual([{ escalationId: "esc_1", stepIndex: 12 }]);
  });

  it("returns no start for a decision that starts nothing, and an empty decision for a superseded one", async () => {
    expect(await apply({ outcome: "applied", decision: "dead_end", start: null }).run()).toEqual({ start: null, decision: "dead_end" });
    expect(await apply({ outcome: "superseded", status: "applied" }).run()).toEqual({ start: null, decision: "" });
  });

  it("throws while another caller applies it, so the step is retried and reads the outcome", async () => {
    await expect(apply({ outcome: "by_other", decision: "resume" }).run()).rejects.toThrow("escalation esc_1 is being applied by another caller");
  });
});

describe("runEndOf (what step `end` writes)", () => {
  it("finish: completed, with gaps only when there are some", () => {
    expect(runEndOf(ids, { kind: "finish", summary: "done", gaps: [] })).toEqual({
      ...ids,
      runStatus: "completed",
      taskStatus: "completed",
      result: { summary: "done" },
      outcome: "completed",
    });
    expect(runEndOf(ids, { kind: "finish", summary: "done", gaps: ["no license for x"] })).toEqual({
      ...ids,
      runStatus: "completed",
      taskStatus: "completed",
      result: { summary: "done", gaps: ["no license for x"] },
      outcome: "completed_with_gaps",
    });
  });

  it("dead_end and fail: the reason and the error as the action gives them", () => {
    expect(runEndOf(ids, { kind: "dead_end", reason: "nothing to audit" })).toEqual({
      ...ids,
      runStatus: "dead_end",
      taskStatus: "dead_end",
      deadEndReason: "nothing to audit",
    });
    expect(runEndOf(ids, { kind: "fail", endReason: "transient", error: "HTTP 503", checkpointFirst: null, autoResume: true })).toEqual({
      ...ids,
      runStatus: "failed",
      taskStatus: "failed",
      endReason: "transient",
      error: "HTTP 503",
    });
  });
});
