import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReadFileOutput } from "../../server/tools/read-file.ts";
import { utf8SafeLength } from "../../server/tools/read-file.ts";
import { executeToolCall, type ToolContext } from "../../server/tools/registry.ts";

let ws: string;
let ctx: ToolContext;
// 1-, 2-, 3- and 4-byte characters, repeated so page boundaries fall inside each kind.
const text = "aé€😀".repeat(50) + "\nend";

beforeAll(() => {
  ws = mkdtempSync(path.join(tmpdir(), "longhaul-tools-read-"));
  writeFileSync(path.join(ws, "multi.txt"), text);
  writeFileSync(path.join(ws, "empty.txt"), "");
  ctx = { prisma: null as never, taskId: "t", runId: "r", stepId: "tool-1-0", workspace: ws };
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

async function read(args: Record<string, unknown>): Promise<ReadFileOutput> {
  const r = await executeToolCall({ name: "read_file", rawArguments: JSON.stringify(args), ctx });
  if (!r.ok) throw new Error(r.error.message);
  return r.output as ReadFileOutput;
}

async function readAll(limit: number): Promise<ReadFileOutput[]> {
  const pages: ReadFileOutput[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const page = await read({ path: "multi.txt", offset, limit });
    pages.push(page);
    offset = page.nextOffset;
    if (pages.length > 10_000) throw new Error("paging does not progress");
  }
  return pages;
}

describe("read_file paging", () => {
  it("reads a small file whole with the default limit", async () => {
    const page = await read({ path: "multi.txt" });
    const total = Buffer.byteLength(text);
    expect(page).toEqual({ path: "multi.txt", content: text, offset: 0, bytes: total, totalBytes: total, nextOffset: null });
  });

  it.each([1, 2, 3, 5, 7, 64, 100])("pages of at most %i bytes never split a character and join back to the file", async (limit) => {
    const pages = await readAll(limit);
    expect(pages.map((p) => p.content).join("")).toBe(text);
    for (const page of pages) {
      expect(page.content).not.toContain("\uFFFD");
      expect(Buffer.byteLength(page.content)).toBe(page.bytes);
      // A page is only longer than the limit when the limit cannot hold one whole character.
      if (page.bytes > limit) expect([...page.content]).toHaveLength(1);
    }
    // Offsets chain: each page starts where the previous ended.
    for (let i = 1; i < pages.length; i++) expect(pages[i]!.offset).toBe(pages[i - 1]!.offset + pages[i - 1]!.bytes);
  });

  it("returns a slightly shorter page when the limit falls inside a multi-byte character", async () => {
    // "aé€😀" = 1 + 2 + 3 + 4 bytes; a limit of 8 ends inside 😀 (bytes 6..9), so the page stops at 6.
    const page = await read({ path: "multi.txt", limit: 8 });
    expect(page).toMatchObject({ content: "aé€", offset: 0, bytes: 6, nextOffset: 6 });
    const next = await read({ path: "multi.txt", offset: 6, limit: 8 });
    expect(next.content.startsWith("😀")).toBe(true);
  });

  it("handles an empty file and an offset past the end", async () => {
    expect(await read({ path: "empty.txt" })).toEqual({ path: "empty.txt", content: "", offset: 0, bytes: 0, totalBytes: 0, nextOffset: null });
    const total = Buffer.byteLength(text);
    expect(await read({ path: "multi.txt", offset: total + 10 })).toMatchObject({ content: "", bytes: 0, nextOffset: null, totalBytes: total });
  });

  it("utf8SafeLength cuts before an incomplete trailing sequence only", () => {
    const euro = Buffer.from("€"); // e2 82 ac
    expect(utf8SafeLength(Buffer.from("abc"))).toBe(3);
    expect(utf8SafeLength(Buffer.concat([Buffer.from("a"), euro]))).toBe(4);
    expect(utf8SafeLength(Buffer.concat([Buffer.from("a"), euro.subarray(0, 2)]))).toBe(1);
    expect(utf8SafeLength(Buffer.concat([Buffer.from("a"), euro.subarray(0, 1)]))).toBe(1);
    expect(utf8SafeLength(Buffer.from("😀").subarray(0, 3))).toBe(0);
  });
});
