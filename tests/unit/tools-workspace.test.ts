import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeToolCall, type ToolContext } from "../../server/tools/registry.ts";
import { resetEnv } from "../../server/env.ts";
import { compareCodePoints } from "../../server/tools/workspace.ts";

let base: string;
let ctx: ToolContext;

beforeAll(() => {
  base = mkdtempSync(path.join(tmpdir(), "longhaul-tools-ws-"));
  const ws = path.join(base, "ws");
  mkdirSync(path.join(ws, "sub", "deeper"), { recursive: true });
  writeFileSync(path.join(ws, "sub", "inside.txt"), "inside\n");
  writeFileSync(path.join(base, "secret.txt"), "top secret\n");
  mkdirSync(path.join(base, "outside-dir"));
  writeFileSync(path.join(base, "outside-dir", "x.txt"), "x\n");
  symlinkSync(path.join(base, "secret.txt"), path.join(ws, "link-out"));
  symlinkSync(path.join(base, "outside-dir"), path.join(ws, "dir-out"));
  symlinkSync(path.join(ws, "sub", "inside.txt"), path.join(ws, "link-in"));
  symlinkSync("sub", path.join(ws, "rel-dir-in"));
  // Longhaul's data folder inside the workspace (the default: the project folder holds .data).
  mkdirSync(path.join(ws, ".data"));
  writeFileSync(path.join(ws, ".data", "cli-token"), "lh_admin_token_value\n");
  writeFileSync(path.join(ws, ".env"), "OPENAI_API_KEY=sk-not-for-the-model\n");
  writeFileSync(path.join(ws, ".env.example"), "OPENAI_API_KEY=\n");
  symlinkSync(path.join(ws, ".data", "cli-token"), path.join(ws, "token-link"));
  previousDataDir = process.env.DATA_DIR;
  process.env.DATA_DIR = path.join(ws, ".data");
  resetEnv();
  ctx = { prisma: null as never, taskId: "t", runId: "r", stepId: "tool-1-0", workspace: ws };
});
afterAll(() => {
  if (previousDataDir === undefined) delete process.env.DATA_DIR;
  else process.env.DATA_DIR = previousDataDir;
  resetEnv();
  rmSync(base, { recursive: true, force: true });
});
let previousDataDir: string | undefined;

async function call(name: string, args: unknown) {
  return executeToolCall({ name, rawArguments: JSON.stringify(args), ctx });
}

describe("withheld paths: Longhaul's data folder and .env files", () => {
  it.each([
    ["read_file", { path: ".data/cli-token" }],
    ["read_file", { path: "sub/../.data/cli-token" }],
    ["read_file", { path: "token-link" }],
    ["read_file", { path: ".env" }],
    ["list_files", { path: ".data" }],
    ["search_files", { pattern: "lh_admin", path: ".data" }],
  ])("refuses %s %j", async (name, args) => {
    expect(await call(name, args)).toMatchObject({ ok: false, error: { code: "not_allowed" } });
  });

  it("leaves them out of listings and searches of the folders around them", async () => {
    const listed = await call("list_files", { path: "." });
    expect(listed.ok).toBe(true);
    const names = (listed as { output: { entries: { name: string }[] } }).output.entries.map((e) => e.name);
    expect(names).toContain(".env.example");
    expect(names).toContain("sub");
    expect(names).not.toContain(".data");
    expect(names).not.toContain(".env");
    const found = await call("search_files", { pattern: "lh_admin|sk-not-for", path: "." });
    expect(found).toMatchObject({ ok: true, output: { matches: [] } });
    expect(await call("read_file", { path: ".env.example" })).toMatchObject({ ok: true });
  });
});

