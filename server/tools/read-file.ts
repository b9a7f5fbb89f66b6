import { open } from "node:fs/promises";
import { z } from "zod";
import { defineTool, ToolError } from "./types.ts";
import { resolveInWorkspace } from "./workspace.ts";

export const READ_FILE_MAX_LIMIT = 262_144;

export const readFileArgsSchema = z.strictObject({
  path: z.string().min(1).max(4096).describe("File path relative to the workspace root"),
  offset: z.number().int().min(0).default(0).describe("Byte offset to start reading at"),
  limit: z.number().int().min(1).max(READ_FILE_MAX_LIMIT).default(65_536).describe("Maximum bytes to read"),
});
export type ReadFileArgs = z.output<typeof readFileArgsSchema>;

export interface ReadFileOutput {
  path: string;
  content: string;
  offset: number;
  bytes: number;
  totalBytes: number;
  nextOffset: number | null;
}

/**
 * Length of the longest prefix of `buf` that does not end inside a multi-byte UTF-8 sequence: when
 * the last lead byte starts a sequence that `buf` does not hold entirely, the page is cut before it.
 * Returns `buf.length` when the end is already on a character boundary (or the bytes are not valid
 * UTF-8 there, in which case cutting would not help). Source: UTF-8 lead-byte table, RFC 3629 §3.
 */
export function utf8SafeLength(buf: Uint8Array): number {
  const len = buf.length;
  for (let back = 1; back <= Math.min(4, len); back++) {
    const i = len - back;
    const byte = buf[i]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const need = byte >= 0xf0 && byte <= 0xf7 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return back < need ? i : len;
  }
  return len;
}

/**
 * `read_file` (docs/CONTRACTS.md): up to `limit` bytes of a file from byte `offset`, decoded as UTF-8.
 * A page never ends inside a multi-byte character: it is cut a little shorter (and `nextOffset`
 * points at the start of that character). If `limit` is smaller than the character at `offset`
 * (limit < 4), the page holds that one whole character so paging always makes progress.
 * An `offset` at or past the end gives an empty page with `nextOffset: null`.
 */
export const readFileTool = defineTool({
  name: "read_file",
  description:
    "Read a text file in the workspace as UTF-8, one page at a time (offset and limit in bytes). Pass nextOffset as offset to continue; nextOffset is null at the end.",
  parameters: readFileArgsSchema,
  sideEffect: false,
  async execute(args, ctx): Promise<ReadFileOutput> {
    const file = await resolveInWorkspace(ctx.workspace, args.path);
    const handle = await open(file.real, "r");
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw new ToolError("not_a_file", `path: ${JSON.stringify(args.path)} is not a regular file`);
      const totalBytes = info.size;
      const start = Math.min(args.offset, totalBytes);
      // Read up to 3 bytes more than the limit so a too-small limit can still hold one whole character.
      const want = Math.min(args.limit + 3, totalBytes - start);
      const buf = Buffer.alloc(want);
      let got = 0;
      while (got < want) {
        const { bytesRead } = await handle.read(buf, got, want - got, start + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      let page = buf.subarray(0, Math.min(args.limit, got));
      const atEnd = start + page.length >= totalBytes;
      if (!atEnd) {
        const safe = utf8SafeLength(page);
        if (safe > 0) page = page.subarray(0, safe);
        else page = buf.subarray(0, Math.min(got, firstCharLength(buf[0]!)));
      }
      const end = start + page.length;
      return {
        path: file.display,
        content: page.toString("utf8"),
        offset: start,
        bytes: page.length,
        totalBytes,
        nextOffset: end < totalBytes ? end : null,
      };
    } finally {
      await handle.close();
    }
  },
});

function firstCharLength(lead: number): number {
  return lead >= 0xf0 && lead <= 0xf7 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
}
