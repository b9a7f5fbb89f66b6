import type { IncomingMessage, ServerResponse } from "node:http";

/** Largest request body the scripted server reads (bytes). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** Sends `body` as JSON with its length. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** An error in OpenAI's shape (`{error: {message, type, param, code}}`), as Chat Completions and the Responses API send it. */
export function openaiError(
  res: ServerResponse,
  status: number,
  message: string,
  type: string,
  code: string | null = null,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { error: { message, type, param: null, code } }, headers);
}

/** An error in Anthropic's shape (`{type: "error", error: {type, message}}`, with a request id), as the Messages API sends it. */
export function anthropicError(res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { type: "error", error: { type, message }, request_id: "req_scripted" }, headers);
}

/** The request body as text; rejects past MAX_BODY_BYTES. */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** `text` in pieces of `size` characters (stream deltas). */
export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** One server-sent event: `event:` line when named (Responses, Messages), then `data:` JSON. */
export function sseEvent(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}

/**
 * Writes a finished stream: headers (unless a stall already sent them), then the events; with `cut`,
 * only the first half of the body events (at least `minKept`), then the end — no closing event.
 */
export function writeStream(
  res: ServerResponse,
  events: string[],
  { bodyEvents, cut, requestIdHeader }: { bodyEvents: number; cut: boolean; requestIdHeader: Record<string, string> },
): void {
  if (!res.headersSent) res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", ...requestIdHeader });
  if (cut) {
    const keep = Math.max(2, Math.floor(bodyEvents / 2));
    for (const event of events.slice(0, Math.min(keep, bodyEvents))) res.write(event);
    res.end();
    return;
  }
  for (const event of events) res.write(event);
  res.end();
}
