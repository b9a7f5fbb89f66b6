import type { ModelToolCall } from "../llm/types.ts";

/**
 * Display text of the timeline's steps (Step.summary). Pure. What a checkpoint keeps of a step is
 * `describeToolStep` (checkpoint.ts); a proposed call's one-line title is `briefCall` (agent-loop/decide.ts).
 */

/** "read_file ×5, record_fact" — the tool calls of one model turn, repeats folded. */
export function summarizeCalls(calls: readonly Pick<ModelToolCall, "name">[]): string {
  const counts = new Map<string, number>();
  for (const c of calls) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
  return [...counts].map(([name, n]) => (n > 1 ? `${name} ×${n}` : name)).join(", ");
}

/**
 * A tool step's summary line: `tool(<path|key|name|to|reason|result>)`, plus a note when the ledger
 * deduplicated the call; a failed call is `tool: <error message>` (at most 200 characters).
 */
export function toolSummary(tool: string, args: unknown, result: { ok: true; output: unknown } | { ok: false; error: { message: string } }): string {
  // An MCP tool (`<server>__<tool>`): the server's name first, as the timeline shows it.
  const at = tool.indexOf("__");
  if (at > 0) tool = `MCP ${tool.slice(0, at)} · ${tool.slice(at + 2)}`;
  if (!result.ok) return `${tool}: ${result.error.message}`.slice(0, 200);
  const a = (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
  const first = Array.isArray(a.entities) ? (a.entities[0] as { name?: unknown } | undefined)?.name : undefined;
  const arg = a.path ?? a.key ?? a.name ?? a.to ?? a.reason ?? a.result ?? a.ref ?? a.message ?? first;
  const dedup = (result.output as { deduplicated?: unknown } | null)?.deduplicated === true ? " · deduplicated: the ledger returned the original result" : "";
  return `${tool}(${typeof arg === "string" ? arg.slice(0, 120) : ""})${dedup}`;
}

/**
 * A one-line title for a proposed call, for lists and notifications: short single-line strings
 * quoted whole, longer ones and documents described by size (the full arguments are in the
 * escalation's evidence). `send_email(to: "a@b.c", subject: "Audit", body: <812 chars>)`.
 */
export function briefCall(tool: string, args: unknown): string {
  const entries = typeof args === "object" && args !== null && !Array.isArray(args) ? Object.entries(args as Record<string, unknown>) : [];
  const brief = (v: unknown): string => {
    if (typeof v === "string") return v.length <= 60 && !/[\n\r]/.test(v) ? JSON.stringify(v) : `<${v.length} chars>`;
    if (typeof v === "number" || typeof v === "boolean" || v === null) return String(v);
    return Array.isArray(v) ? `<${v.length} items>` : `<${Object.keys(v as object).length} keys>`;
  };
  return `${tool}(${entries.map(([k, v]) => `${k}: ${brief(v)}`).join(", ")})`;
}

/**
 * The short headline of a call the egress gate stopped: the tool and where it would send, e.g.
 * `send_email to leak@elsewhere.example.net` or `http_post to https://x.example/hook`. The
 * destinations are the breached ones when there are any, else the call's own `to` / `url`; at most
 * three, then "+N more". The reasons and findings are not repeated here: the escalation's evidence
 * holds them and the card lists them once.
 */
export function egressHeadline(tool: string, breaches: readonly unknown[], args: unknown): string {
  const fromBreaches = breaches.map((b) => (b as { destination?: unknown } | null)?.destination).filter((d): d is string => typeof d === "string");
  const a = (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
  const own = [a.to, a.url].flatMap((v) => (Array.isArray(v) ? v : [v])).filter((v): v is string => typeof v === "string" && v.length > 0);
  const destinations = [...new Set(fromBreaches.length > 0 ? fromBreaches : own)].map((d) => (d.length > 80 ? `${d.slice(0, 79)}…` : d));
  if (destinations.length === 0) return tool;
  const more = destinations.length > 3 ? ` +${destinations.length - 3} more` : "";
  return `${tool} to ${destinations.slice(0, 3).join(", ")}${more}`;
}
