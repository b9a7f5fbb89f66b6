import path from "node:path";
import { readdir } from "node:fs/promises";
import { z } from "zod";
import { defineTool } from "./types.ts";
import { compareCodePoints, dataDirectory, isWithheldPath, resolveDirectory } from "./workspace.ts";

export const LIST_FILES_MAX_LIMIT = 1000;

export const listFilesArgsSchema = z.strictObject({
  path: z.string().max(4096).default(".").describe("Directory relative to the workspace root"),
  offset: z.number().int().min(0).default(0).describe("Index of the first entry to return"),
  limit: z.number().int().min(1).max(LIST_FILES_MAX_LIMIT).default(200).describe("Maximum entries to return"),
});
export type ListFilesArgs = z.output<typeof listFilesArgsSchema>;

export interface ListFilesOutput {
  path: string;
  entries: Array<{ name: string; type: "file" | "dir" | "symlink" }>;
  total: number;
  nextOffset: number | null;
}

/**
 * `list_files` (docs/CONTRACTS.md): one page of a directory's entries, sorted by name in code-point
 * order. Symlinks are reported as `symlink` (not followed). `nextOffset` is null on the last page.
 */
export const listFilesTool = defineTool({
  name: "list_files",
  description: "List the entries of a directory in the workspace, sorted by name. Paged: pass nextOffset as offset to get the next page.",
  parameters: listFilesArgsSchema,
  sideEffect: false,
  async execute(args, ctx): Promise<ListFilesOutput> {
    const dir = await resolveDirectory(ctx.workspace, args.path);
    const dirents = await readdir(dir.real, { withFileTypes: true });
    const withheld = dataDirectory();
    const all = dirents
      .filter((d) => !isWithheldPath(path.join(dir.real, d.name), withheld))
      .map((d) => ({
        name: d.name,
        type: d.isSymbolicLink() ? ("symlink" as const) : d.isDirectory() ? ("dir" as const) : ("file" as const),
      }))
      .sort((a, b) => compareCodePoints(a.name, b.name));
    const entries = all.slice(args.offset, args.offset + args.limit);
    const end = args.offset + entries.length;
    return { path: dir.display, entries, total: all.length, nextOffset: end < all.length ? end : null };
  },
});
