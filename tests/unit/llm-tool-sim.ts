import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { decideNextAction } from "../../server/llm/scripted/agent.ts";
import type { ChatMessage, EffortLevel } from "../../server/llm/types.ts";

/**
 * A tiny in-test stand-in for Longhaul's tool gateway (docs/CONTRACTS.md shapes) over a real directory,
 * plus a driver that plays the agent loop against the scripted agent's decision function. Not a test
 * file: imported by tests/unit/llm-*.test.ts.
 */

export interface SimCall {
  name: string;
  rawArguments: string;
  output: unknown;
}

export interface ToolSimulator {
  facts: Record<string, unknown>;
  artifacts: Map<string, { mime: string; content: string }>;
  emails: { to: string; subject: string; body: string }[];
  finished: string | null;
  deadEnd: string | null;
  log: SimCall[];
  execute(name: string, rawArguments: string): unknown;
}

const err = (code: string, message: string) => ({ error: { code, message } });

export function createToolSimulator({
  root,
  listPageCap = 1000,
  readPageCap = 65536,
  facts = {},
  inject,
}: {
  root: string;
  listPageCap?: number;
  readPageCap?: number;
  facts?: Record<string, unknown>;
  /** Return an `{error}` output to fail this call instead of running it. */
  inject?: (name: string, args: Record<string, unknown>, log: readonly SimCall[]) => unknown;
}): ToolSimulator {
  const sim: ToolSimulator = {
    facts: { ...facts },
    artifacts: new Map(),
    emails: [],
    finished: null,
    deadEnd: null,
    log: [],
    execute(name, rawArguments) {
      let output: unknown;
      let args: Record<string, unknown> | null = null;
      try {
        const parsed: unknown = JSON.parse(rawArguments);
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) args = parsed as Record<string, unknown>;
      } catch {
        args = null;
      }
      if (!args) output = err("invalid_json", "arguments are not a JSON object");
      else output = inject?.(name, args, sim.log) ?? run(name, args);
      sim.log.push({ name, rawArguments, output });
      return output;
    },
  };
  const resolve = (p: unknown) => path.join(root, typeof p === "string" ? p : ".");
  function run(name: string, args: Record<string, unknown>): unknown {
    switch (name) {
      case "list_files": {
        const dir = resolve(args.path ?? ".");
        let names: string[];
        try {
          if (!statSync(dir).isDirectory()) return err("not_a_directory", `${String(args.path)} is not a directory`);
          names = readdirSync(dir);
        } catch {
          return err("not_found", `path: ${JSON.stringify(args.path)} does not exist`);
        }
        if (typeof args.path !== "string" && args.path !== undefined) return err("invalid_arguments", "path must be a string");
        const all = readdirSync(dir, { withFileTypes: true })
          .map((d) => ({ name: d.name, type: d.isSymbolicLink() ? "symlink" : d.isDirectory() ? "dir" : "file" }))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        void names;
        const offset = typeof args.offset === "number" ? args.offset : 0;
        const limit = Math.min(typeof args.limit === "number" ? args.limit : 200, listPageCap);
        const entries = all.slice(offset, offset + limit);
        const end = offset + entries.length;
        return { path: args.path ?? ".", entries, total: all.length, nextOffset: end < all.length ? end : null };
      }
      case "read_file": {
        if (typeof args.path !== "string") return err("invalid_arguments", "path: expected string");
        let bytes: Buffer;
        try {
          bytes = readFileSync(resolve(args.path));
        } catch {
          return err("not_found", `path: ${JSON.stringify(args.path)} does not exist`);
        }
        const offset = typeof args.offset === "number" ? args.offset : 0;
        const limit = Math.min(typeof args.limit === "number" ? args.limit : 65536, readPageCap);
        const slice = bytes.subarray(offset, offset + limit);
        const end = offset + slice.length;
        return {
          path: args.path,
          content: slice.toString("utf8"),
          offset,
          bytes: slice.length,
          totalBytes: bytes.length,
          nextOffset: end < bytes.length ? end : null,
        };
      }
      case "record_fact": {
        if (typeof args.key !== "string" || args.key.length === 0) return err("invalid_arguments", "key: expected string");
        const previous = sim.facts[args.key] ?? null;
        sim.facts[args.key] = args.value;
        return { key: args.key, recorded: true, previous };
      }
      case "write_artifact": {
        if (typeof args.name !== "string" || typeof args.content !== "string" || typeof args.mime !== "string")
          return err("invalid_arguments", "name, mime, content required");
        sim.artifacts.set(args.name, { mime: args.mime, content: args.content });
        return { name: args.name, mime: args.mime, bytes: Buffer.byteLength(args.content) };
      }
      case "send_email": {
        if (typeof args.to !== "string" || typeof args.subject !== "string" || typeof args.body !== "string")
          return err("invalid_arguments", "to, subject, body required");
        sim.emails.push({ to: args.to, subject: args.subject, body: args.body });
        return { messageId: `msg-${sim.emails.length}`, deduplicated: false };
      }
      case "finish":
        sim.finished = String(args.result);
        return { finished: true };
      case "declare_dead_end":
        sim.deadEnd = String(args.reason);
        return { deadEnd: true };
      default:
        return err("unknown_tool", `no tool named ${name}`);
    }
  }
  return sim;
}

/** The task message per docs/CONTRACTS.md "Model context". */
export function taskMessages(goal: string, workingSet: Record<string, unknown> = {}, extra = ""): ChatMessage[] {
  return [
    { role: "system", content: "You are a careful agent. Use the tools." },
    { role: "user", content: `<goal>${goal}</goal>\n<working_set>${JSON.stringify(workingSet)}</working_set>${extra}` },
  ];
}

/**
 * Plays the agent loop: ask the scripted model (decision function) for an action, run its tool calls
 * through the simulator, append assistant + tool messages, until finish/dead end or `maxTurns`.
 */
export function runScriptedAgent({
  model = "scripted",
  messages,
  sim,
  maxTurns = 200,
  effort = null,
}: {
  model?: string;
  messages: ChatMessage[];
  sim: ToolSimulator;
  maxTurns?: number;
  /** The effort every request asks for (null: none sent). */
  effort?: EffortLevel | null;
}): { turns: number; messages: ChatMessage[] } {
  const transcript = [...messages];
  let turns = 0;
  while (turns < maxTurns && sim.finished === null && sim.deadEnd === null) {
    const action = decideNextAction(model, transcript, { effort });
    if (!action) throw new Error(`no scripted model ${model}`);
    turns++;
    const toolCalls = action.toolCalls.map((call, k) => ({
      id: `call_${turns}_${k}`,
      type: "function" as const,
      function: { name: call.name, arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments) },
    }));
    transcript.push({ role: "assistant", content: action.content, tool_calls: toolCalls });
    if (toolCalls.length === 0) break;
    for (const call of toolCalls) {
      transcript.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(sim.execute(call.function.name, call.function.arguments)) });
    }
  }
  return { turns, messages: transcript };
}
