import { sample } from "openapi-sampler";
import type { ChatMessage, ToolSchema } from "../types.ts";
import { readAgentContext, type AgentAction } from "./context.ts";

/**
 * `scripted-smoke`: the offline agent of a profile smoke test. It calls each tool it is offered
 * once, with arguments made from the tool's input schema, then finishes with a summary — so a team
 * sees its own MCP tools answer (through Longhaul's ledger, egress gate and timeline) without a
 * model key.
 *
 * The decision is wire-format neutral ({@link decideSmokeTurn}: the offered tools and the calls made
 * so far in, tool calls or text out); {@link decideSmokeFromChat} adapts a Chat Completions request
 * to it, and any other wire format (Responses, Messages) can do the same. It is a pure function of
 * its input: the same request gets the same answer, and a run resumed from a checkpoint goes on
 * with the tools not yet called.
 */

/** The model name that selects this agent. */
export const SMOKE_MODEL = "scripted-smoke";

/** Longhaul's control and bookkeeping tools: offered to every run, never themselves under test. */
const NOT_UNDER_TEST = new Set(["finish", "declare_dead_end", "request_human", "complete_phase", "record_fact", "read_reference"]);

/** One offered tool, as any wire format describes it: its name, and its input schema (JSON Schema). */
export interface SmokeTool {
  name: string;
  inputSchema?: unknown;
}

/** A call made earlier in the run: its tool, and its error when it failed (null when it succeeded or had no answer yet). */
export interface SmokePastCall {
  name: string;
  error: { code: string; message: string } | null;
}

/** What the agent does next: call tools (each `arguments` a JSON object), or finish (the `finish` tool with a summary). */
export interface SmokeTurn {
  text: string | null;
  toolCalls: { name: string; arguments: Record<string, unknown> }[];
}

/**
 * An example value of a tool's input schema, as the call's arguments: the schema's own `default`,
 * `const`, `examples` and first `enum` value where it gives them, else a value of the declared type
 * that honours `format` (email, date-time, uri, uuid…), `minimum` / `maximum` (exclusive too),
 * `minLength` / `maxLength`, `minItems`, nested objects and arrays, `$ref`s within the schema and the
 * first branch of `oneOf` / `anyOf` — by openapi-sampler (Redocly; its rules follow JSON Schema
 * draft 2019-09 / OpenAPI 3.1). Only required properties are filled (the least a tool needs); read-only
 * properties are left out. `pattern` and `multipleOf` are not honoured: a tool that needs them answers
 * with an error, which the smoke test reports as such. Never throws: a schema it cannot sample gives `{}`.
 */
export function exampleArguments(inputSchema: unknown): Record<string, unknown> {
  if (!inputSchema || typeof inputSchema !== "object") return {};
  try {
    const value = sample(inputSchema, { skipNonRequired: true, skipReadOnly: true, quiet: true }, inputSchema);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Fact key the outcome of tool `name` is recorded under (the smoke report reads the steps; the fact shows progress to the detectors). */
const factKey = (name: string) => `smoke:${name}`;

/**
 * The next turn of a smoke test: record the outcome of each tool called but not recorded yet (one
 * `record_fact` each: progress the stall detector sees), and call the first offered tool (in the
 * order offered, Longhaul's control tools left out) not called yet, with {@link exampleArguments};
 * once every tool was called and recorded, `finish` with a summary naming each tool and whether it answered.
 */
export function decideSmokeTurn({
  tools,
  calls,
  facts,
}: {
  tools: readonly SmokeTool[];
  calls: readonly SmokePastCall[];
  /** The working set (facts recorded so far). */
  facts: Readonly<Record<string, unknown>>;
}): SmokeTurn {
  const underTest = tools.filter((t) => !NOT_UNDER_TEST.has(t.name));
  const lastCall = (name: string) => calls.filter((c) => c.name === name).at(-1);
  const toRecord = underTest.filter((t) => lastCall(t.name) && !(factKey(t.name) in facts));
  const recordCalls = toRecord.map((t) => {
    const error = lastCall(t.name)!.error;
    return {
      name: "record_fact",
      arguments: { key: factKey(t.name), value: error ? { outcome: error.code, message: error.message.slice(0, 300) } : { outcome: "answered" } },
    };
  });
  const next = underTest.find((t) => !lastCall(t.name));
  if (next) {
    return {
      text: `Calling ${next.name} once with arguments made from its input schema.`,
      toolCalls: [...recordCalls, { name: next.name, arguments: exampleArguments(next.inputSchema) }],
    };
  }
  if (recordCalls.length) return { text: "Recording the last outcomes.", toolCalls: recordCalls };
  const lines = underTest.map((t) => {
    const error = lastCall(t.name)?.error;
    return `${t.name}: ${error ? `${error.code} (${error.message.slice(0, 200)})` : "answered"}`;
  });
  const failed = underTest.filter((t) => lastCall(t.name)?.error).length;
  const result =
    underTest.length === 0
      ? "Smoke test: no tools to call were offered."
      : `Smoke test: called each of ${underTest.length} tool${underTest.length === 1 ? "" : "s"} once; ${underTest.length - failed} answered, ${failed} did not.\n${lines.join("\n")}`;
  return { text: null, toolCalls: [{ name: "finish", arguments: { result } }] };
}

/** {@link decideSmokeTurn} for a Chat Completions request: `tools` as sent, the calls and facts read from `messages` (a checkpoint's included); the answer as the other scripted agents give it. */
export function decideSmokeFromChat(tools: readonly ToolSchema[] | undefined, messages: readonly ChatMessage[]): AgentAction {
  const ctx = readAgentContext(messages);
  const turn = decideSmokeTurn({
    tools: (tools ?? []).map((t) => ({ name: t.function.name, inputSchema: t.function.parameters })),
    calls: ctx.calls.map((c) => ({ name: c.name, error: c.error })),
    facts: ctx.facts,
  });
  return { content: turn.text, toolCalls: turn.toolCalls };
}
