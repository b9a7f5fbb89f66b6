import { agentRun } from "./agent-run.ts";
import { escalationApply } from "./escalation-apply.ts";

/** Every Inngest function Longhaul serves at /api/inngest. */
export const functions = [agentRun, escalationApply];
