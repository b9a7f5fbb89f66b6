import { createHash } from "node:crypto";

/**
 * Emulated prompt caching, modelled on OpenAI's documented behaviour ("Prompt caching" guide): the
 * cached part of a prompt is the longest prefix it shares with an earlier request, counted in blocks
 * of 128 tokens, and nothing is cached below 1024 tokens. Implemented as vLLM-style block hashing:
 * each 128-token block gets a hash chained with the hash of the blocks before it, so a block hash is
 * known exactly when an earlier prompt had the same tokens up to the end of that block. The set is
 * bounded (least recently used blocks dropped first).
 */
export class PrefixCache {
  static readonly BLOCK = 128;
  static readonly MINIMUM = 1024;
  private readonly blocks = new Map<string, true>();

  constructor(private readonly capacity = 200_000) {}

  /**
   * Cached tokens for `tokens` against earlier prompts of the same `scope`; then remembers `tokens`
   * for later ones. `scope` is the request's `prompt_cache_key` (OpenAI routes requests with the same
   * key and prefix to the same cache), "" without one: with a key per run, identical runs get
   * identical cache hits whatever ran before or beside them (identical work costs the same).
   */
  lookupAndStore(tokens: readonly number[], scope = ""): number {
    const hashes: string[] = [];
    let previous = scope ? createHash("sha1").update(`scope:${scope}`).digest("hex") : "";
    for (let start = 0; start + PrefixCache.BLOCK <= tokens.length; start += PrefixCache.BLOCK) {
      const block = Uint32Array.from(tokens.slice(start, start + PrefixCache.BLOCK));
      previous = createHash("sha1").update(previous).update(Buffer.from(block.buffer)).digest("hex");
      hashes.push(previous);
    }
    let matched = 0;
    while (matched < hashes.length && this.blocks.has(hashes[matched]!)) matched++;
    for (const hash of hashes) {
      this.blocks.delete(hash);
      this.blocks.set(hash, true);
    }
    while (this.blocks.size > this.capacity) {
      const oldest = this.blocks.keys().next().value;
      if (oldest === undefined) break;
      this.blocks.delete(oldest);
    }
    const cached = matched * PrefixCache.BLOCK;
    return cached >= PrefixCache.MINIMUM ? cached : 0;
  }

  clear(): void {
    this.blocks.clear();
  }
}
