import { z } from "zod";
import { defineTool } from "./types.ts";

export const finishArgsSchema = z.strictObject({
  result: z.string().min(1).max(65_536).describe("The final result: what was done and where it is"),
  gaps: z
    .array(z.string().min(1).max(2_000))
    .max(50)
    .optional()
    .describe("What the goal asked for that was not done (a part given up on, a rejected action), one line each; omit when everything was done"),
});

/** `finish` (docs/CONTRACTS.md): validates and returns; the agent loop ends the run as completed with `result`. */
export const finishTool = defineTool({
  name: "finish",
  description: "Finish the task successfully with a short summary of the result. Call once everything the goal asks for is done.",
  parameters: finishArgsSchema,
  sideEffect: false,
  async execute(): Promise<{ finished: true }> {
    return { finished: true };
  },
});
