import { describe, expect, it } from "vitest";
import { advanceEvalRun, type AdvanceEvalRunPorts, type EvalCellState } from "../../server/domain/advance-eval-run.ts";
import type { EvalCheck } from "../../server/domain/eval-suite.ts";

// The eval orchestrator's tick over in-memory ports: concurrency, recording ended cells, the "fail"
// escalation policy, and a tick repeated after a crash launching nothing twice.

function world({
  cells,
  concurrency = 2,
  onEscalation = "fail" as const,
  checks = [],
}: {
  cells: number;
  concurrency?: number;
  onEscalation?: "fail" | "wait";
  checks?: EvalCheck[];
}) {
  const state = {
    status: "running",
    cells: Array.from({ length: cells }, (_, i): EvalCellState => ({ id: `c${i}`, profile: "p", repeat: i, status: "pending", taskId: null, caseId: "k" })),
    tasks: new Map<string, { status: string; escalationReason: string | null }>(),
    launches: [] as string[],
    cancelled: [] as string[],
    finished: new Map<string, { status: string; failureClass: string | null }>(),
    crashAfterLaunch: false,
  };
  const ports: AdvanceEvalRunPorts = {
    loadRun: () =>
      Promise.resolve({
        status: state.status,
        concurrency,
        onEscalation,
        createdBy: "t",
        cells: state.cells.map((c) => ({ ...c })),
        cases: new Map([["k", { key: "k", launch: { goal: "g" }, checks }]]),
      }),
    launchCell({ cellId }) {
      const taskId = `task-${cellId}`; // launch key eval-<cellId>: the same task every time
      if (!state.tasks.has(taskId)) {
        state.tasks.set(taskId, { status: "running", escalationReason: null });
        state.launches.push(taskId);
      }
      if (state.crashAfterLaunch) {
        state.crashAfterLaunch = false;
        return Promise.reject(new Error("crash"));
      }
      return Promise.resolve({ taskId });
    },
    markCellRunning(cellId, taskId) {
      const c = state.cells.find((x) => x.id === cellId)!;
      if (c.status !== "pending") return Promise.resolve(false);
      Object.assign(c, { status: "running", taskId });
      return Promise.resolve(true);
    },
    taskState: (taskId) => Promise.resolve({ ...state.tasks.get(taskId)!, endReason: null }),
    cancelTask(taskId) {
      state.cancelled.push(taskId);
      state.tasks.get(taskId)!.status = "cancelled";
      return Promise.resolve();
    },
    outcome: (_taskId, status) => Promise.resolve({ status, result: null, facts: {}, artifacts: {}, outbox: [] }),
    figures: () => Promise.resolve({ steps: 3, tokens: 10, costUsd: 0.001, wasteUsd: 0, escalations: 0, durationMs: 5 }),
    checkPorts: () => ({ expectedDemoCsv: () => Promise.resolve(null), judge: () => Promise.reject(new Error("none")) }),
    finishCell(cellId, d) {
      const c = state.cells.find((x) => x.id === cellId)!;
      if (c.status !== "running") return Promise.resolve(false);
      c.status = d.status;
      state.finished.set(cellId, { status: d.status, failureClass: d.failureClass });
      return Promise.resolve(true);
    },
    cancelPendingCells: () => Promise.resolve(0),
    completeRun() {
      state.status = "completed";
      return Promise.resolve();
    },
  };
  return { state, ports };
}

describe("advanceEvalRun", () => {
  it("keeps at most `concurrency` cells running, records ended ones, completes the run", async () => {
    const { state, ports } = world({ cells: 3, concurrency: 2 });
    expect(await advanceEvalRun({ evalRunId: "e", ports })).toMatchObject({ launched: 2, running: 2, pending: 1, done: false });
    state.tasks.get("task-c0")!.status = "completed";
    expect(await advanceEvalRun({ evalRunId: "e", ports })).toMatchObject({ finished: 1, launched: 1, running: 2, pending: 0 });
    for (const t of state.tasks.values()) t.status = "dead_end";
    expect(await advanceEvalRun({ evalRunId: "e", ports })).toMatchObject({ finished: 2, done: true });
    expect(state.status).toBe("completed");
    expect([...state.finished.values()]).toEqual([
      { status: "passed", failureClass: null },
      { status: "failed", failureClass: "dead_end" },
      { status: "failed", failureClass: "dead_end" },
    ]);
  });

  it("fails a cell waiting for a human with its escalation's class and cancels its task (policy fail)", async () => {
    const { state, ports } = world({ cells: 1 });
    await advanceEvalRun({ evalRunId: "e", ports });
    Object.assign(state.tasks.get("task-c0")!, { status: "waiting_for_human", escalationReason: "budget" });
    await advanceEvalRun({ evalRunId: "e", ports });
    expect(state.cancelled).toEqual(["task-c0"]);
    expect(state.finished.get("c0")).toEqual({ status: "failed", failureClass: "budget" });
  });

  it("leaves it waiting under policy wait", async () => {
    const { state, ports } = world({ cells: 1, onEscalation: "wait" });
    await advanceEvalRun({ evalRunId: "e", ports });
    state.tasks.get("task-c0")!.status = "waiting_for_human";
    expect(await advanceEvalRun({ evalRunId: "e", ports })).toMatchObject({ finished: 0, running: 1, done: false });
    expect(state.cancelled).toEqual([]);
  });

  it("a tick that failed after launching a cell throws (the step retries) and the retry launches nothing twice", async () => {
    const { state, ports } = world({ cells: 1 });
    state.crashAfterLaunch = true;
    await expect(advanceEvalRun({ evalRunId: "e", ports })).rejects.toThrow("crash");
    expect(state.cells[0]!.status).toBe("pending");
    await advanceEvalRun({ evalRunId: "e", ports });
    expect(state.launches).toEqual(["task-c0"]);
    expect(state.cells[0]).toMatchObject({ status: "running", taskId: "task-c0" });
  });

  it("judges the cells that ended in the same tick at once", async () => {
    const { state, ports } = world({ cells: 5, concurrency: 3, checks: [{ kind: "judge", profile: "j", rubric: "r" }] });
    await advanceEvalRun({ evalRunId: "e", ports });
    for (const t of state.tasks.values()) t.status = "completed";
    // Each judge call answers only once the three cells' calls are all in flight: judged one after
    // another, the first call would wait forever (the test times out).
    let inFlight = 0;
    let most = 0;
    const waiting: (() => void)[] = [];
    ports.checkPorts = () => ({
      expectedDemoCsv: () => Promise.resolve(null),
      judge: async () => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise<void>((answer) => {
          waiting.push(answer);
          if (inFlight === 3) for (const a of waiting.splice(0)) a();
        });
        inFlight--;
        return { pass: true, answer: "PASS", costUsd: 0.01 };
      },
    });
    expect(await advanceEvalRun({ evalRunId: "e", ports })).toMatchObject({ finished: 3, launched: 2 });
    expect(most).toBe(3);
    expect([...state.finished.values()].map((f) => f.status)).toEqual(["passed", "passed", "passed"]);
  });

  it("fails the cell, not the run, when the product refuses its launch", async () => {
    const { AppError } = await import("../../server/errors.ts");
    const { state, ports } = world({ cells: 1 });
    ports.launchCell = () => Promise.reject(new AppError("BAD_INPUT", "workspace: not a directory"));
    expect(await advanceEvalRun({ evalRunId: "e", ports })).toMatchObject({ finished: 1, done: true });
    expect(state.finished.get("c0")).toEqual({ status: "failed", failureClass: "error" });
  });
});
