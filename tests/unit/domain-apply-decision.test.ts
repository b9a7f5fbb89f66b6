import { describe, expect, it } from "vitest";
import {
  APPLY_RETRY_MAX_MS,
  applyDecision,
  applyEscalationDecision,
  applyRetryDelayMs,
  describeApplyError,
  recoverEscalationDecisions,
  type ApplyDecisionPorts,
  type ApplyDecisionTx,
  type DecisionApplyPorts,
  type EscalationToApply,
  type RecoverDecisionsPorts,
} from "../../server/domain/apply-escalation-decision.ts";

// Applying a decision over fake ports with real transaction semantics (a copy of the state that is
// committed only when the work returns): all or nothing, once, and recoverable.

interface State {
  escalation: EscalationToApply & { applyAfterPassed: boolean };
  task: { status: string; stepBudget: number };
  runs: { id: string; cause: string; checkpointId: string | null; guidance: string | null }[];
  humanSteps: string[];
  checkpoints: string[];
}

function initial(overrides: Partial<EscalationToApply> = {}): State {
  return {
    escalation: {
      id: "esc_1",
      taskId: "task_1",
      runId: "run_1",
      stepId: "escalate-3",
      reason: "risky_action",
      status: "decided",
      decision: "approve",
      decidedBy: "ann",
      decidedAt: new Date(2_000),
      createdAt: new Date(1_000),
      guidance: null,
      evidence: { tool: "send_email" },
      checkpointId: "cp_1",
      budgetIncrease: { steps: 10 },
      factEdits: null,
      deadEndReason: null,
      resultRunId: null,
      fromCheckpointForResult: null,
      applyAfterPassed: true,
      ...overrides,
    },
    task: { status: "waiting_for_human", stepBudget: 40 },
    runs: [],
    humanSteps: [],
    checkpoints: ["cp_1"],
  };
}

/** Ports over `db.state`; `crashAt` makes the named write throw (a process dying there: the copy is dropped). */
function fakePorts(db: { state: State }, crashAt?: keyof ApplyDecisionTx): ApplyDecisionPorts {
  let n = 0;
  return {
    async atomically(work) {
      const s = structuredClone(db.state);
      const crash = (name: keyof ApplyDecisionTx) => {
        if (name === crashAt) throw new Error(`crash at ${name}`);
      };
      const tx: ApplyDecisionTx = {
        async claim() {
          crash("claim");
          if (s.escalation.status !== "decided" || !s.escalation.applyAfterPassed) return false;
          s.escalation.status = "applying";
          return true;
        },
        async read() {
          return s.escalation;
        },
        async raiseBudgets(_taskId, inc) {
          crash("raiseBudgets");
          s.task.stepBudget += inc.steps ?? 0;
        },
        async copyCheckpointWithEdits() {
          const id = `cp_${s.checkpoints.length + 1}`;
          s.checkpoints.push(id);
          return id;
        },
        resumePorts: {
          newRunId: () => `run_${++n + 1}`,
          taskStatus: async () => s.task.status,
          findCheckpoint: async (_t, id) => (id ? { id } : null),
          claimTaskAndCreateRun: async ({ runId, from, cause, checkpointId, guidance }) => {
            if (!from.includes(s.task.status)) return false;
            s.task.status = "queued";
            s.runs.push({ id: runId, cause, checkpointId, guidance });
            return true;
          },
          sendRunStarted: async () => {},
          failLaunch: async () => {},
        },
        async endTask({ status }) {
          if (s.task.status === "waiting_for_human") s.task.status = status;
        },
        async writeHumanStep({ stepId }) {
          crash("writeHumanStep");
          if (!s.humanSteps.includes(stepId)) s.humanSteps.push(stepId);
        },
        async markApplied({ resultRunId, fromCheckpointId }) {
          crash("markApplied");
          Object.assign(s.escalation, { status: "applied", resultRunId, fromCheckpointForResult: fromCheckpointId });
        },
      };
      const result = await work(tx);
      db.state = s; // commit
      return result;
    },
  };
}

