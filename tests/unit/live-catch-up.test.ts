import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { afterEach, describe, expect, it } from "vitest";
import { catchUp } from "../../components/live/catch-up.ts";

// The run page's "No steps yet" for 15 s on a task with 6 steps: the step list was read
// before the change stream subscribed, and nothing else changed afterwards. catchUp refetches what
// may predate the stream, and nothing else.

/** A real QueryClient with one observed query per key whose fetches are counted and released by hand. */
function harness() {
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  const fetches = new Map<string, number>();
  const release = new Map<string, (value: number) => void>();
  const observe = (key: string) => {
    const observer = new QueryObserver(client, {
      queryKey: ["task", key],
      queryFn: () =>
        new Promise<number>((resolve) => {
          const n = (fetches.get(key) ?? 0) + 1;
          fetches.set(key, n);
          release.set(key, () => resolve(n));
        }),
    });
    const stop = observer.subscribe(() => {});
    return { observer, stop };
  };
  const settle = async (key: string) => {
    release.get(key)?.(0);
    await new Promise((r) => setTimeout(r, 0));
  };
  return { client, fetches, observe, settle };
}

/** Waits (a deadline, not a sleep) until `check` holds. */
async function until(check: () => boolean, ms = 2_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup) c();
  cleanup = [];
});

describe("catchUp", () => {
  it("refetches a query read before the stream opened", async () => {
    const h = harness();
    const { stop } = h.observe("steps");
    cleanup.push(stop);
    await until(() => h.fetches.get("steps") === 1);
    await h.settle("steps");
    const openedAt = Date.now() + 1;
    cleanup.push(catchUp(h.client, { queryKey: ["task"] }, openedAt));
    await until(() => h.fetches.get("steps") === 2);
  });

  it("leaves alone a query read after the stream opened", async () => {
    const h = harness();
    const openedAt = Date.now() - 1_000;
    const { stop } = h.observe("steps");
    cleanup.push(stop);
    await until(() => h.fetches.get("steps") === 1);
    await h.settle("steps");
    cleanup.push(catchUp(h.client, { queryKey: ["task"] }, openedAt));
    // Invalidation is synchronous: not marked now means no refetch coming.
    expect(h.client.getQueryState(["task", "steps"])?.isInvalidated).toBe(false);
    expect(h.client.getQueryState(["task", "steps"])?.fetchStatus).toBe("idle");
    expect(h.fetches.get("steps")).toBe(1);
  });

  it("does not cancel a fetch in flight, and refetches once it lands", async () => {
    const h = harness();
    const { observer, stop } = h.observe("steps");
    cleanup.push(stop);
    await until(() => h.fetches.get("steps") === 1);
    cleanup.push(catchUp(h.client, { queryKey: ["task"] }, Date.now()));
    // Still the first fetch: not cancelled.
    expect(observer.getCurrentResult().fetchStatus).toBe("fetching");
    expect(h.fetches.get("steps")).toBe(1);
    await h.settle("steps");
    expect(observer.getCurrentResult().data).toBe(1);
    await until(() => h.fetches.get("steps") === 2);
  });

  it("touches only the queries the filter matches", async () => {
    const h = harness();
    const a = h.observe("steps");
    cleanup.push(a.stop);
    const other = new QueryObserver(h.client, { queryKey: ["cost", "rollup"], queryFn: () => 1 });
    cleanup.push(other.subscribe(() => {}));
    await until(() => h.fetches.get("steps") === 1);
    await h.settle("steps");
    await until(() => other.getCurrentResult().data === 1);
    const before = other.getCurrentResult().dataUpdatedAt;
    cleanup.push(catchUp(h.client, { queryKey: ["task"] }, Date.now() + 1));
    await until(() => h.fetches.get("steps") === 2);
    expect(other.getCurrentResult().dataUpdatedAt).toBe(before);
  });
});
