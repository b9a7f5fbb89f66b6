import type { BudgetBasis } from "../domain/budget-from-history.ts";
import type { McpToolSnapshot } from "../domain/mcp-tool-snapshot.ts";
import type { PrismaClient } from "./client.ts";
import { stepArgumentsJson, stepOutputJson, taskBudgetBasisJson, taskInputJson, taskMcpToolsJson, taskResultJson } from "./json-columns.ts";
import { runProfileOf, taskProfile } from "./task-profile.ts";
import type { EffortLevel, EffortPolicy, EffortRule } from "../../lib/contracts/effort.ts";
import type { RunEndReason, StepKind, TaskCompletionOutcome } from "../../lib/contracts/status.ts";
import { IS_BUDGET_STEP } from "./step-counts.ts";

// The cost ledger's writes and the task spend live in cost-repository.ts (re-exported for callers).
export { recordModelCall, taskSpend } from "./cost-repository.ts";

/** What the agent-run function needs to start a run: the task, its profile, the working set. */
export interface RunStart {
  taskId: string;
  runId: string;
  goal: string;
  workspace: string;
  stepBudget: number;
  tokenBudget: number | null;
  /** Dollar ceiling of the task (USD, model spend incl. retries and checkpoints); null = none. */
  costBudgetUsd: number | null;
  /** Risky tool calls wait for a human's Approve/Reject (Task.requireApproval). */
  requireApproval: boolean;
  /** Where the budgets came from when derived from history (Task.budgetBasis), else null. */
  budgetBasis: BudgetBasis | null;
  /** The profile version the task launched with (server/db/task-profile.ts), never the profile's current content. */
  profile: {
    name: string;
    version: number;
    versionId: string;
    model: string;
    provider: string;
    baseUrl: string | null;
    apiKeyEnv: string | null;
    headers: Record<string, string>;
    tools: string[];
    systemPrompt: string;
    contextWindow: number;
    /** USD per million tokens, null = use the price package. */
    prices: { inputPerMTok: number | null; cachedPerMTok: number | null; outputPerMTok: number | null };
    /** The effort dial's policy (lib/contracts/effort.ts); null = none. */
    effort: EffortPolicy | null;
  };
  workingSet: Record<string, unknown>;
  /** The MCP tools the task's runs are offered (Task.mcpTools, taken at launch), or null for none. */
  mcpTools: McpToolSnapshot | null;
}

/**
 * Loads the start state of a run and moves task and run to `running` with guarded writes (the task
 * only from `queued`/`running`, so a cancelled task stays cancelled).
 * @throws Error when the task or run does not exist (the event names rows that must be there).
 */
export async function startRun({ prisma, taskId, runId }: { prisma: PrismaClient; taskId: string; runId: string }): Promise<RunStart> {
  const task = await prisma.task.findUnique({ where: { id: taskId } });
  const run = await prisma.run.findUnique({ where: { id: runId } });
  if (!task || !run || run.taskId !== taskId) throw new Error(`run ${runId} of task ${taskId} not found`);
  await prisma.task.updateMany({
    where: { id: taskId, status: { in: ["queued", "running"] } },
    data: { status: "running", startedAt: task.startedAt ?? new Date() },
  });
  const facts = await prisma.fact.findMany({ where: { taskId, superseded: false }, orderBy: { createdAt: "asc" } });
  const workingSet: Record<string, unknown> = { ...taskInputJson.decode(task.input, taskId).facts };
  for (const f of facts) workingSet[f.key] = f.value;
  return {
    taskId,
    runId,
    goal: task.goal,
    workspace: task.workspace,
    stepBudget: task.stepBudget,
    tokenBudget: task.tokenBudget,
    costBudgetUsd: task.costBudgetUsd === null ? null : Number(task.costBudgetUsd),
    requireApproval: task.requireApproval,
    budgetBasis: taskBudgetBasisJson.decode(task.budgetBasis),
    profile: runProfileOf(await taskProfile({ prisma, taskId })),
    workingSet,
    mcpTools: taskMcpToolsJson.decode(task.mcpTools),
  };
}

/**
 * Marks step `stepId` of `runId` as started: creates its row, or on a re-execution (retry, replay
 * after a crash) bumps `attempts` and sets it running again. Upsert keyed by (runId, stepId), so a
 * re-executed step never duplicates its row. Returns the attempt count and whether it had completed
 * before (a replay whose memoized result was lost).
 */
