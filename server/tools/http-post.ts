import { z } from "zod";
import { env } from "../env.ts";
import { EffectNotPerformedError, performExternalEffect, type JsonObject } from "./ledger.ts";
import { utf8Bytes } from "./limits.ts";
import { deploymentEgressPolicy } from "../domain/egress-policy.ts";
import { defineTool } from "./types.ts";

export const HTTP_POST_MAX_BODY_BYTES = 65_536;
/** Longest answer body kept in the result; a longer one is described, not cut. */
export const HTTP_POST_MAX_ANSWER_CHARS = 4_000;
/** How long one POST may take, milliseconds. */
export const HTTP_POST_TIMEOUT_MS = 30_000;

export const httpPostArgsSchema = z.strictObject({
  url: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .max(2_048)
    .describe("Where to POST; an origin outside the egress policy needs a human's approval"),
  body: z
    .record(z.string(), z.unknown())
    .refine((b) => utf8Bytes(JSON.stringify(b)) <= HTTP_POST_MAX_BODY_BYTES, `must be ≤ ${HTTP_POST_MAX_BODY_BYTES} bytes of JSON`)
    .describe("JSON object sent as the request body (at most 64 KiB)"),
});

/** What the agent gets back. `status`/`body` are null when a human confirmed an unknown outcome. */
export const httpPostOutputSchema = z.object({
  status: z.number().int().nullable(),
  body: z.string().nullable(),
  idempotencyKey: z.string(),
  deduplicated: z.boolean().optional(),
  confirmedBy: z.string().optional(),
});
export type HttpPostOutput = z.output<typeof httpPostOutputSchema>;

/**
 * The deployment's origins (`LONGHAUL_HTTP_ALLOW`, comma-separated, normalised; empty = none).
 * Kept for callers of the old helper; the policy itself is server/domain/egress-policy.ts.
 */
export function allowedOrigins(value = env().LONGHAUL_HTTP_ALLOW ?? ""): string[] {
  return deploymentEgressPolicy({ LONGHAUL_HTTP_ALLOW: value }).httpOrigins;
}

/** Network errors that mean the request never reached the server (so nothing happened there). */
const NOT_SENT = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH/;

/**
 * `http_post`: POSTs a JSON object to an allowed URL — an effect on an external system, ledgered
 * with intent before the call and result after (server/tools/ledger.ts `performExternalEffect`).
 * The request carries `Idempotency-Key: <task>:<run>:<step>` so a receiver that honours it (the
 * IETF draft "The Idempotency-Key HTTP Header Field") can drop a repeat. Outcomes:
 * - any answer below 500 → committed with `{status, body}` (a 4xx is the receiver's final word);
 * - connection refused / unknown host / a 5xx answer → nothing happened there: the intent is
 *   withdrawn and the step retries (EffectNotPerformedError);
 * - a timeout or a connection cut after sending → unknown: the intent stays, the retried step finds
 *   it without a result and the run escalates `unresolved_effect` — a human checks, never a guess.
 * The destination is checked by the egress gate before this runs (an origin outside the policy
 * escalates or is refused, server/tools/egress-gate.ts).
 */
export const httpPostTool = defineTool({
  name: "http_post",
  description:
    "POST a JSON object to an allowed URL (side effect on an external system, at most once: repeating the same call returns the original answer with deduplicated: true).",
  parameters: httpPostArgsSchema,
  sideEffect: true,
  risky: true,
  egress: (args) => ({ http: [{ field: "url", url: args.url }] }),
  async execute(args, ctx): Promise<HttpPostOutput> {
    const { result } = await performExternalEffect<JsonObject>({
      prisma: ctx.prisma,
      taskId: ctx.taskId,
      runId: ctx.runId,
      stepId: ctx.stepId,
      tool: "http_post",
      args: args as JsonObject,
      resultSchema: httpPostOutputSchema,
      async perform({ idempotencyKey }) {
        let res: Response;
        try {
          res = await fetch(args.url, {
            method: "POST",
            headers: { "content-type": "application/json", "idempotency-key": idempotencyKey },
            body: JSON.stringify(args.body),
            signal: AbortSignal.timeout(HTTP_POST_TIMEOUT_MS),
          });
        } catch (error) {
          const cause = (error as { cause?: { code?: string; message?: string } }).cause;
          const text = `${cause?.code ?? ""} ${cause?.message ?? ""} ${(error as Error).message}`;
          if (NOT_SENT.test(text)) throw new EffectNotPerformedError(`POST ${args.url} was not sent: ${text.trim()}`, { cause: error });
          throw error; // sent, outcome unknown: the intent stays
        }
        const text = await res.text().catch(() => "");
        if (res.status >= 500) throw new EffectNotPerformedError(`POST ${args.url} answered ${res.status}: ${text.slice(0, 200)}`);
        // Kept whole or not at all (never cut in the middle).
        const body = text.length > HTTP_POST_MAX_ANSWER_CHARS ? `<${text.length} characters, not kept>` : text;
        return { status: res.status, body, idempotencyKey };
      },
    });
    return result as HttpPostOutput; // a deduplicated answer carries deduplicated: true (the ledger marks it)
  },
});
