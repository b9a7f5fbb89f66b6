import { batchRunIsLive, failBatchItem, finishBatchItem, prismaBatchItemPorts } from "../../db/batch-ports.ts";
import { prisma } from "../../db/prisma.ts";
import { applyBatchItem } from "../../domain/batch-tasks.ts";
import { env } from "../../env.ts";
import { inngest } from "../client.ts";
import { batchItemRequested } from "../events.ts";
import { sendRunCancelled, sendRunStarted } from "../send.ts";

/** Tries for a free slot in one function run before it continues in a new one (continue-as-new keeps its history short). */
export const SLOT_ROUNDS = 100;
/** Pause between two tries for a slot (Inngest duration). */
export const SLOT_POLL = "2s";
/** Polls of a resumed run before the item is marked done though the run still runs (it still holds its slot: slots are counted from runs). */
export const WATCH_ROUNDS = 200;
/** Pause between two polls of a resumed run: 200 × 5 s = 17 min of progress tracking per item. */
export const WATCH_POLL = "5s";

/**
 * `batch-item`: applies a batch operation (resume or cancel many) to one task
 * (`longhaul/batch.item.requested`). The cap is the executor's, not a loop in a request: the
 * function's concurrency limit of 1 runs one of its steps at a time, and a resume starts only while
 * fewer than LONGHAUL_BATCH_CONCURRENCY runs started by batches are running (counted in the
 * database, since a sleeping Inngest run holds no concurrency slot); otherwise it sleeps SLOT_POLL
 * and tries again, continuing as a new function run (`round` + 1) after SLOT_ROUNDS tries. A cancel
 * needs no slot. While the resumed run runs, the item is `running` (polled, at most WATCH_ROUNDS),
 * then `done`. When its retries are used up the item is marked failed with the error (onFailure).
 * Step ids `apply-<k>`, `slot-wait-<k>`, `continue`, `watch-<k>`, `watch-wait-<k>`, `finish`.
 */
export const batchItem = inngest.createFunction(
  {
    id: "batch-item",
    name: "Apply a batch operation to one task",
    triggers: [batchItemRequested],
    concurrency: { limit: 1 },
    retries: 3,
    onFailure: async ({ event, error, step }) => {
      const { batchId, taskId } = event.data.event.data;
      await step.run("record-failure", () => failBatchItem({ prisma: prisma(), batchId, taskId, error: error.message }));
    },
  },
  async ({ event, step }) => {
    const { batchId, taskId, round = 0 } = event.data;
    const cap = env().LONGHAUL_BATCH_CONCURRENCY;
    let outcome = null;
    for (let k = 0; k < SLOT_ROUNDS; k++) {
      outcome = await step.run(`apply-${k}`, () =>
        applyBatchItem({ batchId, taskId, cap, ports: prismaBatchItemPorts({ prisma: prisma(), sendRunStarted, sendRunCancelled }) }),
      );
      if (outcome.kind !== "wait") break;
      await step.sleep(`slot-wait-${k}`, SLOT_POLL);
    }
    if (!outcome || outcome.kind === "wait") {
      await step.sendEvent(
        "continue",
        batchItemRequested.create({ batchId, taskId, round: round + 1 }, { id: `batch-item-${batchId}-${taskId}-${round + 1}` }),
      );
      return { kind: "continued" as const, round: round + 1 };
    }
    if (outcome.kind !== "resumed") return outcome;
    const runId = outcome.runId;
    for (let k = 0; k < WATCH_ROUNDS; k++) {
      const live = await step.run(`watch-${k}`, () => batchRunIsLive({ prisma: prisma(), runId }));
      if (!live) break;
      await step.sleep(`watch-wait-${k}`, WATCH_POLL);
    }
    const message = await step.run("finish", () => finishBatchItem({ prisma: prisma(), batchId, taskId }));
    return { ...outcome, finished: message };
  },
);
