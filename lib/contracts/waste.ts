/**
 * Words for wasted spend (a label says what happened — "wasted on retries" appeared when
 * nothing was retried). Causes as server/domain/cost-causes.ts records them. Client-safe, pure.
 */

/** A task's waste by cause, USD. */
export interface WasteSplitUsd {
  retryUsd: number;
  replayUsd: number;
  discardedUsd: number;
  restartUsd: number;
}

/** What each cause means, as a label beside its amount. */
export const WASTE_WORDS = {
  retryUsd: "retried",
  replayUsd: "replayed",
  discardedUsd: "discarded after a resume",
  restartUsd: "restarted",
} as const satisfies Record<keyof WasteSplitUsd, string>;

/**
 * "$0.0120 retried · $0.0030 discarded after a resume": each cause with spend, with `format` for
 * the money; "" when there is no waste. Only causes that happened are named.
 */
export function wasteWords(waste: WasteSplitUsd, format: (usd: number) => string): string {
  return (Object.keys(WASTE_WORDS) as (keyof WasteSplitUsd)[])
    .filter((k) => waste[k] > 0)
    .map((k) => `${format(waste[k])} ${WASTE_WORDS[k]}`)
    .join(" · ");
}
