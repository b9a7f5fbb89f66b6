import { z } from "zod";
import { defineTool } from "./types.ts";

export const requestHumanArgsSchema = z.strictObject({
  question: z.string().min(1).max(4_000).describe("What you need a person to decide or tell you"),
  proposedAction: z.string().max(4_000).optional().describe("The risky action you want approved, if any"),
});

/**
 * `request_human`: the agent asks for a human decision. The agent loop checkpoints, opens an
 * escalation with the question and waits for the decision (resume with guidance, approve or reject
 * the proposed action, mark dead end, cancel).
 */
export const requestHumanTool = defineTool({
  name: "request_human",
  description: "Ask a person for a decision or information you cannot get otherwise, or for approval of a risky action. The run pauses until they answer.",
  parameters: requestHumanArgsSchema,
  sideEffect: false,
  async execute(args): Promise<{ escalated: true; question: string }> {
    return { escalated: true, question: args.question };
  },
});
