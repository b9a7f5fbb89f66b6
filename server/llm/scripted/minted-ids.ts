import type { ChatMessage } from "../types.ts";

/**
 * The identifiers Longhaul and the scripted server mint per run, as they appear in prompts:
 * `<prefix>_<ULID>` (tasks, runs, checkpoints, … — `prefix_` + 26 lower-case Crockford base-32
 * characters, server/db/launch-ports.ts), `call_<hex>` (tool call ids, derived by the scripted server
 * from the request) and `<hex>@longhaul.local` (send_email's message ids, server/tools/send-email.ts).
 * Package content (a `gitHead`, an integrity hash) matches none of them and is counted as it is.
 */
const MINTED_ID = /(?<![A-Za-z0-9_])(?:[a-z][a-z0-9]{0,23}_[0-9a-hjkmnp-tv-z]{26}|call_[0-9a-f]{16,64}|[0-9a-f]{16,64}(?=@longhaul\.local))(?![A-Za-z0-9_])/g;

/**
 * Counts per-run identifiers as fixed-width placeholders, so the scripted server's token usage (and
 * with it the emulated prefix cache) depends only on the work (identical work must cost
 * the same offline).
 *
 * Why, against a real provider: OpenAI counts and caches the real tokens, and two random ids of the
 * same shape tokenise (o200k_base) into different numbers of tokens — a ULID or a hex digest is 10 to
 * 20 tokens depending on the draw. A real provider therefore bills identical runs a few tokens apart
 * and, since its cache counts 128-token blocks from the start of the prompt, every id before a block
 * edge moves the edge, so the cached share of each call differs by up to a block. That is noise of the
 * draw, not of the work, and an offline emulator whose figures decide between profiles must not
 * reproduce it. What a real cache does with *different* ids is kept: an id becomes `id` + its
 * ordinal of first appearance within the scope (the request's `prompt_cache_key`), six digits wide,
 * so distinct ids stay distinct (a prompt with another id shares no more prefix than on the real
 * service) while identical runs, which mint their ids in the same order, get identical placeholders.
 * Six digits are two tokens of three digits each (o200k_base splits digits in threes, never merged with
 * letters), whatever the ordinal; the letters `id` merge only with the character before them, which
 * is the same in identical runs.
 *
 * Memory: ordinals are kept for the most recent `capacity` scopes (least recently used dropped).
 */
export class MintedIdNormalizer {
  private readonly scopes = new Map<string, Map<string, number>>();

  constructor(private readonly capacity = 10_000) {}

  /** `text` with each minted id replaced by its placeholder in `scope` ("" = no prompt_cache_key). */
  normalizeText(text: string, scope = ""): string {
    if (!text) return text;
    const ids = this.scopeIds(scope);
    return text.replace(MINTED_ID, (id) => {
      let n = ids.get(id);
      if (n === undefined) {
        n = ids.size + 1;
        ids.set(id, n);
      }
      return `id${String(n).padStart(6, "0")}`;
    });
  }

  /**
   * `messages` with minted ids replaced in every place a prompt carries text: content, tool call ids
   * and arguments, a tool message's `tool_call_id`. The input is not changed. Pure but for the
   * scope's ordinals (see the class comment).
   */
  normalizeMessages(messages: readonly ChatMessage[], scope = ""): ChatMessage[] {
    // Content that is not a string (a malformed message the server passed through) is left as it is.
    const t = <T>(s: T): T => (typeof s === "string" ? (this.normalizeText(s, scope) as T) : s);
    return messages.map((m): ChatMessage => {
      if (m.role === "tool") return { ...m, tool_call_id: t(m.tool_call_id), content: t(m.content) };
      if (m.role === "assistant") {
        return {
          ...m,
          content: m.content === null ? null : t(m.content),
          ...(m.tool_calls
            ? { tool_calls: m.tool_calls.map((c) => ({ ...c, id: t(c.id), function: { name: c.function.name, arguments: t(c.function.arguments) } })) }
            : {}),
        };
      }
      return { ...m, content: t(m.content) };
    });
  }

  /** Forgets every scope's ordinals (the scripted server's `POST /control/reset`). */
  clear(): void {
    this.scopes.clear();
  }

  private scopeIds(scope: string): Map<string, number> {
    let ids = this.scopes.get(scope);
    if (ids) this.scopes.delete(scope);
    else ids = new Map();
    this.scopes.set(scope, ids);
    while (this.scopes.size > this.capacity) {
      const oldest = this.scopes.keys().next().value;
      if (oldest === undefined) break;
      this.scopes.delete(oldest);
    }
    return ids;
  }
}
