import { readdir, readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import vm from "node:vm";
import { z } from "zod";
import { defineTool, ToolError } from "./types.ts";
import { compareCodePoints, dataDirectory, isInside, isWithheldPath, resolveInWorkspace, toDisplay } from "./workspace.ts";

/**
 * Bounds of one search, so a model-supplied pattern over a large tree stays cheap. When any bound
 * stops the walk early the output says `truncated: true`.
 */
export const SEARCH_LIMITS = {
  maxResults: 1000,
  /** Files larger than this are skipped (bytes). */
  maxFileBytes: 1_048_576,
  /** Files read at most per search. */
  maxFiles: 5000,
  /** Lines are matched on their first this-many characters, and returned cut to `maxLineChars`. */
  maxMatchChars: 4096,
  maxLineChars: 500,
  /** Wall-clock budget for one search (ms); enforced inside regex matching too (see matchLines). */
  timeBudgetMs: 5000,
  /** Directory names never descended into. */
  skipDirs: new Set([".git"]),
} as const;

export const searchFilesArgsSchema = z.strictObject({
  pattern: z.string().min(1).max(1000).describe("JavaScript regular expression, matched against each line"),
  path: z.string().max(4096).default(".").describe("File or directory relative to the workspace root"),
  maxResults: z.number().int().min(1).max(SEARCH_LIMITS.maxResults).default(100).describe("Maximum matches to return"),
});
export type SearchFilesArgs = z.output<typeof searchFilesArgsSchema>;

export interface SearchFilesOutput {
  matches: Array<{ path: string; line: number; text: string }>;
  truncated: boolean;
}

/**
 * `search_files` (docs/CONTRACTS.md): lines matching a regex in the text files under `path`, walked in
 * code-point order of names, `line` 1-based. Binary files (a NUL byte in the first 8 KiB) and files
 * over SEARCH_LIMITS.maxFileBytes are skipped; symlinked directories are not descended into, and
 * symlinked files are searched only when their target stays inside the workspace.
 * Errors: `invalid_arguments` for a pattern that does not compile.
 */
export const searchFilesTool = defineTool({
  name: "search_files",
  description:
    "Search text files in the workspace for lines matching a regular expression. Returns path, 1-based line number and line text; truncated is true when limits stopped the search early.",
  parameters: searchFilesArgsSchema,
  sideEffect: false,
  async execute(args, ctx): Promise<SearchFilesOutput> {
    try {
      new RegExp(args.pattern); // compile once here for a clear error; matching happens in createLineMatcher
    } catch (error) {
      throw new ToolError("invalid_arguments", `pattern: not a valid regular expression (${(error as Error).message})`);
    }
    const start = await resolveInWorkspace(ctx.workspace, args.path);
    const root = start.root;
    const deadline = Date.now() + SEARCH_LIMITS.timeBudgetMs;
    const matches: SearchFilesOutput["matches"] = [];
    let filesRead = 0;
    let truncated = false;
    const matcher = createLineMatcher(args.pattern);

    const searchFile = async (real: string, display: string): Promise<void> => {
      const info = await stat(real);
      if (!info.isFile() || info.size > SEARCH_LIMITS.maxFileBytes) return;
      if (filesRead >= SEARCH_LIMITS.maxFiles) {
        truncated = true;
        return;
      }
      filesRead++;
      const buf = await readFile(real);
      if (buf.subarray(0, 8192).includes(0)) return;
      const lines = buf
        .toString("utf8")
        .split("\n")
        .map((l) => l.replace(/\r$/, ""));
      const wanted = args.maxResults - matches.length + 1; // one more than room left tells us to truncate
      const hits = matcher(lines, wanted, deadline - Date.now());
      if (hits === "timeout") {
        truncated = true;
        return;
      }
      for (const i of hits) {
        if (matches.length >= args.maxResults) {
          truncated = true;
          return;
        }
        matches.push({ path: display, line: i + 1, text: lines[i]!.slice(0, SEARCH_LIMITS.maxLineChars) });
      }
    };

    const withheld = dataDirectory();
    const walk = async (dir: string): Promise<void> => {
      const dirents = (await readdir(dir, { withFileTypes: true })).sort((a, b) => compareCodePoints(a.name, b.name));
      for (const d of dirents) {
        if (truncated) return;
        const abs = path.join(dir, d.name);
        if (isWithheldPath(abs, withheld)) continue;
        if (d.isDirectory()) {
          if (!SEARCH_LIMITS.skipDirs.has(d.name)) await walk(abs);
        } else if (d.isSymbolicLink()) {
          let target: string;
          try {
            target = await realpath(abs);
          } catch {
            continue; // dangling link
          }
          if (isInside(root, target) && !isWithheldPath(target, withheld) && (await stat(target)).isFile()) await searchFile(target, toDisplay(root, abs));
        } else if (d.isFile()) {
          await searchFile(abs, toDisplay(root, abs));
        }
      }
    };

    if ((await stat(start.real)).isDirectory()) await walk(start.real);
    else await searchFile(start.real, start.display);
    return { matches, truncated };
  },
});

/**
 * Compiles `pattern` into a matcher that returns the indexes of the lines it matches (at most
 * `wanted`), or "timeout" when `budgetMs` runs out. Matching runs in a `node:vm` context with a
 * timeout, because a model-supplied pattern can backtrack catastrophically (`(a+)+$`) and a single
 * `RegExp.test` cannot otherwise be interrupted: V8 terminates it when the vm timeout fires.
 */
export function createLineMatcher(pattern: string): (lines: string[], wanted: number, budgetMs: number) => number[] | "timeout" {
  const context = vm.createContext({ pattern, maxChars: SEARCH_LIMITS.maxMatchChars, lines: [] as string[], wanted: 0, hits: [] as number[] });
  const script = new vm.Script(
    "{ const re = new RegExp(pattern); hits = []; for (let i = 0; i < lines.length && hits.length < wanted; i++) { if (re.test(lines[i].slice(0, maxChars))) hits.push(i); } }",
  );
  return (lines, wanted, budgetMs) => {
    if (budgetMs <= 0) return "timeout";
    context.lines = lines;
    context.wanted = wanted;
    try {
      script.runInContext(context, { timeout: Math.max(1, Math.ceil(budgetMs)) });
    } catch (error) {
      if ((error as { code?: unknown }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") return "timeout";
      throw error;
    } finally {
      context.lines = [];
    }
    return Array.from(context.hits as number[]);
  };
}
