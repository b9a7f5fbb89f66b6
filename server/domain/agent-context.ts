import type { ChatMessage, ModelToolCall } from "../llm/types.ts";
import { READ_REFERENCE_MAX_CHARS, referencedKeys } from "./fact-reference.ts";

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
 * the completed steps, the open question and human guidance. When compaction set facts aside as
 * references (`{$ref, description}`), a `<references>` note says how to read one back
 * (`read_reference`, {@link REFERENCE_TOOL}). Never an earlier transcript (ARCHITECTURE.md, "An
 * agent run", step 2). Pure.
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
  const refs = referencedKeys(workingSet);
  if (refs.length) sections.push(`<references>${referencesNote(refs)}</references>`);
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

/** The read-only tool that reads a referenced fact back (server/tools/read-reference.ts). */
export const REFERENCE_TOOL = "read_reference";

/** The `<references>` note of the task message: which facts are references and how to read one back. */
export function referencesNote(keys: readonly string[]): string {
  const shown = keys.slice(0, 20).map((k) => JSON.stringify(k));
  return (
    `${keys.length} fact(s) of the working set were set aside as references {"$ref", "description"} to keep this context small: ` +
    `${shown.join(", ")}${keys.length > shown.length ? `, and ${keys.length - shown.length} more` : ""}. ` +
    `Their descriptions say what they hold. To read one back, call ${REFERENCE_TOOL} with its $ref (at most ${READ_REFERENCE_MAX_CHARS} characters of JSON per call; a longer value is cut, said so, and continues at nextOffset). Read only what you need.`
  );
}

/**
 * The tools a segment offers the model: the profile's, plus {@link REFERENCE_TOOL} when the
 * segment's working set holds references (only then is there anything to read back; a run without
 * compaction sends the same tools as before). Pure.
 */
export function segmentToolNames(profileTools: readonly string[], workingSet: WorkingSet): string[] {
  return referencedKeys(workingSet).length ? withReferenceTool(profileTools) : [...profileTools];
}

/** `profileTools` with {@link REFERENCE_TOOL} at the end (once). Pure. */
export function withReferenceTool(profileTools: readonly string[]): string[] {
  return profileTools.includes(REFERENCE_TOOL) ? [...profileTools] : [...profileTools, REFERENCE_TOOL];
}
