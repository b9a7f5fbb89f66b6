import type { ChatMessage, EffortLevel, ToolSchema } from "../types.ts";
import { listing, reading, readAgentContext, succeeded, type AgentAction, type AgentContext } from "./context.ts";
import { decideExfiltrate } from "./exfiltrate.ts";
import { decideLicenseAudit, parseLicenseAuditGoal } from "./license-audit.ts";
import { decideMcpAudit } from "./mcp-audit.ts";
import { reasoningTokens } from "./effort.ts";
import { decideSmokeFromChat, SMOKE_MODEL } from "./smoke.ts";
import { decideNoProcedure } from "./no-procedure.ts";

/**
 * The scripted agents: one decision function per model name, each a pure function of the request
 * messages (no state across requests), so the same request always gets the same answer and a run
 * resumed from a checkpoint carries on from its working set.
 *
 * - `scripted`: the competent agent (the license-audit demo and the scenarios' README goal; any other
 *   goal is a dead end saying a real provider is needed)
 * - `scripted-loop`: calls the same tool with identical arguments forever
 * - `scripted-stall`: keeps calling tools and talking, never records a fact
 * - `scripted-budget`: works productively (new facts every turn) and never finishes
 * - `scripted-drift`: starts on the task, then its open question drifts to something unrelated
 * - `scripted-dead-end`: looks around, then declares a dead end with a reason
 * - `scripted-tool-failure`: calls a tool with malformed arguments, again and again
 * - `scripted-exfiltrate`: obeys a workspace file that says "email this file to …" / "post this file to …" (scripted/exfiltrate.ts)
 * - `scripted-mcp-audit`: the MCP demo, only through MCP tools of the `files` and `memory` servers (scripted/mcp-audit.ts)
 * - `scripted-smoke`: the profile smoke test — calls each offered tool once (scripted/smoke.ts)
 * - `scripted-sloppy`: the competent agent that misreads every SLOPPY_EVERY-th license (evals offline)
 * - `scripted-judge`: an eval's judge, PASS or FAIL with the reason
 * - `scripted-notes`: records NOTES_COUNT large notes (~9 kB each), one per turn, then finishes — a
 *   long run whose working set outgrows a small window many times over (saturation, compaction)
 */
export type ScriptedBehaviour = (ctx: AgentContext) => AgentAction;

/** The `workspace:entries` fact as the README procedure records it: `{count, sample}` (sample: up to 20 names, folders with a trailing "/"). */
function entriesFact(value: unknown): { count: number; sample: string[] } | null {
  if (!value || typeof value !== "object") return null;
  const { count, sample } = value as Record<string, unknown>;
  if (typeof count !== "number" || !Array.isArray(sample)) return null;
  return { count, sample: sample.filter((v): v is string => typeof v === "string") };
}

const README_NAME = /^readme(\.|$)/i;

/**
 * Goals the README procedure answers: the scenarios' goal ("Find out what this project is from the
 * README in the workspace…") and goals like it — one that names the README, or asks what the
 * project (or workspace) is. Anything else the scripted model has no procedure for.
 */
export function isReadmeGoal(goal: string): boolean {
  return /\breadme\b/i.test(goal) || /\bwhat (this|the) (project|workspace) is\b/i.test(goal);
}

/**
 * The README procedure ({@link isReadmeGoal}): list the workspace; record `workspace:entries`
 * ({count, sample}) while reading the README; record `workspace:readme` (its first line, what the
 * project is); finish with it. A workspace without a README (or one that cannot be listed) is a dead
 * end saying so. What it already established comes from the working set first: after a checkpoint (a
 * segment cut, a resume) the prompt holds the working set and one-line step summaries, not the
 * listing or the file, so the facts are what it knows — it lists or reads again only for what no
 * fact holds.
 */
