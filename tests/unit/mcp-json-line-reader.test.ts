import { describe, expect, it } from "vitest";
import { JsonLineReader, type ReadItem } from "../../server/tools/mcp/json-line-reader.ts";

// The bounded reader of MCP stdio messages (server/tools/mcp/json-line-reader.ts): lines up to the
// limit are parsed whole; longer ones keep their JSON structure with long strings cut; chunk
// boundaries anywhere (inside escapes, inside multi-byte characters) change nothing.

const line = (message: unknown) => Buffer.from(`${JSON.stringify(message)}\n`, "utf8");

/** Feeds `bytes` in chunks of `size` bytes and collects the items. */
function feed(reader: JsonLineReader, bytes: Buffer, size: number): ReadItem[] {
  const items: ReadItem[] = [];
  for (let i = 0; i < bytes.length; i += size) items.push(...reader.push(bytes.subarray(i, i + size)));
  return items;
}

describe("JsonLineReader", () => {
  it("parses lines within the limit whole, across chunk boundaries, skipping blank lines", () => {
    const reader = new JsonLineReader({ maxMessageBytes: 1024, keepStringBytes: 64 });
    const bytes = Buffer.concat([line({ jsonrpc: "2.0", id: 1, result: { a: 'é😀\\"' } }), Buffer.from("\n\r\n"), line({ jsonrpc: "2.0", method: "x" })]);
    for (const size of [1, 2, 3, 7, 1000]) {
      const items = feed(reader, bytes, size);
      expect(items).toEqual([
        { kind: "message", message: { jsonrpc: "2.0", id: 1, result: { a: 'é😀\\"' } }, cut: null },
        { kind: "message", message: { jsonrpc: "2.0", method: "x" }, cut: null },
      ]);
    }
  });

  it("a line over the limit keeps its structure; each long string is cut at a character boundary, the report says how much", () => {
    const text = `${'ab"\\\n\u00e9\u20ac😀'.repeat(5000)}`;
    const message = { result: { content: [{ type: "text", text }], structuredContent: { n: 1, short: "kept" } }, jsonrpc: "2.0", id: 42 };
    const bytes = line(message);
    for (const size of [1, 5, 333, 65_536]) {
      const reader = new JsonLineReader({ maxMessageBytes: 4096, keepStringBytes: 100 });
      const items = feed(reader, bytes, size);
      expect(items).toHaveLength(1);
      const item = items[0]!;
      expect(item.kind).toBe("message");
      if (item.kind !== "message") return;
      const got = item.message as typeof message;
      expect(got.id).toBe(42);
      expect(got.jsonrpc).toBe("2.0");
      expect(got.result.structuredContent).toEqual({ n: 1, short: "kept" });
      const kept = got.result.content[0]!.text;
      expect(text.startsWith(kept)).toBe(true);
      expect(kept.length).toBeGreaterThan(20);
      expect(Buffer.byteLength(JSON.stringify(kept))).toBeLessThanOrEqual(100 + 12);
      expect(item.cut).toEqual({ totalBytes: bytes.length - 1, stringsCut: 1, bytesDropped: expect.any(Number) });
      expect(item.cut!.bytesDropped).toBeGreaterThan(JSON.stringify(text).length - 200);
    }
  });

  it("a cut never leaves half a surrogate pair written as \\u escapes", () => {
    const escaped = `{"id":1,"result":{"t":"${"\\ud83d\\ude00".repeat(1000)}"}}\n`;
    for (const keep of [6, 7, 11, 12, 13, 100, 101]) {
      const reader = new JsonLineReader({ maxMessageBytes: 512, keepStringBytes: keep });
      const [item] = reader.push(Buffer.from(escaped));
      expect(item!.kind).toBe("message");
      const t = (item as { message: { result: { t: string } } }).message.result.t;
      expect(t).toMatch(/^(😀)*$/u);
    }
  });

  it("a line whose cut form is still too big gives its size and the id it answered", () => {
    const many = { result: { content: Array.from({ length: 20_000 }, (_, i) => ({ type: "text", text: `item ${i}` })) }, jsonrpc: "2.0", id: "req-7" };
    const reader = new JsonLineReader({ maxMessageBytes: 4096, keepStringBytes: 100 });
    const bytes = line(many);
    const items = feed(reader, bytes, 1000);
    expect(items).toEqual([{ kind: "oversize", line: { totalBytes: bytes.length - 1, id: "req-7" } }]);
    const idFirst = { jsonrpc: "2.0", id: 9, result: many.result };
    expect(reader.push(line(idFirst))).toEqual([{ kind: "oversize", line: { totalBytes: line(idFirst).length - 1, id: 9 } }]);
    // The reader goes on with the next line.
    expect(reader.push(line({ id: 10, result: {} }))).toEqual([{ kind: "message", message: { id: 10, result: {} }, cut: null }]);
  });

  it("a line that is not JSON is reported (a long one as oversize, without an id) and the next one is read", () => {
    const reader = new JsonLineReader({ maxMessageBytes: 64, keepStringBytes: 8 });
    const items = reader.push(Buffer.from(`not json\n${"x".repeat(200)}\n{"id":1}\n`));
    expect(items.map((i) => i.kind)).toEqual(["invalid", "oversize", "message"]);
    expect(items[1]).toEqual({ kind: "oversize", line: { totalBytes: 200, id: null } });
  });
});
