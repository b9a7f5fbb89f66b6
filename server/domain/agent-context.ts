import type { ChatMessage, ModelToolCall } from "../llm/types.ts";

/** A fact of the working set as the model sees it. */
export type WorkingSet = Record<string, unknown>;

/** One completed step carried by a checkpoint (compact: what was done and what it produced). */
export interface CompletedStepSummary {
  stepId: string;
  tool?: string;
  summary: string;
}

/**
 * Builds the opening messages of a run (docs/CONTRACTS.md, "Model context"): the profile's system
 * prompt, then one user message with the goal verbatim, the working set as JSON and, when resuming,
 * the completed steps, the open question and human guidance. Never an earlier transcript
 * (ARCHITECTURE.md, "An agent run", step 2). Pure.
 */
export function buildInitialMessages({
  systemPrompt,
  goal,
  workingSet,
  completedSteps,
  openQuestion,
  guidance,
}: {
  systemPrompt: string;
  goal: string;
  workingSet: WorkingSet;
  completedSteps?: CompletedStepSummary[];
  openQuestion?: string | null;
  guidance?: string | null;
}): ChatMessage[] {
  const sections = [`<goal>${goal}</goal>`, `<working_set>${JSON.stringify(workingSet)}</working_set>`];
  if (completedSteps?.length) sections.push(`<completed_steps>${JSON.stringify(completedSteps)}</completed_steps>`);
  if (openQuestion) sections.push(`<open_question>${openQuestion}</open_question>`);
  if (guidance) sections.push(`<guidance>${guidance}</guidance>`);
  return [
    { role: "system", content: systemPrompt || "You are a careful agent. Use the tools; call finish when done." },
    { role: "user", content: sections.join("\n") },
  ];
}

/** The assistant message for a model turn, as it goes back on the wire. Pure. */
export function assistantMessage(content: string | null, toolCalls: ModelToolCall[]): ChatMessage {
  return toolCalls.length
    ? {
        role: "assistant",
        content,
        tool_calls: toolCalls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.arguments } })),
      }
    : { role: "assistant", content };
}

/** The tool message answering `toolCallId`: the tool's output or `{error}` as JSON text. Pure. */
export function toolResultMessage(toolCallId: string, result: { ok: true; output: unknown } | { ok: false; error: unknown }): ChatMessage {
  return { role: "tool", tool_call_id: toolCallId, content: JSON.stringify(result.ok ? result.output : { error: result.error }) };
}
