import type { AdvanceEvalRunPorts, EvalCellState } from "../domain/advance-eval-run.ts";
import { cancelTask } from "../domain/cancel-task.ts";
import type { EvalCheckPorts, EvalOutcome } from "../domain/eval-checks.ts";
import { evalCaseLaunchSchema, evalCheckSchema, type EvalCaseLaunch } from "../domain/eval-suite.ts";
import { launchTask, launchTaskInputSchema } from "../domain/launch-task.ts";
import { askJudge } from "./eval-judge.ts";
import { prismaCancelPorts } from "./cancel-ports.ts";
import type { PrismaClient } from "./client.ts";
import { prismaLaunchPorts, type LaunchTools } from "./launch-ports.ts";
import type { LaunchPorts } from "../domain/launch-task.ts";
import { budgetBasisOf, budgetsFromHistory } from "../domain/budget-from-history.ts";
import { cellBudgetSuggestion } from "./eval-repository.ts";
import { evalCellCheckResultsJson } from "./json-columns.ts";

/** The launch key of a cell's task: one task per cell, whatever crashes and retries happen. */
export const evalCellLaunchKey = (cellId: string): string => `eval-${cellId}`;

/**
 * The eval orchestrator's ports over Prisma. Cells are launched through the product's launch use case
 * (`launchTask` over `prismaLaunchPorts`, the same path as the launch form and the CLI), cancelled
 * through `cancelTask`; `sendRunStarted` / `sendRunCancelled` come from the caller (the Inngest client
 * in the app). Judges are asked through the provider adapter with the judge profile's model and base URL.
 */
export function prismaAdvanceEvalRunPorts({
  prisma,
  tools,
  sendRunStarted,
  sendRunCancelled,
  launchPorts,
}: {
  prisma: PrismaClient;
  sendRunStarted: LaunchPorts["sendRunStarted"];
  sendRunCancelled: (event: { taskId: string; runId: string }) => Promise<void>;
  /** The tools layer's part (server/tools/launch-tools.ts `launchTools`). */
  tools: LaunchTools;
  /** Defaults to prismaLaunchPorts({prisma, sendRunStarted, tools}). */
  launchPorts?: LaunchPorts;
}): AdvanceEvalRunPorts {
  const launchPortsOrDefault = launchPorts ?? prismaLaunchPorts({ prisma, sendRunStarted, tools });
  return {
    async loadRun(evalRunId) {
      const run = await prisma.evalRun.findUnique({
        where: { id: evalRunId },
        include: { cells: { orderBy: [{ case: { position: "asc" } }, { profile: "asc" }, { repeat: "asc" }] }, suite: { include: { cases: true } } },
      });
      if (!run) return null;
      return {
        status: run.status,
        concurrency: run.concurrency,
        onEscalation: run.onEscalation === "wait" ? "wait" : "fail",
        createdBy: run.createdBy,
        cells: run.cells.map((c): EvalCellState => ({
          id: c.id,
          profile: c.profile,
          repeat: c.repeat,
          status: c.status as EvalCellState["status"],
          taskId: c.taskId,
          caseId: c.caseId,
        })),
        cases: new Map(
          run.suite.cases.map((c) => [c.id, { key: c.key, launch: evalCaseLaunchSchema.parse(c.launch), checks: evalCheckSchema.array().parse(c.checks) }]),
        ),
      };
    },
    async launchCell({ cellId, profile, launch, actor }) {
      // Budgets from the case's history (the template rule, budgetsFromHistory); the case's own budgets win.
      const { name, suggestion } = await cellBudgetSuggestion({ prisma, cellId });
      const { budgets, ceilings } = budgetsFromHistory(suggestion, launch);
      const input = launchTaskInputSchema.parse({ ...launch, ...budgets, profile, launchKey: evalCellLaunchKey(cellId) });
      const budgetBasis = budgetBasisOf("case", name, suggestion, ceilings);
      const launched = await launchTask({ input, actor, ports: launchPortsOrDefault, budgetBasis });
      // A tick that died between creating the task and sending its start left it queued with no
      // agent-run: send the start again (event id run-started-<runId>, so the executor runs it once).
      if (launched.deduplicated && launched.runId) {
        const task = await prisma.task.findUnique({ where: { id: launched.taskId }, select: { status: true } });
        if (task?.status === "queued") await sendRunStarted({ taskId: launched.taskId, runId: launched.runId });
      }
      return { taskId: launched.taskId };
    },
    async markCellRunning(cellId, taskId) {
      const r = await prisma.evalCell.updateMany({ where: { id: cellId, status: "pending" }, data: { status: "running", taskId, startedAt: new Date() } });
      return r.count === 1;
    },
    async taskState(taskId) {
      const task = await prisma.task.findUniqueOrThrow({
        where: { id: taskId },
        select: {
          status: true,
          escalations: { where: { status: { in: ["open", "decided", "applying"] } }, orderBy: { createdAt: "desc" }, take: 1, select: { reason: true } },
          runs: { orderBy: { startedAt: "desc" }, take: 1, select: { endReason: true } },
        },
      });
      return { status: task.status, escalationReason: task.escalations[0]?.reason ?? null, endReason: task.runs[0]?.endReason ?? null };
    },
    async cancelTask(taskId, actor) {
      try {
        await cancelTask({ taskId, actor, ports: prismaCancelPorts({ prisma, sendRunCancelled }) });
      } catch (error) {
        // Already ended (CONFLICT): nothing to cancel.
        if (!(error instanceof Error && "code" in error && error.code === "CONFLICT")) throw error;
      }
    },
    outcome: (taskId, status) => loadEvalOutcome(prisma, taskId, status),
    async figures(taskId) {
      const [cost, task] = await Promise.all([
        prisma.taskCost.findUnique({ where: { taskId } }),
        prisma.task.findUniqueOrThrow({ where: { id: taskId }, select: { createdAt: true, startedAt: true, endedAt: true, updatedAt: true } }),
      ]);
      const n = (d: unknown) => Number(d ?? 0);
      const end = task.endedAt ?? task.updatedAt;
      return {
        steps: cost?.steps ?? 0,
        tokens: Number(cost?.promptTokens ?? 0) + Number(cost?.completionTokens ?? 0),
        costUsd: n(cost?.costUsd),
        wasteUsd: n(cost?.retryUsd) + n(cost?.replayUsd) + n(cost?.discardedUsd) + n(cost?.restartUsd),
        escalations: cost?.escalations ?? 0,
        durationMs: end.getTime() - (task.startedAt ?? task.createdAt).getTime(),
      };
    },
    checkPorts: ({ taskId, launch }) => prismaEvalCheckPorts({ prisma, taskId, launch, expectedLicenseCsv: tools.expectedLicenseCsv }),
    async finishCell(cellId, d) {
      const r = await prisma.evalCell.updateMany({
        where: { id: cellId, status: "running" },
        data: {
          status: d.status,
          taskStatus: d.taskStatus,
          failureClass: d.failureClass,
          checkResults: evalCellCheckResultsJson.encode(d.checkResults),
          judgeCostUsd: d.judgeCostUsd.toFixed(8),
          steps: d.steps,
          tokens: d.tokens,
          costUsd: d.costUsd.toFixed(8),
          wasteUsd: d.wasteUsd.toFixed(8),
          escalations: d.escalations,
          durationMs: d.durationMs,
          endedAt: new Date(),
        },
      });
      return r.count === 1;
    },
    async cancelPendingCells(evalRunId) {
      const r = await prisma.evalCell.updateMany({
        where: { evalRunId, status: "pending" },
        data: { status: "cancelled", failureClass: "cancelled", endedAt: new Date() },
      });
      return r.count;
    },
    async completeRun(evalRunId) {
      await prisma.evalRun.updateMany({ where: { id: evalRunId, status: "running" }, data: { status: "completed", endedAt: new Date() } });
    },
  };
}

