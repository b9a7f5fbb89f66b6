import type { ChatMessage, EffortLevel } from "../types.ts";

/**
 * Reading a request the way the scripted agent needs it: the sections of the task message
 * (docs/CONTRACTS.md, "Model context") and the tool calls of the current segment with their results.
 * Everything here is a pure function of the request messages.
 */

/** One tool call the agent made earlier, with its result when one came back. */
export interface PastCall {
  name: string;
  /** Parsed arguments; undefined when the raw string was not a JSON object. */
  args: Record<string, unknown> | undefined;
  rawArguments: string;
  /** Parsed tool result (JSON text per the contract); undefined when no result came back. */
  result: unknown;
  /** The `{error: {code, message}}` of a failed call, else null. */
  error: { code: string; message: string } | null;
  /** True when it came from `<completed_steps>` of a checkpoint rather than this segment. */
  fromCheckpoint: boolean;
  /**
   * True when `result` only stands in for the output: a checkpoint step that carried a one-line
   * summary (`{summary}`), not the tool's output. Such a result is not a page of a listing or a file.
   */
  summaryOnly: boolean;
}

export interface AgentContext {
  goal: string;
  /** Facts: the `<working_set>` object, updated by the successful `record_fact` calls of the transcript. */
  facts: Record<string, unknown>;
  openQuestion: string | null;
  guidance: string | null;
  /** Earlier calls: those of `<completed_steps>` first, then this segment's in order. */
  calls: PastCall[];
  /** Number of assistant turns in this segment. */
  turns: number;
  /** The effort the request asked for (scripted/effort.ts: how effort changes the agent); null/absent = none sent. */
  effort?: EffortLevel | null;
  /** The model the request named (seeds the effort-dependent behaviour). */
  model?: string;
}

function section(text: string, tag: string): string | null {
  const match = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(text);
  return match ? match[1]!.trim() : null;
}

