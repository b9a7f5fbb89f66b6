import { z } from "zod";

/**
 * Faults the scripted model server serves on request (`POST /control/faults`), on every wire format,
 * each in that provider's words: `429` (with retry-after), `500`, `529` (overloaded: Anthropic's 529
 * `overloaded_error`; the OpenAI routes answer 503 "overloaded"), `stall` (silence before or after the
 * headers, then the answer), `cut` (half the stream or body, no end), `no_usage`, `no_stream` (a
 * streamed request answered with the whole JSON body, as a server that cannot stream does), `oversize`,
 * `context_length` (a prompt over `maxPromptTokens` refused with a 400 in the route's words, or in
 * `style`'s words on the OpenAI routes).
 */
export const faultSchema = z.object({
  kind: z.enum(["429", "500", "529", "stall", "cut", "no_usage", "no_stream", "oversize", "context_length"]),
  count: z.number().int().min(1).max(1_000_000).default(1),
  retryAfterSeconds: z.number().min(0).max(86_400).default(1),
  stallMs: z.number().int().min(0).max(3_600_000).default(600_000),
  phase: z.enum(["before_headers", "after_headers"]).optional(),
  model: z.string().min(1).optional(),
  /** Only requests on this route: `chat` (/v1/chat/completions), `responses` (/v1/responses), `messages` (/v1/messages); all when absent. */
  route: z.enum(["chat", "responses", "messages"]).optional(),
  /**
   * Only requests whose transcript (any message's text) contains this string: a fault for one task
   * among several the server answers at once, named by its goal text. Absent: every request.
   */
  promptContains: z.string().min(1).max(10_000).optional(),
  /** Requests (matching `model`) answered normally before this fault is served: arms a fault for a known point of a deterministic scripted run, with no race against it. */
  skip: z.number().int().min(0).max(1_000_000).default(0),
  /** oversize: bytes of padding appended to the reply's content. */
  bytes: z
    .number()
    .int()
    .min(1)
    .max(64 * 1024 * 1024)
    .default(5 * 1024 * 1024),
  /** context_length: the largest prompt (tokens, as usage counts them) answered; a longer one is refused. */
  maxPromptTokens: z.number().int().min(0).max(100_000_000).default(0),
  /** context_length: the window the refusal states (default: `maxPromptTokens`). */
  statedLimitTokens: z.number().int().min(1).max(100_000_000).optional(),
  /** context_length on the OpenAI routes: OpenAI's words (code `context_length_exceeded`), vLLM's or llama.cpp's (no code), or none (no limit stated). The Messages route always speaks Anthropic's. */
  style: z.enum(["openai", "vllm", "llamacpp", "unstated"]).default("openai"),
});
export type FaultSpec = z.input<typeof faultSchema>;
export type Fault = z.output<typeof faultSchema> & { id: number };
export type WireRoute = NonNullable<Fault["route"]>;

/** The armed faults, served first-armed first; each served one uses up one `count`. */
export class FaultBook {
  private list: Fault[] = [];
  private nextId = 1;

  /** Arms faults (already validated); returns them with their ids. */
  arm(specs: z.output<typeof faultSchema>[]): Fault[] {
    const armed = specs.map((f) => ({ ...f, id: this.nextId++ }));
    this.list.push(...armed);
    return armed;
  }

  all(): Fault[] {
    return this.list;
  }

  clear(): void {
    this.list = [];
  }

  /**
   * The fault to serve to this request, or null: the first armed one matching its model, route and
   * text (`promptContains` against `promptText`, the transcript's message texts joined), a
   * context_length fault only when the prompt is over its limit, after its `skip` is used up.
   */
  take(
    { model, route, promptTokens, promptText }: { model: string; route: WireRoute; promptTokens: () => number; promptText: () => string },
    served: Record<string, number>,
  ): Fault | null {
    const fault = this.list.find(
      (f) =>
        (f.model === undefined || f.model === model) &&
        (f.route === undefined || f.route === route) &&
        (f.promptContains === undefined || promptText().includes(f.promptContains)) &&
        (f.kind !== "context_length" || promptTokens() > f.maxPromptTokens),
    );
    if (!fault) return null;
    if (fault.skip > 0) {
      fault.skip--;
      return null;
    }
    fault.count--;
    if (fault.count <= 0) this.list = this.list.filter((f) => f !== fault);
    served[fault.kind] = (served[fault.kind] ?? 0) + 1;
    return fault;
  }
}
