import { agentRun } from "./agent-run.ts";
import { batchItem } from "./batch-item.ts";
import { cancelCheckpoint } from "./cancel-checkpoint.ts";
import { escalationApply } from "./escalation-apply.ts";
import { evalRun } from "./eval-run.ts";

/** Every Inngest function Longhaul serves at /api/inngest. */
export const functions = [agentRun, escalationApply, cancelCheckpoint, batchItem, evalRun];
