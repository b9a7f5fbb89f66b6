import { describe, expect, it } from "vitest";
import { wasteWords } from "../../lib/contracts/waste.ts";

// A waste label says what happened, and names only what happened.
describe("wasteWords", () => {
  const fmt = (n: number) => `$${n.toFixed(2)}`;
  it("names each cause with spend, never 'retries' when nothing was retried", () => {
    expect(wasteWords({ retryUsd: 0, replayUsd: 0, discardedUsd: 0.03, restartUsd: 0 }, fmt)).toBe("$0.03 discarded after a resume");
    expect(wasteWords({ retryUsd: 0.01, replayUsd: 0.02, discardedUsd: 0, restartUsd: 0.04 }, fmt)).toBe("$0.01 retried · $0.02 replayed · $0.04 restarted");
    expect(wasteWords({ retryUsd: 0, replayUsd: 0, discardedUsd: 0, restartUsd: 0 }, fmt)).toBe("");
  });
});
