import { agentRun } from "./agent-run.ts";
import { batchItem } from "./batch-item.ts";
import { cancelCheckpoint } from "./cancel-checkpoint.ts";
import { escalationApply } from "./escalation-apply.ts";

/** Every Inngest function Longhaul serves at /api/inngest. */
export const functions = [agentRun, escalationApply, cancelCheckpoint, batchItem];