function parseJson(text: string | null | undefined): unknown {
  if (text === null || text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function errorOf(result: unknown): { code: string; message: string } | null {
  const error = asObject(result)?.error;
  if (error === undefined) return null;
  const record = asObject(error);
  return {
    code: typeof record?.code === "string" ? record.code : "error",
    message: typeof record?.message === "string" ? record.message : typeof error === "string" ? error : JSON.stringify(error),
  };
}

/**
 * Completed steps of a checkpoint, read leniently (their exact shape belongs to the checkpoint
 * builder): any object naming a tool (`tool`, `toolName` or `name`) counts as an earlier call, with
 * arguments from `arguments`/`args`/`input` and its result from `output`/`result`, else `summary`.
 */
function checkpointCalls(value: unknown): PastCall[] {
  if (!Array.isArray(value)) return [];
  const calls: PastCall[] = [];
  for (const item of value) {
    const step = asObject(item);
    if (!step) continue;
    const name = [step.tool, step.toolName, step.name].find((v): v is string => typeof v === "string");
    if (!name) continue;
    let args = step.arguments ?? step.args ?? step.input;
    if (typeof args === "string") args = parseJson(args);
    let result = step.output ?? step.result;
    if (typeof result === "string") result = parseJson(result) ?? result;
    // server/domain/agent-context.ts carries only {stepId, tool, summary}: a summary stands for the result.
    let summaryError: { code: string; message: string } | null = null;
    const summary = result === undefined && typeof step.summary === "string" ? step.summary : null;
    if (summary !== null) {
      result = { summary };
      if (/\b(error|failed|refused)\b/i.test(summary)) summaryError = { code: "error", message: summary };
    }
    calls.push({
      name,
      args: asObject(args),
      rawArguments: JSON.stringify(args ?? null),
      result,
      error: errorOf(result) ?? summaryError ?? (step.error !== undefined && step.error !== null ? errorOf({ error: step.error }) : null),
      fromCheckpoint: true,
      summaryOnly: summary !== null,
    });
  }
  return calls;
}

/** Builds the AgentContext of a Chat Completions request (see the module comment). */
export function readAgentContext(messages: readonly ChatMessage[]): AgentContext {
  const taskIndex = messages.findIndex((m) => m.role === "user" && typeof m.content === "string" && m.content.includes("<goal>"));
  const firstUser = taskIndex >= 0 ? taskIndex : messages.findIndex((m) => m.role === "user");
  const taskContent = firstUser >= 0 ? messages[firstUser]!.content : "";
  const task = typeof taskContent === "string" ? taskContent : "";
  const goal = section(task, "goal") ?? task.trim();
  const facts: Record<string, unknown> = { ...(asObject(parseJson(section(task, "working_set"))) ?? {}) };
  const calls = checkpointCalls(parseJson(section(task, "completed_steps")));

  const results = new Map<string, string>();
  for (const m of messages) if (m.role === "tool" && typeof m.content === "string") results.set(m.tool_call_id, m.content);
  let turns = 0;
  for (const m of messages.slice(firstUser + 1)) {
    if (m.role !== "assistant") continue;
    turns++;
    for (const call of m.tool_calls ?? []) {
      const rawResult = results.get(call.id);
      const result = rawResult === undefined ? undefined : (parseJson(rawResult) ?? rawResult);
      calls.push({
        name: call.function.name,
        args: asObject(parseJson(call.function.arguments)),
        rawArguments: call.function.arguments,
        result,
        error: rawResult === undefined ? null : errorOf(result),
        fromCheckpoint: false,
        summaryOnly: false,
      });
    }
  }
  for (const call of calls) {
    if (call.name === "record_fact" && !call.fromCheckpoint && call.result !== undefined && !call.error && typeof call.args?.key === "string") {
      facts[call.args.key] = call.args.value;
    }
  }
  return { goal, facts, openQuestion: section(task, "open_question"), guidance: section(task, "guidance"), calls, turns };
}

/** True when a call came back without an error. */
export function succeeded(call: PastCall): boolean {
  return call.result !== undefined && call.error === null;
}

/** What the scripted agent does next: optional prose plus tool calls (arguments as an object, or a raw string). */
export interface AgentAction {
  content: string | null;
  toolCalls: { name: string; arguments: Record<string, unknown> | string }[];
}

/** Normalises a workspace-relative path for comparison: no `./` prefix, no trailing slash, `.` for the root. */
export function normPath(path: unknown): string {
  if (typeof path !== "string") return ".";
  const trimmed = path
    .trim()
    .replace(/^(\.\/)+/, "")
    .replace(/\/+$/, "");
  return trimmed === "" ? "." : trimmed;
}

export interface Paged<T> {
  /** Items of the pages read so far, following the offset chain from 0. */
  items: T[];
  /** True when the last page in the chain had `nextOffset: null`. */
  complete: boolean;
  /** The offset to ask for next (when not complete). */
  nextOffset: number;
  /** Failed calls for this path, and the last error. */
  errors: number;
  lastError: { code: string; message: string } | null;
}

function pages<T>(calls: readonly PastCall[], tool: string, path: string, itemsOf: (result: Record<string, unknown>) => T[]): Paged<T> {
  const byOffset = new Map<number, Record<string, unknown>>();
  let errors = 0;
  let lastError: { code: string; message: string } | null = null;
  for (const call of calls) {
    if (call.name !== tool || normPath(call.args?.path) !== path) continue;
    if (call.error) {
      errors++;
      lastError = call.error;
      continue;
    }
    // A checkpoint's one-line summary is not the page it stands for (it would read as an empty, complete page).
    if (call.summaryOnly) continue;
    const result = call.result && typeof call.result === "object" ? (call.result as Record<string, unknown>) : null;
    if (!result) continue;
    const offset = typeof result.offset === "number" ? result.offset : typeof call.args?.offset === "number" ? call.args.offset : 0;
    byOffset.set(offset, result);
  }
  const items: T[] = [];
  let offset = 0;
  const seen = new Set<number>();
  for (;;) {
    const page = byOffset.get(offset);
    if (!page || seen.has(offset)) return { items, complete: false, nextOffset: offset, errors, lastError };
    seen.add(offset);
    items.push(...itemsOf(page));
    if (typeof page.nextOffset !== "number") return { items, complete: true, nextOffset: offset, errors, lastError };
    offset = page.nextOffset;
  }
}

export interface ListedEntry {
  name: string;
  type: string;
}

/** The `list_files` pages of `path` seen so far (docs/CONTRACTS.md: `{entries, nextOffset}`). */
export function listing(calls: readonly PastCall[], path: string): Paged<ListedEntry> {
  return pages(calls, "list_files", path, (result) =>
    Array.isArray(result.entries)
      ? result.entries.flatMap((e) =>
          e && typeof e === "object" && typeof (e as ListedEntry).name === "string"
            ? [{ name: (e as ListedEntry).name, type: String((e as ListedEntry).type ?? "file") }]
            : [],
        )
      : [],
  );
}

/** The `read_file` pages of `path` seen so far, their contents in order (docs/CONTRACTS.md: `{content, offset, nextOffset}`). */
export function reading(calls: readonly PastCall[], path: string): Paged<string> & { content: string } {
  const paged = pages(calls, "read_file", path, (result) => [typeof result.content === "string" ? result.content : ""]);
  return { ...paged, content: paged.items.join("") };
}
