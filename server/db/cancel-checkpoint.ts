import { buildInitialMessages, type CompletedStepSummary } from "../domain/agent-context.ts";
import { compactCompletedSteps, describeToolStep } from "../domain/checkpoint.ts";
import { countTokens } from "../llm/tokens.ts";
import type { ToolSchema } from "../llm/types.ts";
import { saveCheckpoint, startSegment } from "./checkpoint-repository.ts";
import type { PrismaClient } from "./client.ts";

/** What `checkpointStoppedRun` did. */
export type StoppedRunCheckpoint =
  | { kind: "saved"; checkpointId: string; seq: number; facts: number; completedSteps: number }
  /** The run's latest checkpoint already covers its last finished step (or it finished none): nothing to add. */
  | { kind: "covered"; checkpointId: string | null }
  /** The run is not stopped by a person (still running, or ended otherwise): nothing written. */
  | { kind: "skipped"; reason: string };

/** Whether a run has a step still executing (its row `running`): the cancel checkpoint waits for it. */
export async function runHasStepInFlight({ prisma, runId }: { prisma: PrismaClient; runId: string }): Promise<boolean> {
  return (await prisma.step.count({ where: { runId, status: "running", kind: { in: ["model", "tool"] } } })) > 0;
}

/**
 * How long after a cancel a resume waits for the cancelled run's tool step in flight (ms): the
 * cancel checkpoint's own settle window (SETTLE_ROUNDS × SETTLE_POLL of
 * server/inngest/functions/cancel-checkpoint.ts, 10 × 1 s).
 */
export const RESUME_SETTLE_MS = 10_000;

/**
 * Waits until no run of the task that a person cancelled less than `windowMs` ago (other than
 * `runId`) has a tool step still executing (its row `running`: the step the cancel stopped the run
 * around, which finishes on its own and may record a fact or commit an effect). A resume started
 * within seconds of a cancel calls this before it reads its starting state, so that step's result
 * is carried instead of done again ("Cancel keeps what the run established"). Model steps
 * are not waited for: a resume carries nothing from one. Polls every `pollMs` until `windowMs` after
 * the latest such cancel (`endedAt`, written by the web app on the same clock), never longer than
 * `windowMs` from now — a step row a crashed process left `running` holds a resume no longer.
 * Returns at once, one query, when there is no recent cancel (every launch).
 * Returns whether the task settled, how long it waited (ms) and the steps still running if not.
 */
export async function waitForCancelledStepsToSettle({
  prisma,
  taskId,
  runId,
  windowMs = RESUME_SETTLE_MS,
  pollMs = 200,
}: {
  prisma: PrismaClient;
  taskId: string;
  runId: string;
  windowMs?: number;
  pollMs?: number;
}): Promise<{ settled: boolean; waitedMs: number; running: string[] }> {
  const started = Date.now();
  const cancelled = await prisma.run.findMany({
    where: { taskId, id: { not: runId }, status: "cancelled", endedAt: { gt: new Date(started - windowMs) } },
    select: { id: true, endedAt: true },
  });
  if (cancelled.length === 0) return { settled: true, waitedMs: 0, running: [] };
  const latestCancel = Math.max(...cancelled.map((r) => r.endedAt?.getTime() ?? started));
  const deadline = Math.min(latestCancel + windowMs, started + windowMs);
  for (;;) {
    const busy = await prisma.step.findMany({
      where: { runId: { in: cancelled.map((r) => r.id) }, status: "running", kind: "tool" },
      select: { stepId: true },
    });
    const now = Date.now();
    if (busy.length === 0) return { settled: true, waitedMs: now - started, running: [] };
    if (now >= deadline) return { settled: false, waitedMs: now - started, running: busy.map((s) => s.stepId) };
    await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, deadline - now)));
  }
}

/**
 * Takes a checkpoint (reason `cancelled`) of a run a person stopped, as it stands after its last
 * finished step, so a cancel keeps what the run established: the working set (the run's
 * starting state plus every fact it recorded, factsAfterCheckpoint), the completed steps (those of
 * its start plus every tool step it finished since), the open question of its start, and the task's
 * budgets used now. No model call: the state is assembled from the database. Resume then starts
 * from it (the latest good checkpoint) and redoes nothing.
 *
 * Idempotent: keyed by (run, last finished step) like every checkpoint, so a re-executed step finds
 * the one it wrote; a run whose latest checkpoint already covers its last step gets none.
 * `toolSchemas` gives the schemas of the profile's tools (tools/registry.ts `toolDefinitions`, passed
 * in by the Inngest function: the db layer does not import the tools), counted in `contextTokens`.
 * @throws Error when the run does not exist.
 */