export async function beginStep({
  prisma,
  runId,
  stepId,
  index,
  kind,
  tool,
  args,
  effort,
}: {
  prisma: PrismaClient;
  runId: string;
  stepId: string;
  index: number;
  kind: StepKind;
  tool?: string;
  /** The step's arguments, any JSON (written through Step.arguments' codec; null/undefined: none). */
  args?: unknown;
  /** The effort its model call runs at (the effort dial's decision): level, model and rule, recorded on the row. */
  effort?: { level: EffortLevel; model: string; rule: EffortRule } | null;
}): Promise<{ attempts: number; completedBefore: boolean }> {
  const before = await prisma.step.findUnique({ where: { runId_stepId: { runId, stepId } }, select: { status: true } });
  const effortColumns = effort ? { effortLevel: effort.level, effortModel: effort.model, effortRule: effort.rule } : {};
  const row = await prisma.step.upsert({
    where: { runId_stepId: { runId, stepId } },
    create: { runId, stepId, index, kind, tool: tool ?? null, arguments: stepArgumentsJson.encodeOptional(args), status: "running", ...effortColumns },
    update: { attempts: { increment: 1 }, status: "running", error: null },
    select: { attempts: true },
  });
  return { attempts: row.attempts, completedBefore: before?.status === "completed" };
}

/**
 * Marks completed model step `stepId` of `runId` discarded (the effort dial asked its turn again at a
 * higher level): its kept model calls (productive, replay) become `discarded` — the cost triggers move
 * their dollars to waste — and its summary starts with "Discarded: <reason>". Idempotent.
 */
export async function discardModelStep({
  prisma,
  runId,
  stepId,
  reason,
}: {
  prisma: PrismaClient;
  runId: string;
  stepId: string;
  reason: string;
}): Promise<void> {
  await prisma.modelCall.updateMany({ where: { runId, stepId, status: "ok", cause: { in: ["productive", "replay"] } }, data: { cause: "discarded" } });
  const step = await prisma.step.findUnique({ where: { runId_stepId: { runId, stepId } }, select: { summary: true } });
  if (!step || step.summary.startsWith("Discarded: ")) return;
  await prisma.step.update({ where: { runId_stepId: { runId, stepId } }, data: { summary: `Discarded: ${reason}. ${step.summary}`.slice(0, 500) } });
}

/** Records the end of a step (completed or failed) with its output, tokens and duration. */
export async function endStep({
  prisma,
  runId,
  stepId,
  status,
  output,
  error,
  summary,
  usage,
}: {
  prisma: PrismaClient;
  runId: string;
  stepId: string;
  status: "completed" | "failed";
  /** What the step produced, any JSON (null/undefined: left as it is). */
  output?: unknown;
  error?: string;
  summary?: string;
  usage?: { promptTokens: number; cachedTokens: number; completionTokens: number; cacheWriteTokens?: number; reasoningTokens?: number };
}): Promise<void> {
  const row = await prisma.step.findUniqueOrThrow({ where: { runId_stepId: { runId, stepId } }, select: { startedAt: true } });
  const endedAt = new Date();
  await prisma.step.update({
    where: { runId_stepId: { runId, stepId } },
    data: {
      status,
      output: stepOutputJson.encodeOptional(output),
      error: error ?? null,
      summary: summary ?? undefined,
      endedAt,
      durationMs: endedAt.getTime() - row.startedAt.getTime(),
      ...(usage
        ? {
            promptTokens: usage.promptTokens,
            cachedTokens: usage.cachedTokens,
            completionTokens: usage.completionTokens,
            ...(usage.cacheWriteTokens !== undefined ? { cacheWriteTokens: usage.cacheWriteTokens } : {}),
            ...(usage.reasoningTokens !== undefined ? { reasoningTokens: usage.reasoningTokens } : {}),
          }
        : {}),
    },
  });
}

/**
 * Counts segment `segments` on run `runId` while it is running (a compare-and-swap: a run that has
 * ended keeps its count). The segment that ends at a cutting checkpoint writes it before it sends
 * the next segment's event. Returns the rows written (0 or 1).
 */
export async function setRunSegments({ prisma, runId, segments }: { prisma: PrismaClient; runId: string; segments: number }): Promise<{ count: number }> {
  return prisma.run.updateMany({ where: { id: runId, status: "running" }, data: { segments } });
}

/**
 * Ends a run and its task with guarded compare-and-swap writes: only a `running` run ends, and the
 * task follows its latest run unless a person already cancelled it. Returns false when the run was
 * not running (a duplicate delivery or a cancel won the race): nothing is written then.
 */
