import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeToolCall, type ToolContext } from "../../server/tools/registry.ts";
import { createLineMatcher, type SearchFilesOutput } from "../../server/tools/search-files.ts";

let ws: string;
let ctx: ToolContext;

beforeAll(() => {
  ws = mkdtempSync(path.join(tmpdir(), "longhaul-tools-search-"));
  mkdirSync(path.join(ws, "b", "c"), { recursive: true });
  mkdirSync(path.join(ws, ".git"));
  writeFileSync(path.join(ws, "a.txt"), "license: MIT\r\nnothing\nlicense: ISC\n");
  writeFileSync(path.join(ws, "b", "c", "d.json"), '{\n  "license": "GPL-3.0"\n}\n');
  writeFileSync(path.join(ws, "b", "bin.dat"), Buffer.from([0x6c, 0x69, 0x63, 0x65, 0x6e, 0x73, 0x65, 0x00, 0x01]));
  writeFileSync(path.join(ws, ".git", "config"), "license = nope\n");
  ctx = { prisma: null as never, taskId: "t", runId: "r", stepId: "tool-1-0", workspace: ws };
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

async function search(args: Record<string, unknown>): Promise<SearchFilesOutput> {
  const r = await executeToolCall({ name: "search_files", rawArguments: JSON.stringify(args), ctx });
  if (!r.ok) throw new Error(r.error.message);
  return r.output as SearchFilesOutput;
}

describe("search_files", () => {
  it("returns path, 1-based line and text in name order, skipping binary files and .git", async () => {
    expect(await search({ pattern: "license" })).toEqual({
      matches: [
        { path: "a.txt", line: 1, text: "license: MIT" },
        { path: "a.txt", line: 3, text: "license: ISC" },
        { path: "b/c/d.json", line: 2, text: '  "license": "GPL-3.0"' },
      ],
      truncated: false,
    });
  });

  it("limits results to maxResults and says truncated", async () => {
    expect(await search({ pattern: "license", maxResults: 2 })).toEqual({
      matches: [
        { path: "a.txt", line: 1, text: "license: MIT" },
        { path: "a.txt", line: 3, text: "license: ISC" },
      ],
      truncated: true,
    });
    // Exactly as many matches as allowed is not truncated.
    expect((await search({ pattern: "license", maxResults: 3 })).truncated).toBe(false);
  });

  it("searches a sub-directory or a single file", async () => {
    expect((await search({ pattern: "GPL", path: "b" })).matches).toEqual([{ path: "b/c/d.json", line: 2, text: '  "license": "GPL-3.0"' }]);
    expect((await search({ pattern: "^nothing$", path: "a.txt" })).matches).toEqual([{ path: "a.txt", line: 2, text: "nothing" }]);
  });

  it("interrupts a catastrophically backtracking pattern instead of hanging the process", () => {
    const match = createLineMatcher("(a+)+$");
    const started = Date.now();
    expect(match(["a".repeat(40) + "b"], 10, 200)).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(5000);
    expect(createLineMatcher("^a").call(null, ["a", "b", "ab"], 10, 1000)).toEqual([0, 2]);
    expect(createLineMatcher("x")(["x", "x", "x"], 2, 1000)).toEqual([0, 1]);
  });
});
