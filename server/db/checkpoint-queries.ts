import { BUDGET_STEP_KINDS } from "../../lib/contracts/step-count.ts";
import type { WorkingSet } from "../domain/agent-context.ts";
import { diffWorkingSets, type FactChange } from "../domain/checkpoint.ts";
import { AppError } from "../errors.ts";
import type { PrismaClient } from "./client.ts";
import { taskExistsOrThrow } from "./task-queries.ts";
import { factsAfterCheckpoint } from "./checkpoint-repository.ts";
import { effectsAfterCheckpoint, type EffectAfterCheckpoint } from "./fork-effects.ts";
import { checkpointBudgetsUsedJson, checkpointSideEffectsJson, checkpointWorkingSetJson, taskInputJson } from "./json-columns.ts";

/** A task's checkpoints, oldest first, without their payloads. @throws AppError NOT_FOUND for an unknown task. */
export async function listCheckpoints({ prisma, taskId }: { prisma: PrismaClient; taskId: string }) {
  const rows = await prisma.checkpoint.findMany({
    where: { taskId },
    orderBy: { seq: "asc" },
    select: {
      id: true,
      seq: true,
      runId: true,
      reason: true,
      afterStepId: true,
      summary: true,
      openQuestion: true,
      phase: true,
      contextTokens: true,
      transcriptTokens: true,
      budgetsUsed: true,
      good: true,
      createdAt: true,
      workingSet: true,
    },
  });
  if (rows.length === 0) await taskExistsOrThrow({ prisma, taskId });
  return rows.map(({ workingSet, ...r }) => ({
    ...r,
    facts: Object.keys(checkpointWorkingSetJson.decode(workingSet, r.id)).length,
    budgetsUsed: checkpointBudgetsUsedJson.decode(r.budgetsUsed, r.id),
  }));
}

/** One checkpoint with everything in it. @throws AppError NOT_FOUND. */
export async function getCheckpointOrThrow({ prisma, checkpointId }: { prisma: PrismaClient; checkpointId: string }) {
  const cp = await prisma.checkpoint.findUnique({ where: { id: checkpointId } });
  if (!cp) throw new AppError("NOT_FOUND", `checkpoint ${checkpointId} not found`);
  return cp;
}

/**
 * The working-set diff between two checkpoints of a task (`fromId` null = the task's start), each
 * added or changed fact with the step that established its new value (blame).
 * @throws AppError NOT_FOUND, BAD_INPUT (checkpoints of different tasks).
 */
export async function diffCheckpoints({
  prisma,
  taskId,
  fromId,
  toId,
}: {
  prisma: PrismaClient;
  taskId: string;
  fromId: string | null;
  toId: string;
}): Promise<(FactChange & { sourceStepId: string | null; runId: string | null })[]> {
  const to = await getCheckpointOrThrow({ prisma, checkpointId: toId });
  const from = fromId ? await getCheckpointOrThrow({ prisma, checkpointId: fromId }) : null;
  if (to.taskId !== taskId || (from && from.taskId !== taskId)) throw new AppError("BAD_INPUT", "checkpoints: both must belong to the task");
  const task = await prisma.task.findUniqueOrThrow({ where: { id: taskId }, select: { input: true } });
  const before = from ? checkpointWorkingSetJson.decode(from.workingSet, from.id) : (taskInputJson.decode(task.input, taskId).facts ?? {});
  const changes = diffWorkingSets(before, checkpointWorkingSetJson.decode(to.workingSet, to.id));
  const keys = changes.filter((c) => c.kind !== "removed").map((c) => c.key);
  const facts = keys.length
    ? await prisma.fact.findMany({
        where: { taskId, key: { in: keys }, createdAt: { lte: to.createdAt } },
        orderBy: { createdAt: "asc" },
        select: { key: true, sourceStepId: true, runId: true },
      })
    : [];
  const blame = new Map(facts.map((f) => [f.key, f]));
  return changes.map((c) => ({ ...c, sourceStepId: blame.get(c.key)?.sourceStepId ?? null, runId: blame.get(c.key)?.runId ?? null }));
}

// requestCheckpoint (a write) moved to run-requests.ts; re-exported for existing imports.
export { requestCheckpoint } from "./run-requests.ts";

