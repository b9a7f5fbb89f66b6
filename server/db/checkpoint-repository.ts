import { ulid } from "ulid";
import type { CheckpointData } from "../agent/ports.ts";
import type { CompletedStepSummary, WorkingSet } from "../domain/agent-context.ts";
import type { CompactionSizes } from "../domain/agent-loop/index.ts";
import { compactCompletedSteps } from "../domain/checkpoint.ts";
import { parseContextLimit } from "../llm/errors.ts";
import { listCommittedEffects } from "./effect-queries.ts";
import type { PrismaClient } from "./client.ts";
import {
  checkpointBudgetsUsedJson,
  checkpointCompletedStepsJson,
  checkpointSideEffectsJson,
  checkpointWorkingSetJson,
  compactStepOutputJson,
} from "./json-columns.ts";
import { startRun, taskSpend, taskUsage, type RunStart } from "./run-repository.ts";
import { taskProfile } from "./task-profile.ts";

/** What one segment of a run starts from: the run start plus the checkpoint state, if any. */
export interface SegmentStart extends RunStart {
  /** The run's status when the segment started; anything but "running" means: do nothing. */
  runStatus: string;
  checkpointId: string | null;
  /** Why the starting checkpoint was taken (null = from the beginning). */
  fromReason: string | null;
  nextTurn: number;
  nextIndex: number;
  stepsUsed: number;
  tokensUsed: number;
  /** The task's model spend in USD when the segment started (all runs; see taskSpend). */
  costUsd: number;
  completedSteps: CompletedStepSummary[];
  openQuestion: string | null;
  guidance: string | null;
  /** The segment is the first of a run a human's decision started (a resume or a fork): the effort dial's `after_human`. */
  afterHuman: boolean;
  /** Tokens of the transcript the checkpoints so far replaced (for "what the transcript would cost"). */
  priorTranscriptTokens: number;
  /** The sizes of the compaction (`compact-<n>` step) the starting checkpoint came from; null when it was not compacted. */
  compaction?: CompactionSizes | null;
  /** The context a provider's refusal stated to this task, in this run or an earlier one (the latest compaction sized on one), or null. */
  providerLimitTokens?: number | null;
  policy: {
    checkpointEverySteps: number;
    expensiveStepUsd: number | null;
    saturationRatio: number;
    autoResumeMax: number;
    stallSteps: number;
    stallGraceSteps: number;
    escalationDueMinutes: number;
  };
}

/**
 * This run's facts, latest value per key (facts are append-only rows keyed by step); with `since`,
 * or `afterCheckpointId` (that checkpoint's time), only those recorded after it — the ones a
 * segment that started from the checkpoint adds to its working set.
 */
export async function runFacts({
  prisma,
  runId,
  since,
  afterCheckpointId,
}: {
  prisma: PrismaClient;
  runId: string;
  since?: Date;
  afterCheckpointId?: string | null;
}): Promise<WorkingSet> {
  let after = since;
  if (!after && afterCheckpointId) {
    const cp = await prisma.checkpoint.findUnique({ where: { id: afterCheckpointId }, select: { createdAt: true } });
    after = cp?.createdAt;
  }
  const rows = await prisma.fact.findMany({ where: { runId, ...(after ? { createdAt: { gt: after } } : {}) }, orderBy: { createdAt: "asc" } });
  const out: WorkingSet = {};
  for (const r of rows) out[r.key] = r.value;
  return out;
}

/**
 * The facts a run starting from checkpoint `checkpoint` carries beyond the checkpoint's own working
 * set, latest value per key, oldest first: this run's facts recorded after it and — when it is the
 * task's latest good checkpoint, i.e. the state the task stopped in — every fact recorded after it by
 * the run that took it and by the runs that started from it since (a cancelled, failed or escalated
 * run whose last steps came after its last checkpoint). So a resume never loses a fact the stopped
 * run established; a task without a checkpoint keeps every fact the same way (startRun). A resume
 * from an older checkpoint than the latest is a deliberate return to that older state: only its own
 * facts are added (the dialog says what will be redone, task.resumePreview).
 */
