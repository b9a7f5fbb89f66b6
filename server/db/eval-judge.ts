import { JudgeUnavailableError, judgeVerdict, type EvalOutcome } from "../domain/eval-checks.ts";
import { ModelCallError } from "../llm/errors.ts";
import { callModel, resolveProvider } from "../llm/provider.ts";
import type { PrismaClient } from "./client.ts";
import { profileHeadersJson } from "./json-columns.ts";

/** Attempts a judge gets for one check before its check is classed unavailable (1 call + 2 retries). */
export const JUDGE_ATTEMPTS = 3;
/** Wait before the 2nd and 3rd attempt (ms), unless the judge's 429 named a longer one (capped below). */
export const JUDGE_RETRY_DELAYS_MS = [1_000, 3_000] as const;
/** The longest `retry-after` of a judge's 429 that is waited for (ms); a longer one ends the retries. */
export const JUDGE_MAX_RETRY_AFTER_MS = 30_000;
/** Deadline of one judge call (ms): the judge answers in one non-streaming reply. */
export const JUDGE_TIMEOUT_MS = 60_000;

/** A judge profile as the call needs it (AgentProfile's columns). */
interface JudgeProfile {
  name: string;
  model: string;
  provider: string;
  baseUrl: string | null;
  apiKeyEnv: string | null;
  headers: unknown;
  systemPrompt: string;
  inputPricePerMTok: unknown;
  cachedPricePerMTok: unknown;
  cacheWritePricePerMTok?: unknown;
  outputPricePerMTok: unknown;
}

/**
 * Asks judge profile `profile` whether `outcome` meets `rubric`: one non-streaming call to wherever
 * the profile points, in its provider's wire format (its provider, base URL, key variable and headers,
 * under the same key rule as the agent's own calls), priced with the profile's prices per million
 * tokens (cache reads and writes apart, a missing cache price read as the input price). The reply
 * must start with PASS or FAIL (judgeVerdict).
 *
 * A transient failure — no connection, a timeout, HTTP 5xx or 429, a cut or unparsable body — and a
 * reply that is neither PASS nor FAIL are tried again, up to JUDGE_ATTEMPTS calls with
 * JUDGE_RETRY_DELAYS_MS between them (a 429's `retry-after` when longer, up to
 * JUDGE_MAX_RETRY_AFTER_MS); a refusal that will not change (401/403, another 4xx, an unknown
 * profile) is not retried. Every attempt's spend counts, the unusable ones too.
 *
 * @returns `{pass, answer, costUsd}` for a verdict.
 * @throws JudgeUnavailableError naming the last reason and the attempts, with the spend so far.
 */
export async function askJudge({
  prisma,
  profile,
  rubric,
  outcome,
  cacheKey,
  sleep = (ms) => new Promise((r) => setTimeout(r, ms)),
}: {
  prisma: PrismaClient;
  profile: string;
  rubric: string;
  outcome: EvalOutcome;
  /** `prompt_cache_key` of the call: one scope per judged cell. */
  cacheKey: string;
  sleep?: (ms: number) => Promise<void>;
}): Promise<{ pass: boolean; answer: string; costUsd: number }> {
  const p: JudgeProfile | null = await prisma.agentProfile.findUnique({ where: { name: profile } });
  if (!p) throw new JudgeUnavailableError(`judge profile "${profile}" not found`, { attempts: 0 });
  const provider = resolveProvider({
    endpoint: { provider: p.provider, baseUrl: p.baseUrl, apiKeyEnv: p.apiKeyEnv, headers: profileHeadersJson.decode(p.headers, p.name) },
  });
  const price = (d: unknown) => Number(d ?? 0) / 1_000_000;
  let costUsd = 0;
  let last = "";
  for (let attempt = 1; attempt <= JUDGE_ATTEMPTS; attempt++) {
    let wait: number = JUDGE_RETRY_DELAYS_MS[attempt - 1] ?? JUDGE_RETRY_DELAYS_MS.at(-1)!;
    try {
      const r = await callModel({
        wireFormat: provider.wireFormat,
        baseUrl: provider.baseUrl,
        apiKey: provider.apiKey,
        headers: provider.headers,
        model: p.model,
        stream: false,
        timeoutMs: JUDGE_TIMEOUT_MS,
        promptCacheKey: cacheKey,
        messages: [
          { role: "system", content: p.systemPrompt },
          {
            role: "user",
            content: `<rubric>${rubric}</rubric>\n<outcome>${JSON.stringify(outcome).slice(0, 60_000)}</outcome>\nAnswer PASS or FAIL, a colon, then one sentence.`,
          },
        ],
      });
      const cached = r.usage.cachedTokens ?? 0;
      const written = r.usage.cacheWriteTokens ?? 0;
      costUsd +=
        (r.usage.promptTokens - cached - written) * price(p.inputPricePerMTok) +
        cached * price(p.cachedPricePerMTok ?? p.inputPricePerMTok) +
        written * price(p.cacheWritePricePerMTok ?? p.inputPricePerMTok) +
        r.usage.completionTokens * price(p.outputPricePerMTok);
      const answer = (r.message.content ?? "").trim();
      const verdict = judgeVerdict(answer);
      if (verdict) return { pass: verdict === "pass", answer, costUsd: Number(costUsd.toFixed(8)) };
      last = `unusable reply (neither PASS nor FAIL): ${JSON.stringify(answer.slice(0, 200))}${r.message.toolCalls.length ? ` and ${r.message.toolCalls.length} tool call(s)` : ""}`;
    } catch (error) {
      if (!(error instanceof ModelCallError)) throw error;
      last = `[${error.kind}]${error.status ? ` HTTP ${error.status}` : ""} ${error.message}`;
      if (!error.retryable) return unavailable(last, attempt, costUsd);
      if (error.retryAfterMs !== null && error.kind === "rate_limited") {
        if (error.retryAfterMs > JUDGE_MAX_RETRY_AFTER_MS)
          return unavailable(`${last} (asked to wait ${Math.round(error.retryAfterMs / 1000)} s)`, attempt, costUsd);
        wait = Math.max(wait, error.retryAfterMs);
      }
    }
    if (attempt < JUDGE_ATTEMPTS) await sleep(wait);
  }
  return unavailable(last, JUDGE_ATTEMPTS, costUsd);
}

function unavailable(reason: string, attempts: number, costUsd: number): never {
  throw new JudgeUnavailableError(`${reason} (${attempts} attempt${attempts === 1 ? "" : "s"})`, { attempts, costUsd: Number(costUsd.toFixed(8)) });
}
