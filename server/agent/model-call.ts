import { ModelCallError } from "../llm/errors.ts";
import type { ChatCompletionResult } from "../llm/provider.ts";
import type { ChatMessage, EffortLevel, ModelUsage, ToolSchema } from "../llm/types.ts";
import type { ModelCallRecord, ModelPorts } from "./ports.ts";

/** The profile fields a model call needs (RunStart.profile). */
export interface ModelProfile {
  model: string;
  baseUrl: string | null;
  /** Where the call goes besides baseUrl (server/llm/provider.ts resolveProvider): scripted or openai, key variable, headers. */
  provider?: string | null;
  apiKeyEnv?: string | null;
  headers?: Record<string, string> | null;
  prices: { inputPerMTok: number | null; cachedPerMTok: number | null; outputPerMTok: number | null; cacheWritePerMTok?: number | null };
}

/** A recorded model call: the result, or the typed failure (already recorded as an error row). */
export type RecordedModelCall = { ok: true; res: ChatCompletionResult; costUsd: number } | { ok: false; error: ModelCallError };

/**
 * One model call and its ModelCall row — the single place that calls the provider and records the
 * call, for the model step and the checkpoint/compaction request alike. Success: one `ok` row
 * (tokens, cost in USD from the profile's prices or the price package, `cause`). A ModelCallError:
 * one `error` row (cause `retry`; billed attempts carry their estimated usage and cost) and
 * `{ok: false, error}` — the caller decides to retry, give up or go on. Any other error is thrown.
 *
 * - `cause`: `productive` / `replay` for the agent's own turn, `checkpoint` / `compaction` for a summary.
 * - `attempt`: the step's attempt (0-based), recorded on the row.
 * - `cacheKey`: the prompt-cache scope (the task id: a task's runs share their prefix), default `runId`.
 * - `effort`: this call's reasoning effort (types.ts EffortLevel), mapped by the adapter; undefined = the provider's default.
 * - `model`: this call's model when it differs from the profile's (recorded and priced as that model).
 */
export async function callModelRecorded({
  ports,
  profile,
  runId,
  stepId,
  attempt,
  messages,
  tools,
  toolChoice,
  cause,
  cacheKey,
  effort,
  model: modelOverride,
}: {
  ports: ModelPorts;
  profile: ModelProfile;
  runId: string;
  stepId: string;
  attempt: number;
  messages: ChatMessage[];
  tools?: ToolSchema[];
  /** "none": tools are sent for the cached prefix but may not be called (ModelRequest.toolChoice). */
  toolChoice?: "none";
  cause: ModelCallRecord["cause"];
  cacheKey?: string;
  effort?: EffortLevel;
  model?: string;
}): Promise<RecordedModelCall> {
  const model = modelOverride ?? profile.model;
  let res: ChatCompletionResult;
  try {
    res = await ports.chat({
      endpoint: { provider: profile.provider ?? null, baseUrl: profile.baseUrl, apiKeyEnv: profile.apiKeyEnv ?? null, headers: profile.headers ?? null },
      model,
      messages,
      ...(tools ? { tools } : {}),
      ...(toolChoice ? { toolChoice } : {}),
      stream: true,
      promptCacheKey: cacheKey ?? runId,
      ...(effort ? { effort } : {}),
    });
  } catch (error) {
    if (!(error instanceof ModelCallError)) throw error;
    const usage: ModelUsage = error.estimatedUsage ?? { promptTokens: 0, cachedTokens: 0, completionTokens: 0 };
    await ports.recordModelCall({
      runId,
      stepId,
      attempt,
      model,
      ...usage,
      estimated: error.estimatedUsage !== null,
      status: "error",
      httpStatus: error.status,
      billed: error.billed,
      cause: "retry",
      latencyMs: error.latencyMs,
      error: error.message.slice(0, 2000),
    });
    return { ok: false, error };
  }
  // Priced once, by the ledger (the run's profile prices, else the price package): the figure the
  // loop's dollar ceiling uses is the one stored.
  const { usd: costUsd } = await ports.recordModelCall({
    runId,
    stepId,
    attempt,
    model,
    ...res.usage,
    estimated: res.usageEstimated,
    status: "ok",
    httpStatus: res.httpStatus,
    billed: true,
    cause,
    latencyMs: res.latencyMs,
  });
  return { ok: true, res, costUsd };
}
