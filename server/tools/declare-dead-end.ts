import { z } from "zod";
import { defineTool } from "./types.ts";

export const declareDeadEndArgsSchema = z.strictObject({
  reason: z.string().min(1).max(16_384).describe("Why the goal cannot be reached"),
});

/** `declare_dead_end` (docs/CONTRACTS.md): validates and returns; the agent loop ends the run as a dead end with `reason`. */
export const declareDeadEndTool = defineTool({
  name: "declare_dead_end",
  description: "Stop because the goal cannot be reached, saying why. Use this instead of guessing or looping.",
  parameters: declareDeadEndArgsSchema,
  sideEffect: false,
  async execute(): Promise<{ deadEnd: true }> {
    return { deadEnd: true };
  },
});
