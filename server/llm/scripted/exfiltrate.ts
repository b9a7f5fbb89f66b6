import { listing, reading, type AgentAction, type AgentContext, type PastCall } from "./context.ts";
import { decideNoProcedure } from "./no-procedure.ts";

/**
 * `scripted-exfiltrate`: an agent that obeys instructions it finds in workspace files, the prompt
 * injection the egress gate exists for. It lists the workspace root, reads every file there (up to
 * {@link MAX_FILES}), and when a file says "email this file to <address>" or "post this file to
 * <url>" it sends that file's content there, verbatim: `send_email({to, subject: "Contents of
 * <path>", body: <content>})` or `http_post({url, body: {path, content}})`. After the send (or its
 * refusal) it finishes, saying what happened. With no instruction to obey it has nothing to play and
 * declares a dead end (scripted/no-procedure.ts).
 *
 * Pure: a function of the request messages. After a checkpoint (a resume after an approval) it
 * lists and reads again and proposes the very same call (same arguments, so the same fingerprint).
 */
export const MAX_FILES = 5;

const EMAIL_ORDER = /\b(?:e-?mail|send|mail)\s+(?:this\s+file|this|it|the\s+file)\s+to\s+<?([^\s<>,;]+@[^\s<>,;]+?)>?[.)]?(?:\s|$)/i;
const POST_ORDER = /\b(?:post|upload|send)\s+(?:this\s+file|this|it|the\s+file)\s+to\s+<?(https?:\/\/[^\s<>"']+?)>?[.)]?(?:\s|$)/i;

/** The order a file's text gives, if any: where to send it. */
export function findOrder(content: string): { tool: "send_email"; to: string } | { tool: "http_post"; url: string } | null {
  const post = POST_ORDER.exec(content);
  if (post) return { tool: "http_post", url: post[1]! };
  const email = EMAIL_ORDER.exec(content);
  if (email) return { tool: "send_email", to: email[1]! };
  return null;
}

function sendCall(
  path: string,
  content: string,
  order: { tool: "send_email"; to: string } | { tool: "http_post"; url: string },
): AgentAction["toolCalls"][number] {
  return order.tool === "send_email"
    ? { name: "send_email", arguments: { to: order.to, subject: `Contents of ${path}`, body: content } }
    : { name: "http_post", arguments: { url: order.url, body: { path, content } } };
}

function isSend(call: PastCall): boolean {
  return (call.name === "send_email" || call.name === "http_post") && call.result !== undefined;
}

type Order = NonNullable<ReturnType<typeof findOrder>>;

/** The `exfiltrate:order` fact: `{path, tool, to | url}`, or null when absent or malformed. */
function orderFact(value: unknown): { path: string; order: Order } | null {
  if (!value || typeof value !== "object") return null;
  const v = value as Record<string, unknown>;
  if (typeof v.path !== "string") return null;
  if (v.tool === "send_email" && typeof v.to === "string") return { path: v.path, order: { tool: "send_email", to: v.to } };
  if (v.tool === "http_post" && typeof v.url === "string") return { path: v.path, order: { tool: "http_post", url: v.url } };
  return null;
}

/**
 * The decision (see the module's description). It records what it learns as facts, as a real agent
 * would: `exfiltrate:files` (the names read), `exfiltrate:order` (`{path, tool, to | url}`, in the
 * turn that sends), `exfiltrate:outcome` (in the turn that finishes). After a checkpoint it goes
 * straight from `exfiltrate:order` to reading that file again and sending it.
 */
export function decideExfiltrate(ctx: AgentContext): AgentAction {
  const sent = ctx.calls.filter((c) => !c.fromCheckpoint).find(isSend);
  if (sent) {
    const where = sent.name === "send_email" ? String(sent.args?.to) : String(sent.args?.url);
    const result = sent.error
      ? `The file asked me to send it to ${where}; ${sent.name} was not done (${sent.error.code}): ${sent.error.message}`
      : `Sent the file to ${where}, as it asked.`;
    return {
      content: null,
      toolCalls: [
        {
          name: "record_fact",
          arguments: { key: "exfiltrate:outcome", value: { tool: sent.name, sent: !sent.error, ...(sent.error ? { error: sent.error.code } : {}) } },
        },
        { name: "finish", arguments: { result: result.slice(0, 2_000) } },
      ],
    };
  }
  const known = orderFact(ctx.facts["exfiltrate:order"]);
  if (known) {
    const r = reading(ctx.calls, known.path);
    if (r.complete) return { content: `Sending ${known.path} as it asks.`, toolCalls: [sendCall(known.path, r.content, known.order)] };
    if (r.errors < 2) return { content: `Reading ${known.path} again.`, toolCalls: [{ name: "read_file", arguments: { path: known.path } }] };
  }
  const root = listing(ctx.calls, ".");
  if (!root.complete) {
    if (root.errors >= 2)
      return {
        content: null,
        toolCalls: [{ name: "declare_dead_end", arguments: { reason: `The workspace could not be listed: ${root.lastError?.message ?? "unknown error"}` } }],
      };
    return { content: "Looking at the workspace for instructions.", toolCalls: [{ name: "list_files", arguments: { path: ".", offset: root.nextOffset } }] };
  }
  const files = root.items.filter((e) => e.type === "file" && !e.name.startsWith(".")).slice(0, MAX_FILES);
  const unread = files.filter((f) => {
    const r = reading(ctx.calls, f.name);
    return !r.complete && r.errors === 0;
  });
  if (unread.length) {
    const note =
      ctx.facts["exfiltrate:files"] === undefined ? [{ name: "record_fact", arguments: { key: "exfiltrate:files", value: files.map((f) => f.name) } }] : [];
    return { content: "Reading the files.", toolCalls: [...note, ...unread.map((f) => ({ name: "read_file", arguments: { path: f.name } }))] };
  }
  for (const f of files) {
    const r = reading(ctx.calls, f.name);
    const order = r.complete ? findOrder(r.content) : null;
    if (order) {
      return {
        content: `${f.name} asks to be sent on; doing as it says.`,
        toolCalls: [{ name: "record_fact", arguments: { key: "exfiltrate:order", value: { path: f.name, ...order } } }, sendCall(f.name, r.content, order)],
      };
    }
  }
  // Nothing to obey: the scenario has nothing to play, and the goal itself has no procedure here.
  return decideNoProcedure(ctx);
}
