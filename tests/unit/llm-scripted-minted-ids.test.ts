import { randomBytes } from "node:crypto";
import { ulid } from "ulid";
import { describe, expect, it } from "vitest";
import { MintedIdNormalizer } from "../../server/llm/scripted/minted-ids.ts";
import { PrefixCache } from "../../server/llm/scripted/prefix-cache.ts";
import { countCompletionTokens, tokenizePrompt } from "../../server/llm/tokens.ts";
import type { ChatMessage } from "../../server/llm/types.ts";

// Identical work must cost the same offline. The scripted server counts usage with the ids a
// run mints normalised, so two runs that differ only in their random ids get identical usage.

const hex = (n: number) => randomBytes(n).toString("hex").slice(0, n);
const filler = (i: number) => `package-${i} has license MIT and version 1.${i}.0; `.repeat(12);

/** A run's conversation: ids drawn fresh, the work (everything else) fixed. */
function conversation(turns: number): { messages: ChatMessage[][]; ids: string[] } {
  const taskId = `task_${ulid().toLowerCase()}`;
  const checkpointId = `cp_${ulid().toLowerCase()}`;
  const ids = [taskId, checkpointId];
  const messages: ChatMessage[] = [
    { role: "system", content: "You are a careful agent." },
    {
      role: "user",
      content: `<goal>Audit</goal>\n<working_set>{"notes":{"$ref":"checkpoint ${checkpointId}, workingSet.\\"notes\\"","description":"x"},"task":"${taskId}"}</working_set>`,
    },
  ];
  const prompts: ChatMessage[][] = [];
  for (let i = 0; i < turns; i++) {
    const callId = `call_${hex(24)}`;
    const messageId = `${hex(32)}@longhaul.local`;
    ids.push(callId, messageId);
    messages.push(
      { role: "assistant", content: null, tool_calls: [{ id: callId, type: "function", function: { name: "read_file", arguments: `{"path":"p${i}"}` } }] },
      { role: "tool", tool_call_id: callId, content: JSON.stringify({ text: filler(i), messageId }) },
    );
    prompts.push([...messages]);
  }
  return { messages: prompts, ids };
}

/** What the scripted server reports for each prompt of a run: prompt tokens and cached tokens. */
function usageOf(prompts: ChatMessage[][], scope: string, normalise: boolean, cache = new PrefixCache(), ids = new MintedIdNormalizer()) {
  return prompts.map((p) => {
    const tokens = tokenizePrompt(normalise ? ids.normalizeMessages(p, scope) : p);
    return { prompt: tokens.length, cached: cache.lookupAndStore(tokens, scope) };
  });
}

describe("MintedIdNormalizer", () => {
  it("replaces the ids Longhaul mints and nothing else", () => {
    const n = new MintedIdNormalizer();
    const run = `run_${ulid().toLowerCase()}`;
    const text = `run ${run}, call call_${hex(24)}, mail ${hex(32)}@longhaul.local, again ${run}; gitHead ${hex(40)}, name run_fast, word abcdefghjkmnpqrstvwxyz0123`;
    expect(n.normalizeText(text, "s")).toMatch(
      /^run id000001, call id000002, mail id000003@longhaul\.local, again id000001; gitHead [0-9a-f]{40}, name run_fast, word abcdefghjkmnpqrstvwxyz0123$/,
    );
    // Ordinals are per scope: another scope starts at 1 again.
    expect(n.normalizeText(`x ${run}`, "t")).toBe("x id000001");
  });

  it("gives two runs with different ids identical prompt, cached and completion tokens", () => {
    const a = conversation(12);
    const b = conversation(12);
    // The raw prompts differ in tokens (the ids tokenise differently): what the normaliser removes.
    const rawA = usageOf(a.messages, "run-a", false);
    const rawB = usageOf(b.messages, "run-b", false);
    expect(rawA).not.toEqual(rawB);

    const usageA = usageOf(a.messages, "run-a", true);
    const usageB = usageOf(b.messages, "run-b", true);
    expect(usageB).toEqual(usageA);
    expect(usageA.at(-1)!.cached).toBeGreaterThan(1024);
    // On one server, interleaved, each run keeps its own scope (its prompt_cache_key).
    const cache = new PrefixCache();
    const ids = new MintedIdNormalizer();
    const both = a.messages.flatMap((p, i) => [usageOf([p], "run-a", true, cache, ids)[0], usageOf([b.messages[i]!], "run-b", true, cache, ids)[0]]);
    expect(both.filter((_, i) => i % 2 === 0)).toEqual(usageA);
    expect(both.filter((_, i) => i % 2 === 1)).toEqual(usageA);

    const replyA = countCompletionTokens(null, [
      { name: "record_fact", arguments: new MintedIdNormalizer().normalizeText(`{"messageId":"${a.ids[3]}"}`, "s") },
    ]);
    const replyB = countCompletionTokens(null, [
      { name: "record_fact", arguments: new MintedIdNormalizer().normalizeText(`{"messageId":"${b.ids[3]}"}`, "s") },
    ]);
    expect(replyB).toBe(replyA);
  });

  it("keeps distinct ids distinct for the cache: a prompt with another id shares no more prefix", () => {
    const n = new MintedIdNormalizer();
    const cache = new PrefixCache();
    const body = filler(1).repeat(8);
    const first = [{ role: "user" as const, content: `${body} cp_${ulid().toLowerCase()} ${body}` }];
    const second = [{ role: "user" as const, content: `${body} cp_${ulid().toLowerCase()} ${body}` }];
    const t1 = tokenizePrompt(n.normalizeMessages(first, "s"));
    cache.lookupAndStore(t1, "s");
    const t2 = tokenizePrompt(n.normalizeMessages(second, "s"));
    expect(t2.length).toBe(t1.length);
    const idAt = t1.findIndex((tok, i) => tok !== t2[i]);
    expect(idAt).toBeGreaterThan(1024);
    expect(cache.lookupAndStore(t2, "s")).toBe(Math.floor(idAt / 128) * 128);
  });
});