export async function factsAfterCheckpoint({
  prisma,
  checkpoint,
  runId,
}: {
  prisma: PrismaClient;
  checkpoint: { id: string; taskId: string; runId: string; seq: number; createdAt: Date };
  runId: string;
}): Promise<WorkingSet> {
  const run = await prisma.run.findUnique({ where: { id: runId }, select: { startedAt: true } });
  // "Latest" as of this run's start: a checkpoint written afterwards by another run (a cancel
  // checkpoint that lost the race with this resume) does not make the start an older state.
  const latest = await prisma.checkpoint.findFirst({
    where: { taskId: checkpoint.taskId, good: true, ...(run ? { createdAt: { lte: run.startedAt } } : {}) },
    orderBy: { seq: "desc" },
    select: { seq: true },
  });
  const isLatest = !latest || latest.seq <= checkpoint.seq;
  const runIds = new Set([runId]);
  if (isLatest) {
    runIds.add(checkpoint.runId);
    const fromIt = await prisma.run.findMany({ where: { taskId: checkpoint.taskId, fromCheckpointId: checkpoint.id }, select: { id: true } });
    for (const r of fromIt) runIds.add(r.id);
  }
  const rows = await prisma.fact.findMany({
    where: { taskId: checkpoint.taskId, runId: { in: [...runIds] }, createdAt: { gt: checkpoint.createdAt } },
    orderBy: { createdAt: "asc" },
  });
  const out: WorkingSet = {};
  for (const r of rows) out[r.key] = r.value;
  return out;
}

function effectEntry(e: { idempotencyKey: string; tool: string; result: unknown }): CompletedStepSummary {
  return { stepId: `effect:${e.idempotencyKey}`, tool: e.tool, summary: `${e.tool} already committed; result ${JSON.stringify(e.result)}` };
}

/**
 * Loads the start of a segment. From the beginning (no checkpoint): the task's input facts. From a
 * checkpoint: its working set, completed steps and open question, plus this run's facts recorded
 * after it, plus side effects committed after it by any run of the task (folded into the completed
 * steps so the resumed agent knows the email went out — docs/ARCHITECTURE.md, "Idempotency"). Step and
 * token usage are the task's real totals (waste included), so ceilings hold across resumes.
 * @throws Error when the checkpoint does not belong to the task.
 */
export async function startSegment({
  prisma,
  taskId,
  runId,
  checkpointId,
}: {
  prisma: PrismaClient;
  taskId: string;
  runId: string;
  checkpointId: string | null;
}): Promise<SegmentStart> {
  const base = await startRun({ prisma, taskId, runId });
  const [profile, run, usage, spend] = await Promise.all([
    taskProfile({ prisma, taskId }).then((t) => t.spec),
    prisma.run.findUniqueOrThrow({ where: { id: runId } }),
    taskUsage({ prisma, taskId }),
    taskSpend({ prisma, taskId }),
  ]);
  const policy = {
    checkpointEverySteps: profile.checkpointEverySteps,
    expensiveStepUsd: profile.expensiveStepUsd,
    saturationRatio: profile.saturationRatio,
    autoResumeMax: profile.autoResumeMax,
    stallSteps: profile.stallSteps,
    stallGraceSteps: profile.stallGraceSteps,
    escalationDueMinutes: profile.escalationDueMinutes,
  };
  const common = {
    ...base,
    runStatus: run.status,
    stepsUsed: usage.steps,
    tokensUsed: usage.tokens,
    costUsd: spend.usd,
    guidance: run.guidance,
    // The first segment of a resume or fork (not an automatic resume): a person decided it.
    afterHuman: (run.cause === "resume" || run.cause === "fork") && run.segments <= 1,
    policy,
    providerLimitTokens: await statedProviderLimit({ prisma, taskId }),
  };
  if (!checkpointId) {
    return {
      ...common,
      checkpointId: null,
      fromReason: null,
      nextTurn: 0,
      nextIndex: 0,
      completedSteps: [],
      openQuestion: null,
      priorTranscriptTokens: 0,
      compaction: null,
    };
  }
  const cp = await prisma.checkpoint.findUnique({ where: { id: checkpointId } });
  if (!cp || cp.taskId !== taskId) throw new Error(`checkpoint ${checkpointId} of task ${taskId} not found`);
  const workingSet = { ...checkpointWorkingSetJson.decode(cp.workingSet, cp.id), ...(await factsAfterCheckpoint({ prisma, checkpoint: cp, runId })) };
  const carried = new Set(checkpointSideEffectsJson.decode(cp.sideEffects, cp.id).map((e) => e.idempotencyKey));
  const later = (await listCommittedEffects({ prisma, taskId, since: cp.createdAt })).filter((e) => !carried.has(e.idempotencyKey));
  const completedSteps = compactCompletedSteps([...checkpointCompletedStepsJson.decode(cp.completedSteps, cp.id), ...later.map(effectEntry)]);
  return {
    ...common,
    workingSet,
    checkpointId,
    fromReason: cp.reason,
    nextTurn: cp.nextTurn,
    nextIndex: run.id === cp.runId ? cp.nextIndex : 0,
    completedSteps,
    openQuestion: cp.openQuestion,
    priorTranscriptTokens: cp.transcriptTokens,
    compaction: await compactionOf({ prisma, checkpoint: cp }),
  };
}

