/**
 * Newline-delimited JSON-RPC messages from an MCP stdio server, read with bounded memory.
 *
 * The MCP stdio transport (specification 2025-06-18, "Transports → stdio") sends one JSON-RPC message
 * per line, with no size limit. The SDK's own reader (`ReadBuffer`) keeps a whole line in memory and,
 * past its `maxBufferSize` (10 MiB by default), throws and closes the connection — so one big tool
 * result looked like a server crash. This reader instead:
 *
 * - keeps a line of up to `maxMessageBytes` whole and parses it as is;
 * - reads a longer line as a stream, keeping its JSON structure but only the first `keepStringBytes`
 *   UTF-8 bytes of each string (cut at a character boundary, never inside an escape sequence); the
 *   line then parses to the same message with its long strings cut, and the reader reports what it
 *   cut ({@link CutReport}) so the caller can say so. Memory stays bounded by `maxMessageBytes` for
 *   whatever the server sends;
 * - when even the cut form outgrows `maxMessageBytes` (millions of small items), it gives up on the
 *   content but not on the message: the caller gets the request id it answered
 *   ({@link OversizeLine.id}), found at the start or end of the line, so the request in flight is
 *   answered instead of waiting for its timeout.
 */

/** What was cut from one oversize line. */
export interface CutReport {
  /** UTF-8 bytes of the whole line as the server sent it (without the newline). */
  totalBytes: number;
  /** Strings that were cut. */
  stringsCut: number;
  /** Bytes of string content left out. */
  bytesDropped: number;
}

/** A line whose content could not be kept even cut: only its size and (when found) the JSON-RPC id it answered. */
export interface OversizeLine {
  totalBytes: number;
  id: string | number | null;
}

/** One item the reader produced. */
export type ReadItem =
  { kind: "message"; message: unknown; cut: CutReport | null } | { kind: "oversize"; line: OversizeLine } | { kind: "invalid"; error: Error };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;
/** Bytes kept of a line's start and end to find its id when its content is given up. */
const EDGE_BYTES = 512;

/** A JSON-RPC id (number or string) at the start of a line (`{"jsonrpc":"2.0","id":7,…`) or at its end (`…,"id":7}`). */
function findId(head: string, tail: string): string | number | null {
  const value = String.raw`(-?\d+|"(?:[^"\\]|\\.){0,200}")`;
  // The top-level id: before the first nested object at the start, or the last key at the end.
  const atStart = new RegExp(String.raw`^\s*\{[^{\[]*?"id"\s*:\s*${value}`).exec(head);
  const atEnd = new RegExp(String.raw`"id"\s*:\s*${value}\s*\}\s*$`).exec(tail);
  const raw = atStart?.[1] ?? atEnd?.[1];
  if (raw === undefined) return null;
  try {
    return JSON.parse(raw) as string | number;
  } catch {
    return null;
  }
}

/**
 * Splits a byte stream into JSON-RPC messages (one per line), bounded as described in the module
 * comment. `push` returns the items completed by that chunk, in order.
 */
export class JsonLineReader {
  private readonly maxMessageBytes: number;
  private readonly keepStringBytes: number;
  /** Whole-line mode: the pieces of the current line. */
  private pieces: Buffer[] = [];
  private pieceBytes = 0;
  /** Streaming (cut) mode once the line outgrew maxMessageBytes. */
  private streaming = false;
  private out: Buffer[] = [];
  private outBytes = 0;
  private givenUp = false;
  private lineBytes = 0;
  private head = "";
  private tail = Buffer.alloc(0);
  private inString = false;
  /** Inside an escape sequence: -1 right after a backslash, n > 0 while n hex digits of a `\u` escape are still to come. */
  private escape = 0;
  private stringKept = 0;
  private dropping = false;
  private stringsCut = 0;
  private bytesDropped = 0;

  /**
   * @param maxMessageBytes a line up to this many bytes is kept whole; also the most memory one line's cut form may take.
   * @param keepStringBytes bytes kept of each string of a longer line.
   */
  constructor({ maxMessageBytes, keepStringBytes }: { maxMessageBytes: number; keepStringBytes: number }) {
    if (keepStringBytes >= maxMessageBytes) throw new Error("keepStringBytes must be below maxMessageBytes");
    this.maxMessageBytes = maxMessageBytes;
    this.keepStringBytes = keepStringBytes;
  }

