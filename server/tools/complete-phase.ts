import { z } from "zod";
import { defineTool } from "./types.ts";

export const completePhaseArgsSchema = z.strictObject({
  phase: z.string().min(1).max(200).describe('Name of the phase just completed, e.g. "collect package list"'),
  summary: z.string().max(4_000).default("").describe("What the phase established, in a sentence or two"),
});

/**
 * `complete_phase`: the agent marks a phase of its work done. The agent loop takes a checkpoint at
 * this boundary (docs/ARCHITECTURE.md "How a run works", step 5: a phase completes).
 */
export const completePhaseTool = defineTool({
  name: "complete_phase",
  description: "Mark a phase of the work as complete (a checkpoint is taken here). Use at natural milestones of a long task.",
  parameters: completePhaseArgsSchema,
  sideEffect: false,
  async execute(args): Promise<{ phaseCompleted: string }> {
    return { phaseCompleted: args.phase };
  },
});
