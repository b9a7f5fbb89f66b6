import { createHash } from "node:crypto";

/** One block of an Anthropic prompt as the cache sees it: its tokens, and whether it carries a `cache_control` breakpoint. */
export interface CacheBlock {
  tokens: readonly number[];
  breakpoint: boolean;
}

/**
 * Emulated Anthropic prompt caching (Anthropic's "Prompt caching" guide): the prompt is the sequence
 * tools → system → messages, in blocks; a block with `cache_control` marks a breakpoint. A request
 * reads the longest cached prefix that ends at a block boundary at, or up to LOOKBACK_BLOCKS blocks
 * before, one of its breakpoints; it writes the prefix up to each of its breakpoints beyond that,
 * reported as `cache_creation_input_tokens` (priced apart, 1.25 × input for the 5-minute cache). A
 * prefix shorter than MINIMUM tokens is neither read nor written (the guide's minimum cacheable
 * length for Claude Sonnet and Opus models). Entries are scoped (Longhaul's adapter sends the task
 * in `metadata.user_id`; Anthropic's cache is shared by the organisation — one scope per task keeps
 * identical work at identical usage) and bounded (least recently used dropped); no 5-minute expiry.
 */
export class BreakpointCache {
  static readonly MINIMUM = 1024;
  static readonly LOOKBACK_BLOCKS = 20;
  private readonly entries = new Map<string, true>();

  constructor(private readonly capacity = 200_000) {}

  /** Cache read and write tokens of a request's blocks, then stores its breakpoint prefixes. */
  lookupAndStore(blocks: readonly CacheBlock[], scope = ""): { readTokens: number; writeTokens: number } {
    const hashes: string[] = [];
    const ends: number[] = [];
    let previous = createHash("sha1").update(`scope:${scope}`).digest("hex");
    let length = 0;
    for (const block of blocks) {
      previous = createHash("sha1")
        .update(previous)
        .update(Buffer.from(Uint32Array.from(block.tokens).buffer))
        .digest("hex");
      length += block.tokens.length;
      hashes.push(previous);
      ends.push(length);
    }
    const breakpoints = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
    let read = 0;
    let readBlock = -1;
    for (const bp of breakpoints) {
      for (let j = bp; j >= 0 && j >= bp - BreakpointCache.LOOKBACK_BLOCKS; j--) {
        if (ends[j]! >= BreakpointCache.MINIMUM && this.entries.has(hashes[j]!)) {
          if (ends[j]! > read) [read, readBlock] = [ends[j]!, j];
          break;
        }
      }
    }
    let written = read;
    for (const bp of breakpoints) {
      if (bp <= readBlock || ends[bp]! < BreakpointCache.MINIMUM) continue;
      this.touch(hashes[bp]!);
      written = Math.max(written, ends[bp]!);
    }
    if (readBlock >= 0) this.touch(hashes[readBlock]!);
    return { readTokens: read, writeTokens: written - read };
  }

  private touch(hash: string): void {
    this.entries.delete(hash);
    this.entries.set(hash, true);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}
