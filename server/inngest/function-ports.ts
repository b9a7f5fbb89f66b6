import { prismaDecisionApplyPorts, recordApplyFailure } from "../features/escalations/index.ts";
import { batchRunIsLive, failBatchItem, finishBatchItem, prismaBatchItemPorts } from "../db/batch-ports.ts";
import { checkpointStoppedRun, runHasStepInFlight } from "../db/cancel-checkpoint.ts";
import { prismaAdvanceEvalRunPorts } from "../features/evals/index.ts";
import { prisma } from "../db/prisma.ts";
import { launchTools } from "../tools/launch-tools.ts";
import { toolDefinitions } from "../tools/registry.ts";
import { sendRunCancelled, sendRunStarted } from "./send.ts";

// The composition root of the Inngest functions other than agent-run (whose ports are
// agent-ports.ts runAgentPorts): each function's steps reach the database only through what these
// build over the web process's Prisma client. Called inside a step, so a replay that only reads
// memoized results touches no database.

/** What the `batch-item` function's steps do: apply the item (the domain's ports), watch its run, finish or fail the item. */
export function batchItemPorts() {
  const db = prisma();
  return {
    /** The ports of the domain's applyBatchItem; a started or cancelled run's event goes to Inngest. */
    item: prismaBatchItemPorts({ prisma: db, sendRunStarted, sendRunCancelled }),
    /** Whether the item's resumed run is still running. */
    runIsLive: (runId: string) => batchRunIsLive({ prisma: db, runId }),
    /** Item running → done, with the run's status as its message (returned). */
    finish: (input: { batchId: string; taskId: string }) => finishBatchItem({ prisma: db, ...input }),
    /** Item → failed with the error, once its function's retries are used up. */
    fail: (input: { batchId: string; taskId: string; error: string }) => failBatchItem({ prisma: db, ...input }),
  };
}

/** What the `cancel-checkpoint` function's steps do: poll for a step in flight, then checkpoint the stopped run with the tools' schemas. */
export function cancelCheckpointPorts() {
  const db = prisma();
  return {
    runHasStepInFlight: (runId: string) => runHasStepInFlight({ prisma: db, runId }),
    checkpointStoppedRun: (input: { taskId: string; runId: string }) => checkpointStoppedRun({ prisma: db, ...input, toolSchemas: toolDefinitions }),
  };
}

/** What the `escalation-apply` function's steps do: apply a decision (the domain's applyDecision's ports), or record why it could not be. */
export function escalationApplyPorts() {
  const db = prisma();
  return {
    apply: prismaDecisionApplyPorts({ prisma: db }),
    recordApplyFailure: (input: { escalationId: string; error: string }) => recordApplyFailure({ prisma: db, ...input }),
  };
}

/** The ports of the domain's advanceEvalRun for the `eval-run` function (launches with the launch tools; run events go to Inngest). */
export function evalRunPorts() {
  return prismaAdvanceEvalRunPorts({ prisma: prisma(), tools: launchTools, sendRunStarted, sendRunCancelled });
}
