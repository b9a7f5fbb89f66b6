import { agentRun } from "./agent-run.ts";

/** Every Inngest function Longhaul serves at /api/inngest. */
export const functions = [agentRun];
