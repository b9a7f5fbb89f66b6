import { parseMcpAuditGoal } from "../../../lib/contracts/demo.ts";
import type { AgentAction, AgentContext, PastCall } from "./context.ts";
import { decideNoProcedure } from "./no-procedure.ts";

/**
 * `scripted-mcp-audit`: the offline MCP demo's agent. It works only through MCP tools of
 * two real servers from npm, named by the goal's convention (lib/contracts/demo.ts):
 * `files` (@modelcontextprotocol/server-filesystem, read-only tools) and `memory`
 * (@modelcontextprotocol/server-memory, `create_entities` is a side effect).
 *
 * 1. `files__list_allowed_directories` → records `mcp-audit:root`;
 * 2. `files__list_directory` of it → records `mcp-audit:files` (the first N files by name);
 * 3. `files__read_text_file` of each, three per turn → every line holding TODO or FIXME is a
 *    finding; records `mcp-audit:file:<name>` per file, then `mcp-audit:findings`;
 * 4. one `memory__create_entities` per finding, three per turn (entity `finding <file>:<line>`, type
 *    `finding`), each recorded as `mcp-audit:stored:<entity>` once it came back;
 * 5. records `mcp-audit:stored` and finishes with the count.
 *
 * Pure: a function of the request messages. What it knows after a checkpoint comes from its facts;
 * after a resume it may propose the same create calls again — the ledger answers them with the
 * recorded result (same fingerprint), so each finding is stored once.
 */

const Q = (server: string, tool: string) => `${server}__${tool}`;
/** Files read, or findings stored, per turn (the working set grows every turn: no stall). */
const BATCH = 3;

/** A finding: one line of a notes file holding TODO or FIXME. */
export interface McpAuditFinding {
  file: string;
  line: number;
  text: string;
}

function textOf(call: PastCall | undefined): string | null {
  if (!call || call.error || call.result === undefined) return null;
  const text = (call.result as { text?: unknown }).text;
  return typeof text === "string" ? text : null;
}

function lastOk(calls: readonly PastCall[], name: string, match: (c: PastCall) => boolean = () => true): PastCall | undefined {
  return calls.filter((c) => c.name === name && !c.fromCheckpoint && textOf(c) !== null && match(c)).at(-1);
}

/** The findings of one file's text: its TODO / FIXME lines, numbered from 1. */
export function findingsOf(file: string, text: string): McpAuditFinding[] {
  return text
    .split("\n")
    .map((l, i) => ({ file, line: i + 1, text: l.trim() }))
    .filter((f) => /\b(TODO|FIXME)\b/.test(f.text));
}

/** The entity one finding is stored as (the same arguments every time: the ledger's fingerprint). */
export function findingEntity(f: McpAuditFinding): { name: string; entityType: string; observations: string[] } {
  return { name: `finding ${f.file}:${f.line}`, entityType: "finding", observations: [f.text.slice(0, 500)] };
}

function finish(result: string): AgentAction {
  return { content: null, toolCalls: [{ name: "finish", arguments: { result } }] };
}