  /** Feeds a chunk of the server's stdout; returns the messages it completed. */
  push(chunk: Buffer): ReadItem[] {
    const items: ReadItem[] = [];
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      if (end > start) this.take(chunk.subarray(start, end));
      if (nl === -1) break;
      const item = this.endLine();
      if (item) items.push(item);
      start = nl + 1;
    }
    return items;
  }

  /** Drops a partial line (the connection closed). */
  clear(): void {
    this.reset();
  }

  private reset(): void {
    this.pieces = [];
    this.pieceBytes = 0;
    this.streaming = false;
    this.out = [];
    this.outBytes = 0;
    this.givenUp = false;
    this.lineBytes = 0;
    this.head = "";
    this.tail = Buffer.alloc(0);
    this.inString = false;
    this.escape = 0;
    this.stringKept = 0;
    this.dropping = false;
    this.stringsCut = 0;
    this.bytesDropped = 0;
  }

  private take(part: Buffer): void {
    this.lineBytes += part.length;
    if (!this.streaming) {
      if (this.pieceBytes + part.length <= this.maxMessageBytes) {
        this.pieces.push(part.length === 0 ? part : Buffer.from(part));
        this.pieceBytes += part.length;
        return;
      }
      // Too long to keep whole: replay what was kept through the cutting scanner, then go on streaming.
      this.streaming = true;
      const kept = Buffer.concat(this.pieces);
      this.pieces = [];
      this.pieceBytes = 0;
      this.head = (kept.length >= EDGE_BYTES ? kept : Buffer.concat([kept, part])).subarray(0, EDGE_BYTES).toString("utf8");
      this.scan(kept);
    }
    this.scan(part);
  }

  /** Passes `bytes` through, cutting strings past keepStringBytes; keeps the line's last EDGE_BYTES. */
  private scan(bytes: Buffer): void {
    this.tail = bytes.length >= EDGE_BYTES ? Buffer.from(bytes.subarray(bytes.length - EDGE_BYTES)) : Buffer.concat([this.tail, bytes]).subarray(-EDGE_BYTES);
    let i = 0;
    let runStart = 0; // start of the bytes to copy to `out`
    const flush = (to: number) => {
      if (to > runStart) this.emit(bytes.subarray(runStart, to));
    };
    while (i < bytes.length) {
      if (!this.inString) {
        // Structure: copy up to (and including) the next quote.
        const q = bytes.indexOf(QUOTE, i);
        if (q === -1) {
          i = bytes.length;
          break;
        }
        i = q + 1;
        this.inString = true;
        this.stringKept = 0;
        this.dropping = false;
        this.escape = 0;
        continue;
      }
      const b = bytes[i]!;
      if (this.escape !== 0) {
        // The byte after "\" ("u" means four hex digits follow), or one of those digits.
        this.escape = this.escape === -1 ? (b === 0x75 ? 4 : 0) : this.escape - 1;
        if (!this.dropping) this.stringKept++;
        else this.bytesDropped++;
        i++;
        continue;
      }
      if (b === QUOTE) {
        // The string ends: copy the quote.
        if (this.dropping) {
          runStart = i;
          this.dropping = false;
        }
        this.inString = false;
        i++;
        continue;
      }
      if (!this.dropping && this.stringKept >= this.keepStringBytes && (b & 0xc0) !== 0x80) {
        // At a character boundary (an escape sequence starts or a character does) past the limit: stop copying until the closing quote.
        flush(i);
        this.dropping = true;
        this.stringsCut++;
      }
      if (b === BACKSLASH) this.escape = -1;
      if (this.dropping) {
        // Fast path: skip to the next quote or backslash.
        const q = bytes.indexOf(QUOTE, i);
        const s = bytes.indexOf(BACKSLASH, i);
        const next = Math.min(q === -1 ? bytes.length : q, s === -1 ? bytes.length : s);
        if (next > i) {
          this.bytesDropped += next - i;
          i = next;
          continue;
        }
        this.bytesDropped++;
      } else this.stringKept++;
      i++;
    }
    if (!this.dropping) flush(bytes.length);
  }

  private emit(bytes: Buffer): void {
    if (this.givenUp) return;
    if (this.outBytes + bytes.length > this.maxMessageBytes) {
      this.givenUp = true;
      this.out = [];
      this.outBytes = 0;
      return;
    }
    this.out.push(Buffer.from(bytes));
    this.outBytes += bytes.length;
  }

  private endLine(): ReadItem | null {
    try {
      if (!this.streaming) {
        if (this.pieceBytes === 0) return null;
        const line = Buffer.concat(this.pieces).toString("utf8").replace(/\r$/, "");
        if (line.trim() === "") return null;
        return { kind: "message", message: JSON.parse(line), cut: null };
      }
      const totalBytes = this.lineBytes;
      if (this.givenUp || this.inString) {
        return { kind: "oversize", line: { totalBytes, id: findId(this.head, this.tail.toString("utf8")) } };
      }
      const text = Buffer.concat(this.out).toString("utf8").replace(/\r$/, "");
      const message = JSON.parse(text, (_key, value: unknown) =>
        // A cut right after a \uD800–\uDBFF escape leaves half a surrogate pair: drop it.
        typeof value === "string" && /[\uD800-\uDBFF]$/.test(value) ? value.slice(0, -1) : value,
      );
      return { kind: "message", message, cut: { totalBytes, stringsCut: this.stringsCut, bytesDropped: this.bytesDropped } };
    } catch (error) {
      return { kind: "invalid", error: error instanceof Error ? error : new Error(String(error)) };
    } finally {
      this.reset();
    }
  }
}
