import { describe, expect, it } from "vitest";
import { tokenSplitWords } from "../../lib/contracts/token-split.ts";

const k = (n: number) => `${(n / 1000).toFixed(1)}K`;

describe("the run page's tokens beside the CSV's billed tokens", () => {
  it("says both figures and what the difference went to", () => {
    expect(tokenSplitWords({ stepTokens: 250_400, billedTokens: 309_643, tokensByCause: { retry: 41_000, compaction: 18_243 } }, k)).toBe(
      "250.4K in the run's steps · 309.6K billed (every model call), incl. 59.2K in retries and compaction (41.0K retries, 18.2K compaction)",
    );
    expect(tokenSplitWords({ stepTokens: 1000, billedTokens: 1500, tokensByCause: { checkpoint: 500 } }, k)).toBe(
      "1.0K in the run's steps · 1.5K billed (every model call), incl. 0.5K in checkpoint summaries",
    );
  });

  it("is silent when the two agree", () => {
    expect(tokenSplitWords({ stepTokens: 1000, billedTokens: 1000, tokensByCause: {} }, k)).toBeNull();
  });
});
