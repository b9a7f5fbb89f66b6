import { z } from "zod";

/** UTF-8 byte length of a string. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/**
 * A string limited by its UTF-8 size in bytes (not characters), with the error message naming the
 * limit and the actual size: "must be ≤ 65536 bytes (UTF-8), got 70000".
 */
export function maxBytesString(maxBytes: number) {
  return z.string().check((ctx) => {
    const bytes = utf8Bytes(ctx.value);
    if (bytes > maxBytes) {
      ctx.issues.push({ code: "custom", input: ctx.value, message: `must be ≤ ${maxBytes} bytes (UTF-8), got ${bytes}` });
    }
  });
}