describe("applyEscalationDecision", () => {
  it("applies once: budgets, a resumed run with the guidance, the human step, applied; a second call returns the same run", async () => {
    const db = { state: initial() };
    const first = await applyEscalationDecision({ escalationId: "esc_1", stepIndex: 7, ports: fakePorts(db) });
    const second = await applyEscalationDecision({ escalationId: "esc_1", stepIndex: 7, ports: fakePorts(db) });
    expect(first).toEqual({ start: { runId: "run_2", checkpointId: "cp_1" }, decision: "approve" });
    expect(second).toEqual({ start: { runId: "run_2", checkpointId: "cp_1" }, decision: "approve" });
    expect(db.state.runs).toEqual([
      { id: "run_2", cause: "resume", checkpointId: "cp_1", guidance: "The proposed action was approved by ann: go ahead with it." },
    ]);
    expect(db.state.task).toEqual({ status: "queued", stepBudget: 50 });
    expect(db.state.humanSteps).toEqual(["human-escalate-3"]);
    expect(db.state.escalation.status).toBe("applied");
  });

  it.each(["raiseBudgets", "writeHumanStep", "markApplied"] as const)(
    "a crash at %s keeps nothing: still decided, and the next call applies it once",
    async (point) => {
      const db = { state: initial() };
      await expect(applyEscalationDecision({ escalationId: "esc_1", stepIndex: 7, ports: fakePorts(db, point) })).rejects.toThrow(`crash at ${point}`);
      expect(db.state).toEqual(initial());
      await applyEscalationDecision({ escalationId: "esc_1", stepIndex: 7, ports: fakePorts(db) });
      expect({ runs: db.state.runs.length, stepBudget: db.state.task.stepBudget, status: db.state.escalation.status }).toEqual({
        runs: 1,
        stepBudget: 50,
        status: "applied",
      });
    },
  );

  it("inside the undo window: pending, nothing changes; dead_end ends the task; a task that moved on closes the decision as not applied", async () => {
    const db = { state: initial({}) };
    db.state.escalation.applyAfterPassed = false;
    expect(await applyEscalationDecision({ escalationId: "esc_1", stepIndex: 7, ports: fakePorts(db) })).toEqual({
      start: null,
      decision: "approve",
      pending: true,
    });
    const dead = { state: initial({ decision: "dead_end", deadEndReason: "no way", reason: "stall" }) };
    expect(await applyEscalationDecision({ escalationId: "esc_1", stepIndex: 7, ports: fakePorts(dead) })).toEqual({ start: null, decision: "dead_end" });
    expect(dead.state.task.status).toBe("dead_end");
    const moved = { state: initial() };
    moved.state.task.status = "running";
    expect(await applyEscalationDecision({ escalationId: "esc_1", stepIndex: 7, ports: fakePorts(moved) })).toEqual({ start: null, decision: "approve" });
    expect({ status: moved.state.escalation.status, runs: moved.state.runs }).toEqual({ status: "applied", runs: [] });
  });
});

