import pLimit from "p-limit";
import { TERMINAL_TASK_STATUSES } from "../../lib/contracts/status.ts";
import type { EvalCellStatus, EvalOnEscalation } from "../../lib/contracts/eval.ts";
import { AppError } from "../errors.ts";
import { classifyEvalFailure, runEvalChecks, type EvalCheckPorts, type EvalCheckResult, type EvalOutcome } from "./eval-checks.ts";
import type { EvalCaseLaunch, EvalCheck } from "./eval-suite.ts";

/** Task statuses at which a cell's task has ended for good. */
const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_TASK_STATUSES);

/** A cell as the orchestrator sees it. */
export interface EvalCellState {
  id: string;
  profile: string;
  repeat: number;
  status: EvalCellStatus;
  taskId: string | null;
  caseId: string;
}

/** The figures of a cell's task when it ended (money USD). */
export interface EvalTaskFigures {
  steps: number;
  tokens: number;
  costUsd: number;
  wasteUsd: number;
  escalations: number;
  durationMs: number | null;
}

/** Ports of {@link advanceEvalRun} (implemented over Prisma in server/db/eval-ports.ts). */
export interface AdvanceEvalRunPorts {
  loadRun(evalRunId: string): Promise<{
    status: string;
    concurrency: number;
    onEscalation: EvalOnEscalation;
    createdBy: string;
    cells: EvalCellState[];
    cases: Map<string, { key: string; launch: EvalCaseLaunch; checks: EvalCheck[] }>;
  } | null>;
  /**
   * Launches the cell's task through the product's launch use case (launchTask) with launch key
   * `eval-<cellId>`, so a repeat after a crash returns the same task; returns its id.
   */
  launchCell(options: { cellId: string; profile: string; launch: EvalCaseLaunch; actor: string }): Promise<{ taskId: string }>;
  /** Guarded write pending → running with the task id; false when the cell had left pending. */
  markCellRunning(cellId: string, taskId: string | null): Promise<boolean>;
  /** The task's status, its open escalation's reason and its last run's end reason. */
  taskState(taskId: string): Promise<{ status: string; escalationReason: string | null; endReason: string | null }>;
  /** Cancels the task (the cancel use case), for the "fail" escalation policy and a cancelled eval run. */
  cancelTask(taskId: string, actor: string): Promise<void>;
  /** What the task left behind, for the checks. */
  outcome(taskId: string, status: string): Promise<EvalOutcome>;
  figures(taskId: string): Promise<EvalTaskFigures>;
  checkPorts(options: { taskId: string; launch: EvalCaseLaunch }): EvalCheckPorts;
  /** Guarded write running → passed/failed/cancelled; false when another tick recorded it first. */
  finishCell(
    cellId: string,
    data: {
      status: Exclude<EvalCellStatus, "pending" | "running">;
      taskStatus: string;
      failureClass: string | null;
      checkResults: EvalCheckResult[];
      judgeCostUsd: number;
    } & EvalTaskFigures,
  ): Promise<boolean>;
  /** Pending cells → cancelled (a cancelled eval run). */
  cancelPendingCells(evalRunId: string): Promise<number>;
  /** Guarded write running → completed (endedAt now) for the eval run. */
  completeRun(evalRunId: string): Promise<void>;
}

/** What one tick did: cells it finished and launched, and whether the eval run is over. */
export interface AdvanceEvalRunResult {
  finished: number;
  launched: number;
  running: number;
  pending: number;
  done: boolean;
}

/**
 * One tick of an eval run (the `eval-run` Inngest function calls it in a step, then sleeps):
 * 1. records every running cell whose task has ended — checks run, failure classed, figures read;
 *    up to `concurrency` cells at once, so cells that ended together wait on one round of judge
 *    calls (each up to JUDGE_ATTEMPTS calls with back-off) rather than one after another
 *    (under the "fail" policy a task waiting for a human is cancelled and fails with its
 *    escalation's class; under "wait" it stays running until a human decides);
 * 2. launches pending cells, up to `concurrency` running at once, in (case, profile, repeat) order;
 * 3. completes the eval run when no cell is pending or running.
 * A cancelled eval run cancels its running cells' tasks and its pending cells instead.
 * Safe to repeat after a crash at any point: launches are idempotent on `eval-<cellId>` and every
 * cell write is guarded, so no case is lost and none runs twice.
 * @throws when the eval run does not exist, and any retryable error (the step retries); a launch the
 *   product refuses (a non-retryable AppError: BAD_INPUT, CONFLICT) fails that cell (class `error`).
 */
