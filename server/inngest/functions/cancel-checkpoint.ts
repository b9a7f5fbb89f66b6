import { inngest } from "../client.ts";
import { runCancelled } from "../events.ts";
import { cancelCheckpointPorts } from "../function-ports.ts";

/** Polls of the step in flight before the cancel checkpoint is taken without it (× SETTLE_POLL). */
export const SETTLE_ROUNDS = 10;
/**
 * Pause between two polls (Inngest duration). 10 × 1 s: a tool or model step in flight gets 10 s to
 * finish. Not shorter: the Inngest SDK rounds a durable sleep under 1 s up to 1 s (and warns each
 * time), so 20 × 500 ms waited 20 s.
 */
export const SETTLE_POLL = "1s";

/**
 * `cancel-checkpoint`: when a person cancels a run (`longhaul/run.cancelled`, the same event the
 * agent-run's cancelOn matches), waits for the step in flight to finish (its row leaves `running`;
 * at most SETTLE_ROUNDS × SETTLE_POLL), then takes a `cancelled` checkpoint of the run as it stands
 * (server/db/cancel-checkpoint.ts), so Resume starts from there and loses nothing. Step ids
 * `settle-<k>`, `settle-wait-<k>`, `checkpoint`. Returns what checkpointStoppedRun did.
 */
export const cancelCheckpoint = inngest.createFunction(
  { id: "cancel-checkpoint", name: "Checkpoint a cancelled run", triggers: [runCancelled], retries: 4 },
  async ({ event, step }) => {
    const { taskId, runId } = event.data;
    for (let k = 0; k < SETTLE_ROUNDS; k++) {
      const busy = await step.run(`settle-${k}`, () => cancelCheckpointPorts().runHasStepInFlight(runId));
      if (!busy) break;
      await step.sleep(`settle-wait-${k}`, SETTLE_POLL);
    }
    return step.run("checkpoint", () => cancelCheckpointPorts().checkpointStoppedRun({ taskId, runId }));
  },
);
