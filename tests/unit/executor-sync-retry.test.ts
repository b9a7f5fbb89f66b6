import { afterEach, describe, expect, it, vi } from "vitest";
import { startSyncLoops } from "../../server/executor/app-sync.ts";
import { createExecutorLogger } from "../../server/executor/logger.ts";

// The executor's in-band sync of an app that is not up yet: retried after `retryMs` (the test stack
// sets 100 ms so a file's stack is synced as soon as its app child listens), 2 s by default.

afterEach(() => {
  vi.useRealTimers();
});

/** Runs the sync loop of one app whose first `failures` syncs fail; returns the fake clock's times of each sync. */
async function syncTimes(failures: number, retryMs: number | undefined, untilMs: number): Promise<number[]> {
  vi.useFakeTimers({ now: 0 });
  const times: number[] = [];
  const warnings: string[] = [];
  const loops = startSyncLoops({
    appUrls: ["http://127.0.0.1:1/api/inngest"],
    resyncMs: 60_000,
    ...(retryMs === undefined ? {} : { retryMs }),
    logger: createExecutorLogger({ format: "text", write: (l) => warnings.push(l) }),
    sync: () => {
      times.push(Date.now());
      return times.length <= failures ? Promise.reject(new Error("connect ECONNREFUSED")) : Promise.resolve({ appId: "app", functionIds: [] });
    },
  });
  await vi.advanceTimersByTimeAsync(untilMs);
  loops.stop();
  expect(warnings).toHaveLength(failures);
  return times;
}

describe("the executor's sync retry", () => {
  it("syncs an app that was not up again after retryMs, then only at the re-sync interval", async () => {
    expect(await syncTimes(3, 100, 10_000)).toEqual([0, 100, 200, 300]);
  });

  it("waits 2 s between failed syncs by default", async () => {
    expect(await syncTimes(2, undefined, 10_000)).toEqual([0, 2000, 4000]);
  });
});