/**
 * The context limit the provider stated to this task: the latest completed compaction (`compact-<n>`
 * step) of any of its runs that was sized on a refusal's stated limit, or null. Later segments of the
 * run, and the runs a resume starts (the task keeps its profile version, so its provider and model),
 * work inside it, so the provider is not asked to refuse again before the loop compacts.
 */
async function statedProviderLimit({ prisma, taskId }: { prisma: PrismaClient; taskId: string }): Promise<number | null> {
  const rows = await prisma.step.findMany({
    where: { run: { taskId }, stepId: { startsWith: "compact-" }, status: "completed" },
    orderBy: [{ run: { startedAt: "desc" } }, { index: "desc" }],
    select: { id: true, output: true, endedAt: true },
  });
  let fromCompaction: { limit: number; at: Date | null } | null = null;
  for (const row of rows) {
    const limit = compactStepOutputJson.decode(row.output, row.id)?.sizes?.providerLimitTokens;
    if (typeof limit === "number" && limit > 0) {
      fromCompaction = { limit, at: row.endedAt };
      break;
    }
  }
  // A refusal after that compaction states the limit too — a checkpoint's summary request refused as
  // too long is not followed by a compaction (the checkpoint is taken from the state instead), so
  // the next segment learns the limit from the refusal itself.
  const refusals = await prisma.modelCall.findMany({
    // Every provider's context-length wording names tokens (parseContextLimit); other errors are skipped in the query.
    where: { run: { taskId }, status: "error", error: { contains: "token" }, ...(fromCompaction?.at ? { createdAt: { gt: fromCompaction.at } } : {}) },
    orderBy: { createdAt: "desc" },
    take: 20,
    select: { error: true },
  });
  for (const r of refusals) {
    const stated = r.error ? parseContextLimit(r.error).limitTokens : null;
    if (stated && stated > 0) return stated;
  }
  return fromCompaction?.limit ?? null;
}

/** The sizes the `compact-<n>` step that saved `checkpoint` reported (its output), or null for a checkpoint no compaction saved. */
async function compactionOf({
  prisma,
  checkpoint,
}: {
  prisma: PrismaClient;
  checkpoint: { runId: string; afterStepId: string };
}): Promise<CompactionSizes | null> {
  if (!checkpoint.afterStepId.startsWith("compact-")) return null;
  const row = await prisma.step.findUnique({
    where: { runId_stepId: { runId: checkpoint.runId, stepId: checkpoint.afterStepId } },
    select: { id: true, output: true },
  });
  const sizes = row ? compactStepOutputJson.decode(row.output, row.id)?.sizes : undefined;
  if (!sizes || typeof sizes.limitTokens !== "number" || typeof sizes.afterTokens !== "number") return null;
  return {
    contextWindow: sizes.contextWindow ?? 0,
    beforeTokens: sizes.beforeTokens ?? 0,
    afterTokens: sizes.afterTokens,
    limitTokens: sizes.limitTokens,
    referencedFacts: sizes.referencedFacts ?? 0,
    providerLimitTokens: sizes.providerLimitTokens ?? null,
    refusal: sizes.refusal ?? null,
  };
}

/**
 * Stores a checkpoint (idempotent: a re-executed checkpoint step finds the one it wrote, keyed by
 * run + last step). `seq` is the next number within the task. Also counts the new segment on the run.
 */
export async function saveCheckpoint({ prisma, data }: { prisma: PrismaClient; data: CheckpointData }): Promise<{ id: string; seq: number }> {
  const existing = await prisma.checkpoint.findUnique({ where: { runId_afterStepId: { runId: data.runId, afterStepId: data.afterStepId } } });
  if (existing) return { id: existing.id, seq: existing.seq };
  const effects = await listCommittedEffects({ prisma, taskId: data.taskId });
  for (let attempt = 0; ; attempt++) {
    try {
      return await prisma.$transaction(async (tx) => {
        const last = await tx.checkpoint.findFirst({ where: { taskId: data.taskId }, orderBy: { seq: "desc" }, select: { seq: true } });
        const seq = (last?.seq ?? 0) + 1;
        const id = `cp_${ulid().toLowerCase()}`;
        await tx.checkpoint.create({
          data: {
            ...data,
            id,
            seq,
            workingSet: checkpointWorkingSetJson.encode(data.workingSet),
            completedSteps: checkpointCompletedStepsJson.encode(data.completedSteps),
            budgetsUsed: checkpointBudgetsUsedJson.encode(data.budgetsUsed),
            sideEffects: checkpointSideEffectsJson.encode(
              effects.map((e) => ({ tool: e.tool, stepId: e.stepId, idempotencyKey: e.idempotencyKey, result: e.result })),
            ),
          },
        });
        return { id, seq };
      });
    } catch (error) {
      // Two writers raced for the same seq: try again with the next number.
      if (attempt < 3 && String(error).includes("Unique constraint")) continue;
      throw error;
    }
  }
}
