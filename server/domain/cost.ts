import { calcPrice } from "@pydantic/genai-prices";

/** USD per million tokens; a profile's own prices override the price package. */
export interface ProfilePrices {
  inputPerMTok: number | null;
  cachedPerMTok: number | null;
  outputPerMTok: number | null;
}

/**
 * Dollars for one model call. Prices come from the profile when it sets them (local overrides, e.g.
 * the scripted model's notional prices), else from `@pydantic/genai-prices` (maintained per-model
 * prices incl. cached-token prices, bundled, no network). `promptTokens` includes `cachedTokens`
 * (OpenAI's usage convention); cached tokens are charged at the cached price (input price when the
 * model has none). Unknown model with no override → 0 and `priced: false`.
 */
export function modelCallCostUsd({
  model,
  usage,
  prices,
}: {
  model: string;
  usage: { promptTokens: number; cachedTokens: number; completionTokens: number };
  prices: ProfilePrices;
}): { usd: number; priced: boolean } {
  if (prices.inputPerMTok !== null && prices.outputPerMTok !== null) {
    const cachedPrice = prices.cachedPerMTok ?? prices.inputPerMTok;
    const uncached = Math.max(0, usage.promptTokens - usage.cachedTokens);
    const usd = (uncached * prices.inputPerMTok + usage.cachedTokens * cachedPrice + usage.completionTokens * prices.outputPerMTok) / 1_000_000;
    return { usd, priced: true };
  }
  const result = calcPrice(
    { input_tokens: usage.promptTokens, cache_read_tokens: usage.cachedTokens, output_tokens: usage.completionTokens },
    model,
  );
  return result ? { usd: result.total_price, priced: true } : { usd: 0, priced: false };
}
