import { calcPrice } from "@pydantic/genai-prices";

/** USD per million tokens; a profile's own prices override the price package. */
export interface ProfilePrices {
  inputPerMTok: number | null;
  cachedPerMTok: number | null;
  outputPerMTok: number | null;
  /** Cache writes (Anthropic's `cache_creation_input_tokens`); null/absent = the input price. */
  cacheWritePerMTok?: number | null;
}

/** The token counts a price applies to (llm/types.ts ModelUsage): prompt includes cached and cache-write tokens. */
export interface PricedUsage {
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  cacheWriteTokens?: number;
}

/**
 * Dollars for one model call. Prices come from the profile when it sets them (local overrides, e.g.
 * the scripted model's notional prices), else from `@pydantic/genai-prices` (maintained per-model
 * prices incl. cached-token and cache-write prices, bundled, no network). `promptTokens` includes
 * `cachedTokens` and `cacheWriteTokens` (OpenAI's usage convention, which the Anthropic adapter
 * follows); cached tokens are charged at the cached price (input price when the model has none),
 * cache writes at the cache-write price (Claude: 1.25 × input for the 5-minute cache, from the
 * package; a profile's own, else its input price). Reasoning tokens are part of the completion and
 * priced with it. Unknown model with no override → 0 and `priced: false`.
 */
export function modelCallCostUsd({ model, usage, prices }: { model: string; usage: PricedUsage; prices: ProfilePrices }): { usd: number; priced: boolean } {
  const writes = usage.cacheWriteTokens ?? 0;
  if (prices.inputPerMTok !== null && prices.outputPerMTok !== null) {
    const cachedPrice = prices.cachedPerMTok ?? prices.inputPerMTok;
    const writePrice = prices.cacheWritePerMTok ?? prices.inputPerMTok;
    const uncached = Math.max(0, usage.promptTokens - usage.cachedTokens - writes);
    const usd =
      (uncached * prices.inputPerMTok + usage.cachedTokens * cachedPrice + writes * writePrice + usage.completionTokens * prices.outputPerMTok) / 1_000_000;
    return { usd, priced: true };
  }
  const result = calcPrice(
    {
      input_tokens: usage.promptTokens,
      cache_read_tokens: usage.cachedTokens,
      ...(writes ? { cache_write_tokens: writes } : {}),
      output_tokens: usage.completionTokens,
    },
    model,
  );
  return result ? { usd: result.total_price, priced: true } : { usd: 0, priced: false };
}

/** Version of the bundled price table (`@pydantic/genai-prices`, pinned in package.json; a unit test checks they agree). */
export const PRICE_PACKAGE_VERSION = "0.1.8";
/** The price-table version a figure priced by the package carries. */
export const PRICE_TABLE_VERSION = `genai-prices@${PRICE_PACKAGE_VERSION}`;

/**
 * Prices one model HTTP attempt for the ledger: dollars (USD) and the version of the price table
 * they come from — `profile:<name>` when the profile's own prices apply, else `genai-prices@<v>`.
 * An attempt the provider did not bill (`billed: false`: a 400, a 401, a 429 without a body, a
 * connection refused) costs 0 whatever its tokens; a billed one is priced from its tokens, cached
 * tokens at the cached price (see modelCallCostUsd). Tokens stay the source of truth: the figure
 * can be re-priced from the row.
 */
export function priceModelCall({
  model,
  usage,
  billed,
  prices,
  profileName,
}: {
  model: string;
  usage: PricedUsage;
  billed: boolean;
  prices: ProfilePrices;
  profileName: string;
}): { usd: number; priced: boolean; priceVersion: string } {
  const override = prices.inputPerMTok !== null && prices.outputPerMTok !== null;
  const priceVersion = override ? `profile:${profileName}` : PRICE_TABLE_VERSION;
  if (!billed) return { usd: 0, priced: true, priceVersion };
  const { usd, priced } = modelCallCostUsd({ model, usage, prices });
  return { usd, priced, priceVersion: priced ? priceVersion : `${priceVersion} (model not listed)` };
}
