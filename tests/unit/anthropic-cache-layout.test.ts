import { describe, expect, it } from "vitest";
import { CACHE_LOOKBACK_BLOCKS, toAnthropicRequest } from "../../server/llm/adapters/messages.ts";
import { BreakpointCache } from "../../server/llm/scripted/breakpoint-cache.ts";
import { cacheBlocks } from "../../server/llm/scripted/routes/messages.ts";
import type { ChatMessage } from "../../server/llm/types.ts";

// The Messages adapter's cache_control layout read by the scripted server's emulation of Anthropic's
// prompt cache (breakpoints, 20-block lookback, 1024-token minimum): each request of a conversation
// must read back what the request before it wrote, however many tool results a turn adds.

const filler = (label: string, words: number) => `${label}: ${Array.from({ length: words }, (_, i) => `word${i}`).join(" ")}`;

/** A conversation whose turn `t` makes `calls[t]` parallel tool calls, each answered by a result. */
function conversation(calls: number[]): ChatMessage[][] {
  const messages: ChatMessage[] = [
    { role: "system", content: filler("system", 600) },
    { role: "user", content: filler("goal", 400) },
  ];
  const requests: ChatMessage[][] = [structuredClone(messages)];
  calls.forEach((n, t) => {
    const ids = Array.from({ length: n }, (_, i) => `toolu_${t}_${i}`);
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: ids.map((id) => ({ id, type: "function", function: { name: "read_file", arguments: `{"path":"${id}"}` } })),
    });
    for (const id of ids) messages.push({ role: "tool", tool_call_id: id, content: filler(id, 40) });
    requests.push(structuredClone(messages));
  });
  return requests;
}

/** Cache read tokens, and the prompt tokens of the request before, for each request after the first. */
function replay(requests: ChatMessage[][]) {
  const cache = new BreakpointCache();
  let previous = 0;
  const out: { read: number; previousPrompt: number; breakpoints: number }[] = [];
  for (const [i, messages] of requests.entries()) {
    const { system, messages: turns } = toAnthropicRequest(messages);
    const blocks = cacheBlocks({ model: "m", max_tokens: 100, system, messages: turns } as never, (t) => t);
    const { readTokens } = cache.lookupAndStore(blocks, "task");
    const prompt = blocks.reduce((n, b) => n + b.tokens.length, 0);
    if (i > 0) out.push({ read: readTokens, previousPrompt: previous, breakpoints: blocks.filter((b) => b.breakpoint).length });
    previous = prompt;
  }
  return out;
}

describe("Anthropic cache layout", () => {
  it("reads the whole previous request back after a turn wider than the lookback", () => {
    const wide = CACHE_LOOKBACK_BLOCKS + 5;
    const reads = replay(conversation([3, wide, 2, wide, wide]));
    for (const r of reads) {
      // The previous request's prompt is all cached, to its last block (one block: tokens of the reply priming aside).
      expect(r.read).toBeGreaterThan(r.previousPrompt * 0.95);
      expect(r.breakpoints).toBeLessThanOrEqual(4);
    }
  });

  it("adds no breakpoint for a narrow turn: the last block's lookback finds the previous request", () => {
    const narrow = replay(conversation([2, 3]));
    const wide = replay(conversation([2, CACHE_LOOKBACK_BLOCKS + 1]));
    expect(wide.at(-1)!.breakpoints).toBe(narrow.at(-1)!.breakpoints + 1);
  });
});
