import type { Prisma, PrismaClient } from "../db/client.ts";
import { runFacts, saveCheckpoint } from "../db/checkpoint-repository.ts";
import { recordAlert } from "../db/alert-repository.ts";
import { settleEffectByVerdict } from "../db/approval-repository.ts";
import { prismaResumePorts } from "../db/resume-ports.ts";
import { beginStep, discardModelStep, endStep, recordModelCall, taskSpend } from "../db/run-repository.ts";
import { resumeTask } from "../domain/resume-task.ts";
import { callModel, resolveProvider } from "../llm/provider.ts";
import { executeToolCall } from "../tools/registry.ts";
import type { AgentPorts } from "../agent/ports.ts";

/** The agent's ports over PostgreSQL (Prisma), the model provider and the tool gateway. */
export function prismaAgentPorts({ prisma }: { prisma: PrismaClient }): AgentPorts {
  return {
    beginStep: ({ args, ...rest }) => beginStep({ prisma, ...rest, args: args as Prisma.InputJsonValue | undefined }),
    endStep: ({ output, ...rest }) => endStep({ prisma, ...rest, output: output as Prisma.InputJsonValue | undefined }),
    discardModelStep: (input) => discardModelStep({ prisma, ...input }),
    async noteStepError({ runId, stepId, error }) {
      await prisma.step.update({ where: { runId_stepId: { runId, stepId } }, data: { error: error.slice(0, 2000) } });
    },
    chat({ endpoint, ...request }) {
      const provider = resolveProvider({ endpoint });
      return callModel({ ...request, wireFormat: provider.wireFormat, baseUrl: provider.baseUrl, apiKey: provider.apiKey, headers: provider.headers });
    },
    recordModelCall: (record) => recordModelCall({ prisma, ...record }),
    taskSpendUsd: async (taskId) => (await taskSpend({ prisma, taskId })).usd,
    async runRequests(runId) {
      const run = await prisma.run.findUnique({
        where: { id: runId },
        select: { checkpointRequestedAt: true, escalationRequestedAt: true, escalationRequestNote: true, escalationRequestedBy: true },
      });
      return {
        checkpointRequested: !!run?.checkpointRequestedAt,
        escalationRequested: run?.escalationRequestedAt ? { note: run.escalationRequestNote, by: run.escalationRequestedBy } : null,
      };
    },
    async clearCheckpointRequest(runId) {
      await prisma.run.update({ where: { id: runId }, data: { checkpointRequestedAt: null } });
    },
    async settleEffectByVerdict({ taskId, fingerprint }) {
      await settleEffectByVerdict({
        prisma,
        taskId,
        fingerprint,
        resultFor: ({ idempotencyKey, confirmedBy }) => ({ status: null, body: null, idempotencyKey, confirmedBy }),
      });
    },
    executeToolCall: ({ name, rawArguments, taskId, runId, stepId, workspace, extra }) =>
      executeToolCall({ name, rawArguments, ctx: { prisma, taskId, runId, stepId, workspace }, ...(extra ? { extra } : {}) }),
    runFacts: (runId, afterCheckpointId) => runFacts({ prisma, runId, afterCheckpointId }),
    saveCheckpoint: (data) => saveCheckpoint({ prisma, data }),
    recordAlert: (input) => recordAlert({ prisma, ...input }),
    countAutoResumes: (taskId) => prisma.run.count({ where: { taskId, cause: "auto_resume" } }),
    resume: (taskId) => resumeTask({ taskId, cause: "auto_resume", actor: "longhaul", ports: prismaResumePorts({ prisma, sendRunStarted: async () => {} }) }),
  };
}
