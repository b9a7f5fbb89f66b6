import type { PrismaClient } from "../db/client.ts";
import {
  prismaDecisionApplyPorts,
  findRiskyVerdict,
  settleEffectByVerdict,
  openEscalation,
  readDecision,
  notifyEscalation,
  applyDecision,
} from "../features/escalations/index.ts";
import { waitForCancelledStepsToSettle } from "../db/cancel-checkpoint.ts";
import { runFacts, saveCheckpoint, startSegment, type SegmentStart } from "../db/checkpoint-repository.ts";
import { recordAlert } from "../db/alert-repository.ts";
import { prisma as webPrisma } from "../db/prisma.ts";
import { prismaResumePorts } from "../db/resume-ports.ts";
import {
  beginStep,
  discardModelStep,
  endStep,
  failRunAfterFunctionFailure,
  finishRun,
  recordModelCall,
  setRunSegments,
  taskSpend,
} from "../db/run-repository.ts";
import { resumeTask } from "../domain/resume-task.ts";
import { callModel, resolveProvider } from "../llm/provider.ts";
import { gateToolCall } from "../tools/egress-gate.ts";
import { checkMcpToolsChanged } from "../features/mcp/index.ts";
import { executeToolCall } from "../tools/registry.ts";
import type { AgentPorts, RunPorts } from "../agent/ports.ts";

/** The agent's ports over PostgreSQL (Prisma), the model provider and the tool gateway. */
export function prismaAgentPorts({ prisma }: { prisma: PrismaClient }): AgentPorts {
  return {
    beginStep: (input) => beginStep({ prisma, ...input }),
    endStep: (input) => endStep({ prisma, ...input }),
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

/** The run's own rows (server/agent/ports.ts RunPorts) over PostgreSQL (Prisma), the egress gate and the MCP servers. */
export function prismaRunPorts({ prisma }: { prisma: PrismaClient }): RunPorts<SegmentStart> {
  return {
    settleCancelledSteps: ({ taskId, runId }) => waitForCancelledStepsToSettle({ prisma, taskId, runId }),
    startSegment: ({ taskId, runId, checkpointId }) => startSegment({ prisma, taskId, runId, checkpointId }),
    checkMcpToolsChanged: (input) => checkMcpToolsChanged({ prisma, ...input }),
    setRunSegments: ({ runId, segments }) => setRunSegments({ prisma, runId, segments }),
    gateToolCall: (input) => gateToolCall({ prisma, ...input }),
    findRiskyVerdict: (input) => findRiskyVerdict({ prisma, ...input }),
    openEscalation: (input) => openEscalation({ prisma, ...input }),
    notifyEscalation: (input) => notifyEscalation({ prisma, ...input }),
    readDecision: (escalationId) => readDecision({ prisma, escalationId }),
    applyEscalationDecision: ({ escalationId, stepIndex }) => applyDecision({ escalationId, stepIndex, ports: prismaDecisionApplyPorts({ prisma }) }),
    finishRun: (input) => finishRun({ prisma, ...input }),
    failRunAfterFunctionFailure: (input) => failRunAfterFunctionFailure({ prisma, ...input }),
  };
}

/** Every port of a run (the agent's and the run's own) over the web process's Prisma client: what the `agent-run` function's steps work over. */
export type RunAgentPorts = AgentPorts & RunPorts<SegmentStart>;

/**
 * {@link prismaAgentPorts} and {@link prismaRunPorts} over the web process's client
 * (server/db/prisma.ts): called inside each step, so a replay that only reads memoized results
 * touches no database.
 */
export function runAgentPorts(): RunAgentPorts {
  const prisma = webPrisma();
  return { ...prismaAgentPorts({ prisma }), ...prismaRunPorts({ prisma }) };
}