export async function finishRun({
  prisma,
  taskId,
  runId,
  runStatus,
  taskStatus,
  endReason,
  result,
  outcome,
  deadEndReason,
  error,
}: {
  prisma: PrismaClient;
  taskId: string;
  runId: string;
  runStatus: "completed" | "dead_end" | "failed" | "escalated";
  taskStatus: "completed" | "dead_end" | "failed" | "waiting_for_human";
  endReason?: RunEndReason;
  /** The run's result, any JSON (null/undefined: left as it is). */
  result?: unknown;
  /** Task.outcome of a completed task: `completed`, or `completed_with_gaps` when result.gaps is not empty. */
  outcome?: TaskCompletionOutcome;
  deadEndReason?: string;
  error?: string;
}): Promise<boolean> {
  const now = new Date();
  return prisma.$transaction(async (tx) => {
    const ended = await tx.run.updateMany({
      where: { id: runId, status: "running" },
      data: { status: runStatus, endReason: endReason ?? null, endedAt: now, error: error ?? null },
    });
    if (ended.count === 0) return false;
    await tx.task.updateMany({
      where: { id: taskId, status: { notIn: ["cancelled"] } },
      data: {
        status: taskStatus,
        endedAt: taskStatus === "waiting_for_human" ? null : now,
        result: taskResultJson.encodeOptional(result),
        outcome: outcome ?? null,
        deadEndReason: deadEndReason ?? null,
        error: error ?? null,
      },
    });
    return true;
  });
}

/**
 * The budget's steps taken by all runs of a task (model + tool steps: `longhaul_budget_step`, the one
 * step count of lib/contracts/step-count.ts) and their prompt + completion tokens (for the ceilings).
 */
export async function taskUsage({ prisma, taskId }: { prisma: PrismaClient; taskId: string }): Promise<{ steps: number; tokens: number }> {
  const rows = await prisma.$queryRaw<{ steps: bigint; tokens: bigint | null }[]>`
    SELECT count(*) AS steps, sum(s."promptTokens" + s."completionTokens") AS tokens
    FROM step s JOIN run r ON r.id = s."runId"
    WHERE r."taskId" = ${taskId} AND ${IS_BUDGET_STEP}`;
  return { steps: Number(rows[0]?.steps ?? 0), tokens: Number(rows[0]?.tokens ?? 0) };
}

/**
 * Marks a run whose start event could not be delivered as failed, and its task too when it had not
 * started (guarded writes: nothing that already moved on is touched). Used by launch and resume.
 */
export async function failUndeliveredStart({
  prisma,
  taskId,
  runId,
  error,
}: {
  prisma: PrismaClient;
  taskId: string;
  runId: string;
  error: string;
}): Promise<void> {
  await prisma.$transaction([
    prisma.run.updateMany({ where: { id: runId, status: "running" }, data: { status: "failed", endReason: "error", error, endedAt: new Date() } }),
    prisma.task.updateMany({ where: { id: taskId, status: "queued" }, data: { status: "failed", error, endedAt: new Date() } }),
  ]);
}

/**
 * Ends a run whose Inngest function failed for good (its `onFailure`: the executor refused the run's
 * state, e.g. a step output over its 4 MiB limit, or the function threw after its retries), with
 * guarded compare-and-swap writes in one transaction: only a still-`running` run becomes `failed`
 * (endReason `error`, `error` = the failure's message); a run the loop already ended (completed,
 * escalated, dead end, failed, cancelled) is left alone, so a second delivery or a failure after the
 * loop's own `end` step changes nothing. Steps of the run still `running` become `failed` with their
 * end time and duration; the task follows only while it is `queued` or `running`.
 * Returns `{ ended: false, steps: 0 }` when the run was not running (nothing written).
 */
export async function failRunAfterFunctionFailure({
  prisma,
  taskId,
  runId,
  error,
}: {
  prisma: PrismaClient;
  taskId: string;
  runId: string;
  /** What the run and task show as their error, e.g. "OutputTooLarge: step model-3 output is 5243000 bytes (max 4194304); …". */
  error: string;
}): Promise<{ ended: boolean; steps: number }> {
  const now = new Date();
  return prisma.$transaction(async (tx) => {
    const ended = await tx.run.updateMany({ where: { id: runId, status: "running" }, data: { status: "failed", endReason: "error", endedAt: now, error } });
    if (ended.count === 0) return { ended: false, steps: 0 };
    const running = await tx.step.findMany({ where: { runId, status: "running" }, select: { id: true, startedAt: true } });
    for (const s of running) {
      await tx.step.updateMany({
        where: { id: s.id, status: "running" },
        data: { status: "failed", error, endedAt: now, durationMs: Math.max(0, now.getTime() - s.startedAt.getTime()) },
      });
    }
    await tx.task.updateMany({ where: { id: taskId, status: { in: ["queued", "running"] } }, data: { status: "failed", endedAt: now, error, outcome: null } });
    return { ended: true, steps: running.length };
  });
}
