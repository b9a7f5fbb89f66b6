import { ulid } from "ulid";
import type { ForkPorts } from "../domain/fork-task.ts";
import { effectFingerprint } from "../domain/effect-fingerprint.ts";
import { checkpointEffectKeys, effectsAfterCheckpoint } from "./fork-effects.ts";
import type { PrismaClient } from "./client.ts";
import {
  checkpointBudgetsUsedJson,
  checkpointCompletedStepsJson,
  checkpointSideEffectsJson,
  checkpointWorkingSetJson,
  sideEffectArgumentsJson,
  sideEffectResultJson,
  taskInputJson,
} from "./json-columns.ts";
import { failUndeliveredStart } from "./run-repository.ts";

/** Fork ports over Prisma (server/domain/fork-task.ts); `sendRunStarted` comes from the caller. */
export function prismaForkPorts({ prisma, sendRunStarted }: { prisma: PrismaClient; sendRunStarted: ForkPorts["sendRunStarted"] }): ForkPorts {
  return {
    newId: (prefix) => `${prefix}_${ulid().toLowerCase()}`,
    async taskExists(taskId) {
      return (await prisma.task.count({ where: { id: taskId } })) > 0;
    },
    async findCheckpoint(taskId, checkpointId) {
      return prisma.checkpoint.findFirst({ where: { id: checkpointId, taskId }, select: { id: true } });
    },
    async effectsAfterCheckpoint(taskId, checkpointId) {
      const cp = await prisma.checkpoint.findUniqueOrThrow({ where: { id: checkpointId }, select: { id: true, taskId: true, sideEffects: true } });
      const listed = checkpointSideEffectsJson.decode(cp.sideEffects, cp.id);
      return (await effectsAfterCheckpoint({ prisma, taskId: cp.taskId, listed, limit: Number.MAX_SAFE_INTEGER })).map((e) => e.idempotencyKey);
    },
    async createForkTask({ sourceTaskId, sourceCheckpointId, taskId, runId, guidance, actor, reuseEffectKeys }) {
      return prisma.$transaction(async (tx) => {
        const src = await tx.task.findUniqueOrThrow({ where: { id: sourceTaskId } });
        const cp = await tx.checkpoint.findUniqueOrThrow({ where: { id: sourceCheckpointId } });
        const sourceEffects = checkpointSideEffectsJson.decode(cp.sideEffects, cp.id);
        await tx.task.create({
          data: {
            id: taskId,
            goal: src.goal,
            profileId: src.profileId,
            // The branch runs with the source's profile version, not the profile's current one.
            profileVersionId: src.profileVersionId,
            status: "queued",
            stepBudget: src.stepBudget,
            tokenBudget: src.tokenBudget,
            costBudgetUsd: src.costBudgetUsd,
            requireApproval: src.requireApproval,
            workspace: src.workspace,
            input: taskInputJson.encode(taskInputJson.decode(src.input, src.id)),
            // A fork goes on with the tools the source run was offered (its checkpoint refers to them).
            ...(src.mcpTools !== null ? { mcpTools: src.mcpTools } : {}),
            // A fork of a smoke test is a smoke test: on the smoke model, never the profile's.
            ...(src.smoke !== null ? { smoke: src.smoke } : {}),
            createdBy: actor,
            forkedFromTaskId: sourceTaskId,
            forkedFromCheckpointId: sourceCheckpointId,
          },
        });
        const copyId = `cp_${ulid().toLowerCase()}`;
        await tx.checkpoint.create({
          data: {
            id: copyId,
            taskId,
            runId,
            seq: 1,
            reason: cp.reason,
            afterStepId: `fork:${cp.id}`,
            nextTurn: cp.nextTurn,
            nextIndex: 0,
            goal: cp.goal,
            workingSet: checkpointWorkingSetJson.encode(checkpointWorkingSetJson.decode(cp.workingSet, cp.id)),
            completedSteps: checkpointCompletedStepsJson.encode(checkpointCompletedStepsJson.decode(cp.completedSteps, cp.id)),
            openQuestion: cp.openQuestion,
            phase: cp.phase,
            summary: `Forked from checkpoint #${cp.seq} of task ${sourceTaskId}. ${cp.summary}`.trim(),
            budgetsUsed: checkpointBudgetsUsedJson.encode({ steps: 0, tokens: 0, costUsd: 0 }),
            sideEffects: checkpointSideEffectsJson.encode(sourceEffects),
            contextTokens: cp.contextTokens,
            transcriptTokens: cp.transcriptTokens,
          },
        });
        // The effects the source had committed when the checkpoint was taken, and those after it the
        // operator chose to reuse, under the new task: a repeat of one by the branch gets the recorded
        // result (ledger fingerprint = task + tool + args). Effects after it not reused are done again.
        const keys = [...checkpointEffectKeys(sourceEffects), ...reuseEffectKeys];
        const effects = keys.length ? await tx.sideEffect.findMany({ where: { taskId: sourceTaskId, idempotencyKey: { in: keys }, status: "committed" } }) : [];
        if (effects.length) {
          await tx.sideEffect.createMany({
            data: effects.map((e) => ({
              idempotencyKey: `fork:${taskId}:${e.idempotencyKey}`,
              fingerprint: effectFingerprint({ taskId, tool: e.tool, args: e.arguments }),
              taskId,
              runId: e.runId,
              stepId: e.stepId,
              tool: e.tool,
              arguments: sideEffectArgumentsJson.encode(sideEffectArgumentsJson.decode(e.arguments, e.idempotencyKey)),
              status: "committed",
              result: e.result === null ? undefined : sideEffectResultJson.encode(sideEffectResultJson.decode(e.result, e.idempotencyKey)),
              createdAt: e.createdAt,
              committedAt: e.committedAt,
            })),
          });
        }
        await tx.run.create({ data: { id: runId, taskId, cause: "fork", status: "running", fromCheckpointId: copyId, guidance } });
        return { checkpointId: copyId };
      });
    },
    sendRunStarted,
    failLaunch: ({ taskId, runId }, error) => failUndeliveredStart({ prisma, taskId, runId, error }),
  };
}
