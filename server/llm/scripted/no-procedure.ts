import type { AgentAction, AgentContext } from "./context.ts";

/**
 * The dead-end reason of a goal the scripted model has no procedure for: it says what the offline
 * model plays and that this goal needs a real provider, so the task ends honestly (a dead end, not a
 * green "completed" that did nothing the goal asked).
 */
export function noProcedureReason(goal: string): string {
  const shown = goal.length > 200 ? `${goal.slice(0, 200)}…` : goal;
  return (
    `The offline scripted model has no procedure for the goal "${shown}". It only plays Longhaul's demos and scenarios ` +
    "(the license audit, the MCP audit, and the scenarios' goal of finding out what the workspace's project is from its README). " +
    "This goal needs a real model provider: launch it on a profile with one (an OpenAI-compatible base URL and its API key)."
  );
}

/**
 * The competent agent on a goal it has no procedure for: it declares a dead end at once, with
 * {@link noProcedureReason}, as an honest agent would — pretending to have done the goal would end
 * the task "completed" (and pass an eval's status check) for work that was never done.
 */
export function decideNoProcedure(ctx: AgentContext): AgentAction {
  return { content: null, toolCalls: [{ name: "declare_dead_end", arguments: { reason: noProcedureReason(ctx.goal) } }] };
}