describe("path confinement", () => {
  it.each([
    ["read_file", { path: "../secret.txt" }],
    ["read_file", { path: "sub/../../secret.txt" }],
    ["list_files", { path: ".." }],
    ["search_files", { pattern: "secret", path: "../" }],
  ])("refuses .. escapes (%s %j)", async (name, args) => {
    const r = await call(name, args);
    expect(r).toMatchObject({ ok: false, error: { code: "path_outside_workspace" } });
  });

  it("refuses absolute paths, even ones inside the workspace", async () => {
    for (const p of ["/etc/passwd", path.join(ctx.workspace, "sub", "inside.txt")]) {
      const r = await call("read_file", { path: p });
      expect(r).toMatchObject({ ok: false, error: { code: "path_outside_workspace" } });
    }
  });

  it("refuses symlinks pointing out (file and directory), after resolving them", async () => {
    expect(await call("read_file", { path: "link-out" })).toMatchObject({ ok: false, error: { code: "path_outside_workspace" } });
    expect(await call("list_files", { path: "dir-out" })).toMatchObject({ ok: false, error: { code: "path_outside_workspace" } });
    expect(await call("read_file", { path: "dir-out/x.txt" })).toMatchObject({ ok: false, error: { code: "path_outside_workspace" } });
  });

  it("search never returns content from a symlink pointing out", async () => {
    const r = await call("search_files", { pattern: "secret|^x$" });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.output).toEqual({ matches: [], truncated: false });
  });

  it("follows symlinks that stay inside", async () => {
    const r = await call("read_file", { path: "link-in" });
    expect(r).toMatchObject({ ok: true, output: { path: "link-in", content: "inside\n" } });
    const l = await call("list_files", { path: "rel-dir-in" });
    expect(l).toMatchObject({
      ok: true,
      output: {
        entries: [
          { name: "deeper", type: "dir" },
          { name: "inside.txt", type: "file" },
        ],
      },
    });
    const s = await call("search_files", { pattern: "^inside$" });
    expect(s).toMatchObject({
      ok: true,
      output: {
        matches: [
          { path: "link-in", line: 1, text: "inside" },
          { path: "sub/inside.txt", line: 1, text: "inside" },
        ],
      },
    });
  });

  it("reports a missing workspace folder as not_found, not as a crash", async () => {
    const r = await executeToolCall({ name: "list_files", rawArguments: "{}", ctx: { ...ctx, workspace: path.join(base, "gone") } });
    expect(r).toMatchObject({ ok: false, error: { code: "not_found", message: "the task's workspace folder does not exist" } });
  });

  it("allows .. that stays inside, and reports missing files as not_found", async () => {
    expect(await call("read_file", { path: "sub/deeper/../inside.txt" })).toMatchObject({ ok: true, output: { content: "inside\n" } });
    expect(await call("read_file", { path: "nope.txt" })).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect(await call("read_file", { path: "sub" })).toMatchObject({ ok: false, error: { code: "not_a_file" } });
    expect(await call("list_files", { path: "sub/inside.txt" })).toMatchObject({ ok: false, error: { code: "not_a_directory" } });
  });
});

describe("list_files", () => {
  it("sorts by code point and pages with nextOffset", async () => {
    const dir = path.join(ctx.workspace, "many");
    mkdirSync(dir);
    // Code-point order: "B" < "a" < "é" (U+00E9) < "ｚ" (U+FF5A) < "😀" (U+1F600). UTF-16 order would put 😀 (D83D) before ｚ.
    const names = ["😀", "a", "ｚ", "B", "é", "a10", "a2"];
    for (const n of names) writeFileSync(path.join(dir, n), "");
    mkdirSync(path.join(dir, "a1"));
    symlinkSync("a", path.join(dir, "a0"));
    const expected = ["B", "a", "a0", "a1", "a10", "a2", "é", "ｚ", "😀"];
    const seen: Array<{ name: string; type: string }> = [];
    let offset: number | null = 0;
    const pages: number[] = [];
    while (offset !== null) {
      const r = await call("list_files", { path: "many", offset, limit: 4 });
      if (!r.ok) throw new Error(r.error.message);
      const out = r.output as { entries: Array<{ name: string; type: string }>; total: number; nextOffset: number | null; path: string };
      expect(out.total).toBe(9);
      expect(out.path).toBe("many");
      seen.push(...out.entries);
      pages.push(out.entries.length);
      offset = out.nextOffset;
    }
    expect(pages).toEqual([4, 4, 1]);
    expect(seen.map((e) => e.name)).toEqual(expected);
    expect(seen.find((e) => e.name === "a0")?.type).toBe("symlink");
    expect(seen.find((e) => e.name === "a1")?.type).toBe("dir");
    const past = await call("list_files", { path: "many", offset: 50 });
    expect(past).toMatchObject({ ok: true, output: { entries: [], total: 9, nextOffset: null } });
  });

  it("compareCodePoints differs from UTF-16 order above U+FFFF", () => {
    expect(["😀", "ｚ"].sort()).toEqual(["😀", "ｚ"]);
    expect(["😀", "ｚ"].sort(compareCodePoints)).toEqual(["ｚ", "😀"]);
    expect(compareCodePoints("ab", "abc")).toBe(-1);
    expect(compareCodePoints("abc", "abc")).toBe(0);
  });
});