export async function checkpointStoppedRun({
  prisma,
  taskId,
  runId,
  toolSchemas,
}: {
  prisma: PrismaClient;
  taskId: string;
  runId: string;
  toolSchemas: (names: readonly string[]) => readonly ToolSchema[];
}): Promise<StoppedRunCheckpoint> {
  const run = await prisma.run.findUniqueOrThrow({ where: { id: runId } });
  if (run.taskId !== taskId) throw new Error(`run ${runId} does not belong to task ${taskId}`);
  if (run.status !== "cancelled") return { kind: "skipped", reason: `run is ${run.status}` };
  // Resumed already (the resume carried the run's facts itself, factsAfterCheckpoint): a checkpoint
  // written now would sit after the new run's start and describe a superseded state.
  const newer = await prisma.run.count({ where: { taskId, startedAt: { gt: run.startedAt } } });
  if (newer > 0) return { kind: "skipped", reason: "the task has been resumed since" };
  const own = await prisma.checkpoint.findFirst({ where: { runId, good: true }, orderBy: { seq: "desc" } });
  const startId = own?.id ?? run.fromCheckpointId;
  const startCp = startId ? await prisma.checkpoint.findUnique({ where: { id: startId } }) : null;
  const fromIndex = startCp && startCp.runId === runId ? startCp.nextIndex : 0;
  const steps = await prisma.step.findMany({
    where: { runId, index: { gte: fromIndex }, kind: { in: ["model", "tool"] }, status: "completed" },
    orderBy: { index: "asc" },
    select: { stepId: true, kind: true, tool: true, summary: true, index: true, arguments: true, output: true },
  });
  const last = steps.at(-1);
  if (!last) return { kind: "covered", checkpointId: startCp?.id ?? null };
  const all = await prisma.step.aggregate({ where: { runId }, _max: { index: true } });
  const turns = steps.map((s) => /^model-(\d+)$/.exec(s.stepId)?.[1]).filter((n): n is string => n !== undefined);
  const lastTurn = turns.length ? Math.max(...turns.map(Number)) : (startCp?.nextTurn ?? 0) - 1;
  const start = await startSegment({ prisma, taskId, runId, checkpointId: startCp?.id ?? null });
  const summaries: CompletedStepSummary[] = steps
    .filter((s) => s.kind === "tool")
    .map((s) => ({
      stepId: s.stepId,
      ...(s.tool ? { tool: s.tool } : {}),
      summary: s.tool ? describeToolStep(s.tool, JSON.stringify(s.arguments ?? {}), { ok: true, output: s.output }) : s.summary,
    }));
  const completedSteps = compactCompletedSteps([...start.completedSteps, ...summaries]);
  const context = buildInitialMessages({
    systemPrompt: start.profile.systemPrompt,
    goal: start.goal,
    workingSet: start.workingSet,
    completedSteps,
    openQuestion: start.openQuestion,
  });
  const facts = Object.keys(start.workingSet).length;
  const saved = await saveCheckpoint({
    prisma,
    data: {
      taskId,
      runId,
      reason: "cancelled",
      afterStepId: last.stepId,
      nextTurn: lastTurn + 1,
      nextIndex: (all._max.index ?? last.index) + 1,
      goal: start.goal,
      workingSet: start.workingSet,
      completedSteps,
      openQuestion: start.openQuestion,
      phase: startCp?.phase ?? null,
      summary: `Taken when the run was cancelled (${run.endReason === "cancelled_by_user" ? "by a person" : "stopped"}): ${facts} fact(s), ${summaries.length} step(s) since ${startCp ? `checkpoint #${startCp.seq}` : "the start"} kept, so a resume redoes none of them.`,
      budgetsUsed: { steps: start.stepsUsed, tokens: start.tokensUsed, costUsd: start.costUsd },
      contextTokens: countTokens(context, toolSchemas(start.profile.tools)),
      transcriptTokens: start.priorTranscriptTokens,
    },
  });
  return { kind: "saved", checkpointId: saved.id, seq: saved.seq, facts, completedSteps: summaries.length };
}