describe("applyDecision (the one entry point of the four callers)", () => {
  const entryPorts = (db: { state: State }, applyAfter: Date | null, nowMs = 5_000): DecisionApplyPorts => ({
    apply: fakePorts(db),
    locate: async () => ({ taskId: "task_1", runId: "run_1", status: db.state.escalation.status, applyAfter }),
    nextStepIndex: async () => 9,
    now: async () => new Date(nowMs),
  });

  it.each([
    {
      name: "due, no applyAt: applied with the resumed run and its task",
      applyAfter: null,
      applyAt: undefined,
      passed: true,
      status: "decided",
      want: { outcome: "applied", decision: "approve", start: { taskId: "task_1", runId: "run_2", checkpointId: "cp_1" } },
    },
    {
      name: "applyAt matches and the window is over: applied",
      applyAfter: new Date(4_000),
      applyAt: new Date(4_000),
      passed: true,
      status: "decided",
      want: { outcome: "applied", decision: "approve", start: { taskId: "task_1", runId: "run_2", checkpointId: "cp_1" } },
    },
    {
      name: "applyAt differs from the row (undone or decided again): superseded, nothing applied",
      applyAfter: new Date(9_000),
      applyAt: new Date(4_000),
      passed: true,
      status: "decided",
      want: { outcome: "superseded", status: "decided" },
    },
    {
      name: "undone (no applyAfter) while escalation-apply slept: superseded",
      applyAfter: null,
      applyAt: new Date(4_000),
      passed: true,
      status: "open",
      want: { outcome: "superseded", status: "open" },
    },
    {
      name: "window not over by the database clock: not_due with the ms left",
      applyAfter: new Date(8_000),
      applyAt: new Date(8_000),
      passed: false,
      status: "decided",
      want: { outcome: "not_due", decision: "approve", waitMs: 3_000 },
    },
    {
      name: "a committed applying row of another caller: by_other",
      applyAfter: null,
      applyAt: undefined,
      passed: true,
      status: "applying",
      want: { outcome: "by_other", decision: "approve" },
    },
  ])("$name", async ({ applyAfter, applyAt, passed, status, want }) => {
    const db = { state: initial() };
    db.state.escalation.applyAfterPassed = passed;
    db.state.escalation.status = status;
    expect(await applyDecision({ escalationId: "esc_1", applyAt, ports: entryPorts(db, applyAfter) })).toEqual(want);
    expect(db.state.runs).toHaveLength(want.outcome === "applied" ? 1 : 0);
  });

  it("the human step goes at the caller's index, else at the run's next one; a second caller finds it applied with the same run", async () => {
    const db = { state: initial() };
    const first = await applyDecision({ escalationId: "esc_1", stepIndex: 4, ports: entryPorts(db, null) });
    const second = await applyDecision({ escalationId: "esc_1", ports: entryPorts(db, null) });
    expect(second).toEqual(first);
    expect(db.state.runs).toHaveLength(1);
  });
});

