import type { ChatMessage, ModelToolCall, ReasoningItem } from "../llm/types.ts";
import { READ_REFERENCE_MAX_CHARS, referencedKeys } from "./fact-reference.ts";

/**
 * JSON text of a value that a step produced or a checkpoint stored, the same whatever object-key
 * order it arrives in (object keys sorted). A step's output is used once as it
 * came (the step ran in this invocation) and afterwards as memoized — read back from PostgreSQL
 * jsonb, which reorders object keys — and a prompt that changes text between calls loses the
 * provider's prompt cache from that point on.
 */
export function promptJson(value: unknown): string {
  // JSON.stringify's own rules (toJSON first, NaN → null, lone surrogates escaped), objects' keys sorted.
  return (
    JSON.stringify(value, (_key, v: unknown) =>
      v && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, (v as Record<string, unknown>)[k]]),
          )
        : v,
    ) ?? "null"
  );
}

/** A fact of the working set as the model sees it. */
export type WorkingSet = Record<string, unknown>;

/** One completed step carried by a checkpoint (compact: what was done and what it produced). */
export interface CompletedStepSummary {
  stepId: string;
  tool?: string;
  summary: string;
}

/**
 * Builds the opening messages of a run (docs/CONTRACTS.md, "Model context"), laid out for prompt
 * caching — what changes least comes first: the profile's system prompt (after the run's tool
 * snapshot, which every provider puts ahead of the messages), then one user message with the goal
 * verbatim and, after a cache break, the working set as JSON and, when resuming, the completed steps,
 * the open question and human guidance; the turns follow. When compaction set facts aside as
 * references (`{$ref, description}`), a `<references>` note says how to read one back
 * (`read_reference`, {@link REFERENCE_TOOL}). Never an earlier transcript (docs/ARCHITECTURE.md, "How
 * a run works", step 2). Pure.
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
  const goalSection = `<goal>${goal}</goal>`;
  const sections = [goalSection, `<working_set>${promptJson(workingSet)}</working_set>`];
  if (completedSteps?.length) sections.push(`<completed_steps>${promptJson(completedSteps)}</completed_steps>`);
  if (openQuestion) sections.push(`<open_question>${openQuestion}</open_question>`);
  if (guidance) sections.push(`<guidance>${guidance}</guidance>`);
  const refs = referencedKeys(workingSet);
  if (refs.length) sections.push(`<references>${referencesNote(refs)}</references>`);
  return [
    { role: "system", content: systemPrompt || "You are a careful agent. Use the tools; call finish when done." },
    // The goal is stable for the whole task, the state after it for the segment: a cache breakpoint
    // after each (Anthropic's adapter; the OpenAI wires cache the same prefix on their own).
    { role: "user", content: sections.join("\n"), cacheBreaks: [goalSection.length + 1] },
  ];
}

/**
 * The assistant message for a model turn, as it goes back on the wire, with the turn's reasoning
 * items / thinking blocks when the provider returned some (each adapter sends them back as its API
 * requires; Chat Completions has no place for them). Pure.
 */
export function assistantMessage(content: string | null, toolCalls: ModelToolCall[], reasoning?: readonly ReasoningItem[]): ChatMessage {
  const withReasoning = reasoning?.length ? { reasoning: [...reasoning] } : {};
  return toolCalls.length
    ? {
        role: "assistant",
        content,
        tool_calls: toolCalls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.arguments } })),
        ...withReasoning,
      }
    : { role: "assistant", content, ...withReasoning };
}

/** The tool message answering `toolCallId`: the tool's output or `{error}` as canonical JSON text (promptJson). Pure. */
export function toolResultMessage(toolCallId: string, result: { ok: true; output: unknown } | { ok: false; error: unknown }): ChatMessage {
  return { role: "tool", tool_call_id: toolCallId, content: promptJson(result.ok ? result.output : { error: result.error }) };
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