/** The decision (see the module's description). */
export function decideMcpAudit(ctx: AgentContext): AgentAction {
  const goal = parseMcpAuditGoal(ctx.goal);
  if (!goal) return decideNoProcedure(ctx);
  // The servers the goal names (by default the seed's `files` and `memory`).
  const LIST_ALLOWED = Q(goal.filesServer, "list_allowed_directories");
  const LIST_DIR = Q(goal.filesServer, "list_directory");
  const READ = Q(goal.filesServer, "read_text_file");
  const CREATE = Q(goal.memoryServer, "create_entities");
  const facts = ctx.facts;
  const stored = facts["mcp-audit:stored"];
  if (typeof stored === "number") return finish(`Stored ${stored} finding(s) in the memory server, one entity each.`);

  let root = typeof facts["mcp-audit:root"] === "string" ? facts["mcp-audit:root"] : null;
  const pre: AgentAction["toolCalls"] = [];
  if (!root) {
    const allowed = textOf(lastOk(ctx.calls, LIST_ALLOWED));
    const dir = allowed
      ?.split("\n")
      .map((l) => l.trim())
      .find((l) => l.startsWith("/"));
    if (!dir) return { content: "Asking the files server which folder it may read.", toolCalls: [{ name: LIST_ALLOWED, arguments: {} }] };
    root = dir;
    pre.push({ name: "record_fact", arguments: { key: "mcp-audit:root", value: dir } });
  }

  let files = Array.isArray(facts["mcp-audit:files"]) ? (facts["mcp-audit:files"] as unknown[]).filter((f): f is string => typeof f === "string") : null;
  if (!files) {
    const listing = textOf(lastOk(ctx.calls, LIST_DIR, (c) => c.args?.path === root));
    if (listing === null) return { content: `Listing ${root}.`, toolCalls: [...pre, { name: LIST_DIR, arguments: { path: root } }] };
    files = listing
      .split("\n")
      .map((l) => /^\[FILE\]\s+(.+)$/.exec(l.trim())?.[1])
      .filter((n): n is string => !!n)
      .sort()
      .slice(0, goal.limit);
    pre.push({ name: "record_fact", arguments: { key: "mcp-audit:files", value: files } });
  }

  // Read in batches, recording each file's findings as its own fact, so the working set grows as the work does.
  const perFile = (f: string) => facts[`mcp-audit:file:${f}`];
  const pending = files.filter((f) => !Array.isArray(perFile(f)));
  if (pending.length) {
    const records: AgentAction["toolCalls"] = [];
    const unread: string[] = [];
    for (const f of pending) {
      const text = textOf(lastOk(ctx.calls, READ, (c) => c.args?.path === `${root}/${f}`));
      if (text === null) unread.push(f);
      else records.push({ name: "record_fact", arguments: { key: `mcp-audit:file:${f}`, value: findingsOf(f, text) } });
    }
    const batch = unread.slice(0, BATCH);
    if (batch.length || records.length || pre.length)
      return {
        content: batch.length ? `Reading ${batch.length} more file(s).` : "Noting the findings.",
        toolCalls: [...pre, ...records, ...batch.map((f) => ({ name: READ, arguments: { path: `${root}/${f}` } }))],
      };
  }
  const findings = files.flatMap((f) => (Array.isArray(perFile(f)) ? (perFile(f) as McpAuditFinding[]) : []));
  if (!Array.isArray(facts["mcp-audit:findings"])) pre.push({ name: "record_fact", arguments: { key: "mcp-audit:findings", value: findings } });

  // Store in batches: a create that came back is recorded as a fact (`mcp-audit:stored:<entity>`).
  const storedKey = (f: McpAuditFinding) => `mcp-audit:stored:${findingEntity(f).name}`;
  const records: AgentAction["toolCalls"] = [];
  const toCreate: McpAuditFinding[] = [];
  for (const f of findings.filter((x) => facts[storedKey(x)] === undefined)) {
    const done = ctx.calls.find(
      (c) => c.name === CREATE && !c.fromCheckpoint && c.result !== undefined && JSON.stringify(c.args?.entities) === JSON.stringify([findingEntity(f)]),
    );
    if (done?.error)
      return { content: null, toolCalls: [{ name: "declare_dead_end", arguments: { reason: `The memory server refused a finding: ${done.error.message}` } }] };
    if (done) records.push({ name: "record_fact", arguments: { key: storedKey(f), value: true } });
    else toCreate.push(f);
  }
  const batch = toCreate.slice(0, BATCH);
  if (!batch.length && !records.length)
    return { content: "All findings stored.", toolCalls: [...pre, { name: "record_fact", arguments: { key: "mcp-audit:stored", value: findings.length } }] };
  return {
    content: batch.length ? `Storing ${batch.length} more finding(s) in the memory server, one entity each.` : "Noting what was stored.",
    toolCalls: [...pre, ...records, ...batch.map((f) => ({ name: CREATE, arguments: { entities: [findingEntity(f)] } }))],
  };
}