/** What a task left behind: result, working set (latest value per key, superseded facts left out), artifacts by name, outbox. */
export async function loadEvalOutcome(prisma: PrismaClient, taskId: string, status: string): Promise<EvalOutcome> {
  const [task, facts, artifacts, outbox] = await Promise.all([
    prisma.task.findUniqueOrThrow({ where: { id: taskId }, select: { result: true } }),
    prisma.fact.findMany({ where: { taskId, superseded: false }, orderBy: { createdAt: "asc" }, select: { key: true, value: true } }),
    prisma.artifact.findMany({ where: { taskId }, orderBy: { createdAt: "asc" }, select: { name: true, content: true } }),
    prisma.outboxMessage.findMany({ where: { taskId }, orderBy: { createdAt: "asc" }, select: { to: true, subject: true, body: true } }),
  ]);
  return {
    status,
    result: task.result,
    facts: Object.fromEntries(facts.map((f) => [f.key, f.value])),
    artifacts: Object.fromEntries(artifacts.map((a) => [a.name, a.content])),
    outbox,
  };
}

/**
 * Check ports over Prisma: the demo's known-good CSV from the task's workspace, and a judge asked
 * through the provider adapter (askJudge: one non-streaming call with the judge profile's model,
 * system prompt and endpoint, retried a bounded number of times; priced with the profile's prices).
 */
export function prismaEvalCheckPorts({
  prisma,
  taskId,
  launch,
  expectedLicenseCsv,
}: {
  prisma: PrismaClient;
  taskId: string;
  launch: EvalCaseLaunch;
  /** The demo's exact CSV (LaunchTools `expectedLicenseCsv`). */
  expectedLicenseCsv: LaunchTools["expectedLicenseCsv"];
}): EvalCheckPorts {
  return {
    async expectedDemoCsv() {
      if (!launch.demo) return null;
      const task = await prisma.task.findUniqueOrThrow({ where: { id: taskId }, select: { workspace: true } });
      return expectedLicenseCsv(task.workspace, launch.demo.limit);
    },
    // One cache scope per judged cell: its judge call never reuses another cell's prefix, so the
    // judge's cost of identical cells is identical, as each judge call is on its own.
    judge: ({ profile, rubric, outcome }) => askJudge({ prisma, profile, rubric, outcome, cacheKey: `judge-${taskId}` }),
  };
}