export function decideReadmeGoal(ctx: AgentContext): AgentAction {
  const entries = entriesFact(ctx.facts["workspace:entries"]);
  const readmeFact = typeof ctx.facts["workspace:readme"] === "string" ? ctx.facts["workspace:readme"] : null;
  const root = listing(ctx.calls, ".");
  // The README's name: from this segment's listing, else from the recorded sample.
  const readmeName = root.complete
    ? (root.items.find((e) => e.type === "file" && README_NAME.test(e.name))?.name ?? null)
    : (entries?.sample.find((n) => !n.endsWith("/") && README_NAME.test(n)) ?? null);
  const needListing = !entries || (readmeFact === null && readmeName === null && entries.count > entries.sample.length);
  if (needListing && !root.complete && root.errors < 2) {
    return {
      content: "Looking for the README in the workspace.",
      toolCalls: [{ name: "list_files", arguments: { path: ".", offset: root.nextOffset } }],
    };
  }
  const readmeRead = readmeName ? reading(ctx.calls, readmeName) : null;
  // What it learnt goes into the working set in the next turn, together with the next read: a
  // checkpoint between turns keeps facts, not tool outputs.
  const calls: AgentAction["toolCalls"] = [];
  if (!entries && root.complete) {
    calls.push({
      name: "record_fact",
      arguments: {
        key: "workspace:entries",
        value: { count: root.items.length, sample: root.items.slice(0, 20).map((e) => (e.type === "dir" ? `${e.name}/` : e.name)) },
      },
    });
  }
  const firstLine =
    readmeFact ??
    readmeRead?.items
      .join("")
      .split("\n")
      .map((l) => l.replace(/^#+\s*/, "").trim())
      .find((l) => l.length > 0) ??
    null;
  if (firstLine && readmeFact === null) calls.push({ name: "record_fact", arguments: { key: "workspace:readme", value: firstLine.slice(0, 300) } });
  if (readmeFact === null && readmeName && readmeRead && !readmeRead.complete && readmeRead.nextOffset === 0 && readmeRead.errors === 0) {
    return {
      content: `Reading ${readmeName} to find out what the project is.`,
      toolCalls: [...calls, { name: "read_file", arguments: { path: readmeName, limit: 4096 } }],
    };
  }
  if (calls.length > 0) return { content: "Noting what I found.", toolCalls: calls };
  const count = entries?.count ?? (root.complete ? root.items.length : null);
  if (firstLine === null) {
    const why =
      count === null
        ? `the workspace could not be listed (${root.lastError?.message ?? "unknown error"})`
        : readmeName === null
          ? `the workspace (${count} entries) has no README`
          : `its ${readmeName} could not be read or is empty`;
    return {
      content: null,
      toolCalls: [{ name: "declare_dead_end", arguments: { reason: `The goal asks what the project is from its README, but ${why}.` } }],
    };
  }
  const summary = `The project is "${firstLine.slice(0, 120)}" (the first line of its README); the workspace has ${count ?? "an unknown number of"} entries.`;
  return { content: null, toolCalls: [{ name: "finish", arguments: { result: summary } }] };
}

/**
 * A working-set value that checkpoint compaction set aside: `{$ref, description}`
 * (server/domain/fact-reference.ts), as the model sees it in `<working_set>`.
 */
function isReference(value: unknown): value is { $ref: string; description: string } {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return typeof v.$ref === "string" && typeof v.description === "string";
}

/**
 * `scripted`: the license audit when the goal asks for it, the README procedure for the scenarios'
 * goal ({@link isReadmeGoal}), and an honest dead end for any other goal ({@link decideNoProcedure}). A segment that
 * starts from a compacted checkpoint (facts set aside as references) first reads the first 4,000
 * characters of the first reference back with `read_reference`, unless a step it can see (this
 * segment's, or the checkpoint's completed steps) already read one — each read takes room in a window
 * that was just compacted — as a careful agent checks what was set aside before going on; the path
 * the compaction integration test exercises.
 */
export function decideCompetent(ctx: AgentContext): AgentAction {
  const refKey = Object.keys(ctx.facts)
    .filter((k) => isReference(ctx.facts[k]))
    .sort()[0];
  if (refKey !== undefined && !ctx.calls.some((c) => c.name === "read_reference")) {
    const ref = (ctx.facts[refKey] as { $ref: string }).$ref;
    return {
      content: `Some facts were set aside as references; reading ${JSON.stringify(refKey)} back first.`,
      toolCalls: [{ name: "read_reference", arguments: { ref, limit: 4000 } }],
    };
  }
  const audit = parseLicenseAuditGoal(ctx.goal);
  if (audit) return decideLicenseAudit(ctx, audit);
  return isReadmeGoal(ctx.goal) ? decideReadmeGoal(ctx) : decideNoProcedure(ctx);
}

const loop: ScriptedBehaviour = () => ({
  content: "Let me check the workspace again.",
  toolCalls: [{ name: "list_files", arguments: { path: "." } }],
});

const stall: ScriptedBehaviour = (ctx) => ({
  content: `Still thinking about the best approach (attempt ${ctx.turns + 1}). Let me look around a bit more.`,
  toolCalls: [{ name: "list_files", arguments: { path: ".", offset: ctx.turns, limit: 1 } }],
});

const budget: ScriptedBehaviour = (ctx) => {
  // Numbered from the working set, not the turn count: a resumed or continued segment goes on counting.
  const n = Object.keys(ctx.facts).filter((k) => k.startsWith("progress:")).length + 1;
  return {
    content: `Making progress: step ${n}.`,
    toolCalls: [
      { name: "list_files", arguments: { path: ".", offset: n - 1, limit: 1 } },
      { name: "record_fact", arguments: { key: `progress:${n}`, value: { step: n, note: "examined one more workspace entry" } } },
    ],
  };
};

/** How many notes `scripted-notes` records, and the characters of each (~2,200 tokens). */
export const NOTES_COUNT = 24;
export const NOTE_CHARS = 9_000;

/** The text of note `n` that `scripted-notes` records (deterministic, exactly NOTE_CHARS characters). */
export function noteText(n: number): string {
  const lines: string[] = [];
  for (let i = 0; lines.join("\n").length < NOTE_CHARS; i++) lines.push(`note ${n}.${i}: an observation about the workspace, kept whole`);
  return lines.join("\n").slice(0, NOTE_CHARS);
}

const notes: ScriptedBehaviour = (ctx) => {
  // Counted from the working set (a note set aside as a reference still counts): a new segment goes on.
  const n = Object.keys(ctx.facts).filter((k) => k.startsWith("notes:")).length;
  if (n >= NOTES_COUNT) return { content: `All ${n} notes recorded.`, toolCalls: [{ name: "finish", arguments: { result: `Recorded ${n} notes.` } }] };
  return {
    content: `Recording note ${n + 1} of ${NOTES_COUNT}.`,
    toolCalls: [{ name: "record_fact", arguments: { key: `notes:${String(n).padStart(2, "0")}`, value: noteText(n) } }],
  };
};

const drift: ScriptedBehaviour = (ctx) => {
  if (ctx.turns < 2) return decideCompetent(ctx);
  const n = ctx.turns - 1;
  return {
    content: "Actually, a more interesting question is how these libraries compare in bundle size and popularity. Let me look into that instead.",
    toolCalls: [
      {
        name: "record_fact",
        arguments: { key: "open_question", value: `Which JavaScript framework has the smallest bundle size and the most GitHub stars? (line of inquiry ${n})` },
      },
      { name: "record_fact", arguments: { key: `tangent:${n}`, value: `Comparing framework popularity trends, part ${n}` } },
    ],
  };
};

const deadEnd: ScriptedBehaviour = (ctx) => {
  if (!ctx.calls.some((c) => c.name === "list_files" && succeeded(c)) && ctx.turns === 0) {
    return { content: "Checking what the workspace contains.", toolCalls: [{ name: "list_files", arguments: { path: "." } }] };
  }
  return {
    content: null,
    toolCalls: [
      {
        name: "declare_dead_end",
        arguments: { reason: "The task cannot be completed: the information it needs is not available in the workspace and no tool can obtain it." },
      },
    ],
  };
};

const toolFailure: ScriptedBehaviour = (ctx) => ({
  content: "Reading the file.",
  toolCalls: [{ name: "read_file", arguments: ctx.turns % 2 === 0 ? '{"path": ' : '{"path": 42, "offset": "start"}' }],
});

/** Every SLOPPY_EVERY-th package of an audit (1-based position in `audit:packages`) gets its license misread by `scripted-sloppy`. */
export const SLOPPY_EVERY = 7;

/**
 * `scripted-sloppy`: the competent agent, except that it misreads the license of every
 * {@link SLOPPY_EVERY}-th package of a license audit (records `UNKNOWN`), so audits of fewer than
 * that many packages pass and larger ones finish with a wrong licenses.csv — a model that "sometimes
 * misses a fact", deterministically, for evals that compare profiles offline.
 */
function sloppy(ctx: AgentContext): AgentAction {
  const action = decideCompetent(ctx);
  const selected = ctx.facts["audit:packages"];
  if (!Array.isArray(selected)) return action;
  return {
    ...action,
    toolCalls: action.toolCalls.map((call) => {
      if (call.name !== "record_fact" || typeof call.arguments !== "object") return call;
      const key = call.arguments.key;
      const value = call.arguments.value;
      if (typeof key !== "string" || !key.startsWith("license:") || !value || typeof value !== "object") return call;
      const position = selected.indexOf(key.slice("license:".length)) + 1;
      if (position === 0 || position % SLOPPY_EVERY !== 0) return call;
      return { ...call, arguments: { ...call.arguments, value: { ...(value as Record<string, unknown>), license: "UNKNOWN" } } };
    }),
  };
}

/**
 * `scripted-judge`: answers an eval's judge question (a user message holding `<outcome>…</outcome>`
 * JSON) with `PASS` when the task completed and nothing in its result or artifacts says `UNKNOWN`,
 * else `FAIL` with the reason — a strict but simple grader, deterministic.
 */
function judge(ctx: AgentContext, messages: readonly ChatMessage[]): AgentAction {
  void ctx;
  const last = messages.at(-1);
  const text = last && last.role === "user" ? last.content : "";
  const outcome = /<outcome>([\s\S]*)<\/outcome>/.exec(text)?.[1] ?? "";
  let status = "";
  try {
    const parsed = (JSON.parse(outcome) as { status?: unknown }).status;
    status = typeof parsed === "string" ? parsed : "";
  } catch {
    return { content: "FAIL: the outcome is not JSON", toolCalls: [] };
  }
  if (status !== "completed") return { content: `FAIL: the task ended ${status || "without a status"}`, toolCalls: [] };
  if (outcome.includes("UNKNOWN")) return { content: "FAIL: the result says UNKNOWN for at least one item", toolCalls: [] };
  return { content: "PASS: the task completed and every item is accounted for", toolCalls: [] };
}

/** Behaviours by model name (docs/ARCHITECTURE.md "Processes": a profile chooses the scripted behaviour by model name). */
export const SCRIPTED_MODELS: Readonly<Record<string, ScriptedBehaviour>> = {
  scripted: decideCompetent,
  "scripted-loop": loop,
  "scripted-stall": stall,
  "scripted-budget": budget,
  "scripted-drift": drift,
  "scripted-dead-end": deadEnd,
  "scripted-tool-failure": toolFailure,
  "scripted-exfiltrate": decideExfiltrate,
  "scripted-mcp-audit": decideMcpAudit,
  "scripted-sloppy": sloppy,
  "scripted-notes": notes,
  "scripted-judge": (ctx) => ({ content: `FAIL: no outcome to judge (${Object.keys(ctx.facts).length} facts)`, toolCalls: [] }),
  // The smoke test's agent needs the request's tools: the server answers it with decideSmokeFromChat
  // (scripted/smoke.ts); this entry names the model, and without tools it has nothing to call.
  [SMOKE_MODEL]: (ctx) => ({
    content: null,
    toolCalls: [{ name: "finish", arguments: { result: `Smoke test: no tools to call were offered (${ctx.turns} turns).` } }],
  }),
};

/** A scripted reply: the action, and the hidden reasoning tokens it spent (0 without an effort). */
export interface ScriptedReply {
  action: AgentAction;
  reasoningTokens: number;
}

/**
 * The reply of scripted model `model` to a request at `effort` (each wire format's route reads it
 * from its own field: Chat Completions `reasoning_effort`, Responses `reasoning.effort`, Messages
 * effort), or null when no scripted model has that name. Pure: depends only on its arguments; how
 * effort changes the agent is scripted/effort.ts.
 */
export function scriptedReply(
  model: string,
  messages: readonly ChatMessage[],
  { effort = null, tools }: { effort?: EffortLevel | null; tools?: readonly ToolSchema[] } = {},
): ScriptedReply | null {
  const action = decideNextAction(model, messages, { effort, tools });
  if (!action) return null;
  return { action, reasoningTokens: reasoningTokens(effort, model, readAgentContext(messages)) };
}

/**
 * The next assistant action for a request to model `model`, or null when no scripted model has that
 * name. Pure: depends only on `model`, `messages`, `effort` (at low effort the competent agent
 * sometimes fumbles a decision that matters: scripted/effort.ts) and the offered `tools` (which only
 * the smoke test's agent reads).
 */
export function decideNextAction(
  model: string,
  messages: readonly ChatMessage[],
  { effort = null, tools }: { effort?: EffortLevel | null; tools?: readonly ToolSchema[] } = {},
): AgentAction | null {
  const behaviour = SCRIPTED_MODELS[model];
  if (!behaviour) return null;
  const ctx: AgentContext = { ...readAgentContext(messages), effort, model };
  if (model === "scripted-judge") return judge(ctx, messages);
  const last = messages.at(-1);
  if (last?.role === "user" && last.content.includes("<checkpoint_request>")) return checkpointAnswer(model, ctx);
  if (model === SMOKE_MODEL) return decideSmokeFromChat(tools, messages);
  // A misbehaving agent that a human has given guidance to (after an escalation) takes it and does
  // the task properly — what the Resume-with-guidance path is for. The dead-end agent stays convinced,
  // and the exfiltrating one keeps obeying the file (the egress gate, not guidance, must stop it).
  if (
    ctx.guidance &&
    model !== "scripted" &&
    model !== "scripted-dead-end" &&
    model !== "scripted-exfiltrate" &&
    model !== "scripted-mcp-audit" &&
    model !== "scripted-sloppy"
  )
    return decideCompetent(ctx);
  return behaviour(ctx);
}

/**
 * The answer to Longhaul's checkpoint request (a user message holding `<checkpoint_request>`): a
 * JSON object `{summary, openQuestion, phase}` written from the working set and the recent calls,
 * as a real model would summarise its progress. `scripted-drift` lets its open question wander off
 * the goal (the drift scenario).
 */
export function checkpointAnswer(model: string, ctx: AgentContext): AgentAction {
  const factCount = Object.keys(ctx.facts).length;
  const recent = ctx.calls
    .filter((c) => !c.fromCheckpoint)
    .slice(-5)
    .map((c) => c.name);
  const audit = parseLicenseAuditGoal(ctx.goal);
  let openQuestion: string;
  let phase: string;
  if (model === "scripted-drift") {
    openQuestion = "Which JavaScript bundler has the nicest logo, and what colours does it use?";
    phase = "exploring";
  } else if (audit) {
    const selected = Array.isArray(ctx.facts["audit:packages"]) ? (ctx.facts["audit:packages"] as unknown[]).length : null;
    const done = Object.keys(ctx.facts).filter((k) => k.startsWith("license:")).length;
    phase = selected === null ? "listing packages" : done < selected ? "reading licenses" : "reporting";
    openQuestion =
      selected === null
        ? "Which packages are the first ones in node_modules?"
        : done < selected
          ? `Which license does each of the remaining ${selected - done} of ${selected} packages declare?`
          : "Are licenses.csv and the summary email done, so the audit can finish?";
  } else {
    phase = "working";
    openQuestion = "What is the next step toward the goal?";
  }
  const summary = `${factCount} facts established${recent.length ? `; last actions: ${recent.join(", ")}` : ""}.`;
  return { content: JSON.stringify({ summary, openQuestion, phase }), toolCalls: [] };
}
