import { withoutFinalStop } from "../../lib/contracts/sentences.ts";

/**
 * What a tool call a human rejected returns to the model ("risky actions"): the one copy,
 * used by the loop when it refuses the call at its approval step (domain/agent-loop) and by the tool
 * gateway when it finds the Reject itself (tools/registry.ts).
 */

/** The tool-error code of a call a human rejected (tools/types.ts ToolErrorCode). */
export const REJECTED_BY_HUMAN = "rejected_by_human";

/**
 * The message the model reads for a rejected call of `tool`: who rejected it (`decidedBy`, or "a
 * handler"), their guidance if any (its own final full stop dropped, so the sentence does not end
 * ".."), and that it must not try again.
 */
export function rejectedByHumanMessage(tool: string, decidedBy: string | null, guidance: string | null): string {
  const said = guidance ? withoutFinalStop(guidance) : "";
  return `${tool} was rejected by ${decidedBy ?? "a handler"} and not run${said ? `: ${said}` : ""}. Do not try it again; finish without it, or declare a dead end.`;
}