/** What a resume or fork from a checkpoint keeps and what it redoes (task.resumePreview; the resume/fork dialog). */
export interface ResumePreview {
  /** The checkpoint it starts from (the one asked for, else the latest good one); null = from the beginning (no checkpoint). */
  checkpoint: { id: string; seq: number; afterStepId: string; createdAt: Date } | null;
  /** True when that is the task's latest good checkpoint: the facts recorded after it are kept too. */
  isLatest: boolean;
  /** Facts the new run starts with. */
  keptFacts: number;
  /** Of those, facts recorded after the checkpoint (carried because it is the latest). */
  carriedFacts: number;
  /** Facts the task holds now that the new run does not start with (it will have to establish them again): count and the first 20 keys. */
  redoFacts: number;
  redoFactKeys: string[];
  /** Model and tool steps completed after the checkpoint by the task's runs (their work is redone when redoFacts > 0). */
  stepsAfter: number;
  /**
   * Side effects the task committed after the checkpoint (emails, HTTP POSTs, MCP side effects),
   * oldest first (fork-effects.ts effectsAfterCheckpoint). A resume of this task gets their recorded
   * results when it repeats them (same task, same fingerprint); a fork does only for those it is told
   * to reuse — the others it does again under new keys.
   */
  effectsAfter: EffectAfterCheckpoint[];
}

/**
 * What resuming (or forking) task `taskId` from `checkpointId` (default: its latest good checkpoint,
 * as task.resume picks) keeps and redoes, by the same rule as the run's start
 * (checkpoint-repository.ts factsAfterCheckpoint): the checkpoint's working set, plus — when it is the
 * latest good one — every fact recorded after it; a task without a checkpoint keeps every fact.
 * Compared with the task's facts now (latest value per key). Reads only.
 * @throws AppError NOT_FOUND (task, or a checkpoint not of this task).
 */
export async function getResumePreview({
  prisma,
  taskId,
  checkpointId,
}: {
  prisma: PrismaClient;
  taskId: string;
  checkpointId?: string | null;
}): Promise<ResumePreview> {
  await taskExistsOrThrow({ prisma, taskId });
  const latest = await prisma.checkpoint.findFirst({ where: { taskId, good: true }, orderBy: { seq: "desc" } });
  const cp = checkpointId ? await prisma.checkpoint.findUnique({ where: { id: checkpointId } }) : latest;
  if (checkpointId && (!cp || cp.taskId !== taskId)) throw new AppError("NOT_FOUND", `checkpoint ${checkpointId} not found for task ${taskId}`);
  const current: WorkingSet = {};
  for (const f of await prisma.fact.findMany({ where: { taskId }, orderBy: { createdAt: "asc" }, select: { key: true, value: true } }))
    current[f.key] = f.value;
  if (!cp)
    return {
      checkpoint: null,
      isLatest: true,
      keptFacts: Object.keys(current).length,
      carriedFacts: 0,
      redoFacts: 0,
      redoFactKeys: [],
      stepsAfter: 0,
      effectsAfter: await effectsAfterCheckpoint({ prisma, taskId, listed: [] }),
    };
  const isLatest = !latest || latest.seq <= cp.seq;
  // No run of the new start exists yet: "preview" has no facts, so only the checkpoint's own rule applies.
  const carried = isLatest ? await factsAfterCheckpoint({ prisma, checkpoint: cp, runId: "preview" }) : {};
  const kept: WorkingSet = { ...checkpointWorkingSetJson.decode(cp.workingSet, cp.id), ...carried };
  const redo = Object.keys(current).filter((k) => !(k in kept) || JSON.stringify(kept[k]) !== JSON.stringify(current[k]));
  const stepsAfter = await prisma.step.count({
    where: { run: { taskId }, kind: { in: [...BUDGET_STEP_KINDS] }, status: "completed", startedAt: { gt: cp.createdAt } },
  });
  return {
    checkpoint: { id: cp.id, seq: cp.seq, afterStepId: cp.afterStepId, createdAt: cp.createdAt },
    isLatest,
    keptFacts: Object.keys(kept).length,
    carriedFacts: Object.keys(carried).length,
    redoFacts: redo.length,
    redoFactKeys: redo.slice(0, 20),
    stepsAfter,
    effectsAfter: await effectsAfterCheckpoint({ prisma, taskId, listed: checkpointSideEffectsJson.decode(cp.sideEffects, cp.id) }),
  };
}