export async function advanceEvalRun({ evalRunId, ports }: { evalRunId: string; ports: AdvanceEvalRunPorts }): Promise<AdvanceEvalRunResult> {
  const run = await ports.loadRun(evalRunId);
  if (!run) throw new Error(`eval run ${evalRunId} not found`);
  let finished = 0;
  let launched = 0;
  const running = run.cells.filter((c) => c.status === "running");
  if (run.status === "cancelled") {
    for (const cell of running) if (cell.taskId) await ports.cancelTask(cell.taskId, run.createdBy);
    await ports.cancelPendingCells(evalRunId);
  }
  const atMost = pLimit(Math.max(1, run.concurrency));
  const endCell = async (cell: EvalCellState, taskId: string) => {
    const state = await ports.taskState(taskId);
    let taskStatus = state.status;
    if (!TERMINAL.has(taskStatus)) {
      if (!(taskStatus === "waiting_for_human" && run.onEscalation === "fail")) return;
      await ports.cancelTask(taskId, run.createdBy);
      taskStatus = "waiting_for_human"; // judged as it stood: the escalation is the failure
    }
    const c = run.cases.get(cell.caseId);
    if (!c) return;
    const outcome = await ports.outcome(taskId, taskStatus);
    const results = await runEvalChecks({ checks: c.checks, outcome, ports: ports.checkPorts({ taskId, launch: c.launch }) });
    const failureClass = classifyEvalFailure({ results, taskStatus, endReason: state.endReason, escalationReason: state.escalationReason });
    const figures = await ports.figures(taskId);
    const ok = await ports.finishCell(cell.id, {
      status: failureClass === null ? "passed" : run.status === "cancelled" && state.status !== "completed" ? "cancelled" : "failed",
      taskStatus,
      failureClass,
      checkResults: results,
      judgeCostUsd: results.reduce((s, r) => s + (r.costUsd ?? 0), 0),
      ...figures,
    });
    if (ok) finished++;
  };
  // A failure (a database blip) fails the tick as before: the step is retried, and the guarded
  // writes make the cells already recorded no-ops on the retry.
  await Promise.all(
    running.flatMap((cell) => {
      const taskId = cell.taskId;
      return taskId ? [atMost(() => endCell(cell, taskId))] : [];
    }),
  );
  if (run.status !== "cancelled") {
    const after = await ports.loadRun(evalRunId);
    const cells = after?.cells ?? [];
    let slots = run.concurrency - cells.filter((c) => c.status === "running").length;
    for (const cell of cells) {
      if (slots <= 0) break;
      if (cell.status !== "pending") continue;
      const c = run.cases.get(cell.caseId);
      if (!c) continue;
      try {
        const { taskId } = await ports.launchCell({ cellId: cell.id, profile: cell.profile, launch: c.launch, actor: run.createdBy });
        if (await ports.markCellRunning(cell.id, taskId)) launched++;
      } catch (error) {
        // Anything that may pass on a retry (the executor unreachable, a database blip, a crash) is
        // the tick's error: the step is retried and the launch key finds the same task.
        if (!(error instanceof AppError) || error.retryable) throw error;
        // A launch the product refuses (bad workspace, unknown profile) is this cell's failure, not the run's.
        await ports.markCellRunning(cell.id, null);
        await ports.finishCell(cell.id, {
          status: "failed",
          taskStatus: "not_launched",
          failureClass: "error",
          checkResults: [{ kind: "status", label: "launch", pass: false, detail: error instanceof Error ? error.message.slice(0, 500) : String(error) }],
          judgeCostUsd: 0,
          steps: 0,
          tokens: 0,
          costUsd: 0,
          wasteUsd: 0,
          escalations: 0,
          durationMs: null,
        });
        finished++;
      }
      slots--;
    }
  }
  const final = await ports.loadRun(evalRunId);
  const left = final?.cells ?? [];
  const pending = left.filter((c) => c.status === "pending").length;
  const stillRunning = left.filter((c) => c.status === "running").length;
  const done = pending === 0 && stillRunning === 0;
  if (done && final?.status === "running") await ports.completeRun(evalRunId);
  return { finished, launched, running: stillRunning, pending, done };
}