describe("recoverEscalationDecisions", () => {
  function recoverPorts(db: { state: State }, rows: { stuck?: string[]; due?: boolean; unstarted?: boolean }) {
    const sent: string[] = [];
    const ports: RecoverDecisionsPorts = {
      findStuckApplying: async () => rows.stuck ?? [],
      revertApplying: async () => {
        if (db.state.escalation.status !== "applying") return false;
        db.state.escalation.status = "decided";
        return true;
      },
      findUnappliedDue: async () =>
        rows.due && db.state.escalation.status === "decided"
          ? [{ escalationId: "esc_1", taskId: "task_1", runId: "run_1", applyFailures: 0, msSinceFailure: null }]
          : [],
      recordApplyFailure: async () => false,
      findUnstartedResults: async () =>
        rows.unstarted ? [{ escalationId: "esc_9", taskId: "task_9", runId: "run_9", checkpointId: null, decision: "resume" }] : [],
      nextStepIndex: async () => 8,
      locate: async () => ({ taskId: "task_1", runId: "run_1", status: db.state.escalation.status, applyAfter: null }),
      now: async () => new Date(0),
      apply: fakePorts(db),
      sendRunStarted: async ({ runId }) => void sent.push(`started ${runId}`),
      sendApplied: async ({ escalationId }) => void sent.push(`applied ${escalationId}`),
    };
    return { ports, sent };
  }

  it("reverts a committed applying row and applies it; applies a due decision nobody applied; re-sends a lost start; idempotent", async () => {
    const db = { state: initial() };
    db.state.escalation.status = "applying";
    const { ports, sent } = recoverPorts(db, { stuck: ["esc_1"], due: true, unstarted: true });
    expect(await recoverEscalationDecisions({ ports, graceMs: 0 })).toEqual({ reverted: ["esc_1"], applied: ["esc_1"], restarted: ["esc_9"], failed: [] });
    expect(sent).toEqual(["started run_2", "applied esc_1", "started run_9", "applied esc_9"]);
    expect(db.state.runs).toHaveLength(1);
    // A second pass finds nothing left to apply.
    const again = recoverPorts(db, { stuck: [], due: true });
    expect(await recoverEscalationDecisions({ ports: again.ports, graceMs: 0 })).toEqual({ reverted: [], applied: [], restarted: [], failed: [] });
    expect(db.state.runs).toHaveLength(1);
  });

  it("a decision whose application fails is recorded as failed and left decided; the next one is still applied", async () => {
    const bad = { state: initial({ id: "esc_bad" }) };
    const good = { state: initial() };
    const failures: { escalationId: string; error: string }[] = [];
    let call = 0;
    const { ports, sent } = recoverPorts(good, {});
    ports.findUnappliedDue = async () => [
      { escalationId: "esc_bad", taskId: "task_1", runId: "run_1", applyFailures: 0, msSinceFailure: null },
      { escalationId: "esc_1", taskId: "task_1", runId: "run_1", applyFailures: 0, msSinceFailure: null },
    ];
    // The first application crashes inside its transaction (the checkpoint it copies is gone); the second works.
    ports.apply = { atomically: (work) => (call++ === 0 ? fakePorts(bad, "raiseBudgets") : fakePorts(good)).atomically(work) };
    ports.recordApplyFailure = async (f) => {
      failures.push(f);
      return true;
    };
    expect(await recoverEscalationDecisions({ ports, graceMs: 0 })).toEqual({
      reverted: [],
      applied: ["esc_1"],
      restarted: [],
      failed: [{ escalationId: "esc_bad", error: "crash at raiseBudgets" }],
    });
    expect(failures).toEqual([{ escalationId: "esc_bad", error: "crash at raiseBudgets" }]);
    // Nothing of the failed application was committed: still decided, no run, no human step.
    expect({ status: bad.state.escalation.status, runs: bad.state.runs, steps: bad.state.humanSteps }).toEqual({ status: "decided", runs: [], steps: [] });
    expect(good.state.escalation.status).toBe("applied");
    expect(sent).toEqual(["started run_2", "applied esc_1"]);
  });

  it("a decision that failed is tried again only after its backoff", async () => {
    const db = { state: initial() };
    const { ports } = recoverPorts(db, {});
    let row = { escalationId: "esc_1", taskId: "task_1", runId: "run_1", applyFailures: 2, msSinceFailure: 59_999 };
    ports.findUnappliedDue = async () => [row];
    expect(await recoverEscalationDecisions({ ports, graceMs: 0 })).toMatchObject({ applied: [], failed: [] });
    expect(db.state.escalation.status).toBe("decided");
    row = { ...row, msSinceFailure: 60_000 };
    expect(await recoverEscalationDecisions({ ports, graceMs: 0 })).toMatchObject({ applied: ["esc_1"], failed: [] });
    expect(db.state.escalation.status).toBe("applied");
  });

  it.each([
    [0, 0],
    [1, 30_000],
    [2, 60_000],
    [5, 480_000],
    [8, APPLY_RETRY_MAX_MS],
    [1_000, APPLY_RETRY_MAX_MS],
  ])("applyRetryDelayMs(%i failures) = %i ms", (failures, ms) => {
    expect(applyRetryDelayMs(failures)).toBe(ms);
  });

  it("describeApplyError names the error", () => {
    expect(describeApplyError(new TypeError("x is undefined"))).toBe("TypeError: x is undefined");
    expect(describeApplyError(new Error("checkpoint gone"))).toBe("checkpoint gone");
    expect(describeApplyError(new Error(""))).toBe("applying the decision failed without an error message");
    expect(describeApplyError("boom")).toBe("boom");
  });
});
