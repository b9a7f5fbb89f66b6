import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { connectLive, HIDDEN_POLL_MS, pollInterval, REOPEN_HIDDEN_MS, type EventSourceLike, type LiveState } from "../../components/live/live-stream.ts";

// Background tabs: a run page left in a background tab, opened there, or whose stream was
// cut, converges without anyone clicking or focusing it — cheaply (at most every 30 s while hidden).

/** An EventSource the test drives: `open()`, `fail(closed)` (closed = the browser gave up, an HTTP error), `message()`. */
class FakeSource implements EventSourceLike {
  readyState = 0;
  onopen: ((ev: Event) => void) | null = null;
  onerror: ((ev: Event) => void) | null = null;
  onmessage: ((ev: MessageEvent) => void) | null = null;
  close() {
    this.readyState = 2;
  }
  open() {
    this.readyState = 1;
    this.onopen?.(new Event("open"));
  }
  fail(closed: boolean) {
    this.readyState = closed ? 2 : 0;
    this.onerror?.(new Event("error"));
  }
  message() {
    this.onmessage?.(new MessageEvent("message"));
  }
}

/** A page whose visibility the test sets. */
function page(hidden: boolean) {
  const listeners = new Set<() => void>();
  return {
    isHidden: hidden,
    hidden() {
      return this.isHidden;
    },
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(next: boolean) {
      this.isHidden = next;
      for (const l of listeners) l();
    },
  };
}

let stops: (() => void)[] = [];
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  for (const s of stops) s();
  stops = [];
  vi.useRealTimers();
});

/** A real QueryClient with one observed task query whose fetches are counted, and a live stream over fake sources. */
async function harness(hidden: boolean) {
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  let fetches = 0;
  const observer = new QueryObserver(client, { queryKey: ["task", "get"], queryFn: () => Promise.resolve(++fetches) });
  stops.push(observer.subscribe(() => {}));
  const sources: FakeSource[] = [];
  const states: LiveState[] = [];
  const visibility = page(hidden);
  stops.push(
    connectLive({
      url: "/api/live?taskId=t1",
      queryClient: client,
      filter: { queryKey: ["task"] },
      onState: (s) => states.push(s),
      open: () => {
        const s = new FakeSource();
        sources.push(s);
        return s;
      },
      visibility,
    }),
  );
  await vi.advanceTimersByTimeAsync(10);
  return { fetches: () => fetches, sources, states, visibility, latest: () => sources.at(-1)! };
}

describe("the live stream in a background tab", () => {
  it("a hidden page keeps its stream: an event refetches at once, without focus", async () => {
    const h = await harness(true);
    h.latest().open();
    await vi.advanceTimersByTimeAsync(10);
    const before = h.fetches();
    h.latest().message();
    await vi.advanceTimersByTimeAsync(10);
    expect(h.fetches()).toBe(before + 1);
    expect(h.sources).toHaveLength(1);
  });

  it("a stream the browser gave up on while hidden is opened again after 30 s, and its open catches up", async () => {
    const h = await harness(true);
    h.latest().open();
    await vi.advanceTimersByTimeAsync(10);
    h.latest().fail(true);
    expect(h.states.at(-1)).toBe("polling");
    await vi.advanceTimersByTimeAsync(REOPEN_HIDDEN_MS - 100);
    expect(h.sources).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(h.sources).toHaveLength(2);
    const before = h.fetches();
    h.latest().open();
    await vi.advanceTimersByTimeAsync(10);
    expect(h.states.at(-1)).toBe("live");
    expect(h.fetches()).toBe(before + 1);
  });

  it("the moment a page is shown, a stream the browser gave up on is opened again (not 30 s later)", async () => {
    const h = await harness(true);
    h.latest().fail(true);
    expect(h.sources).toHaveLength(1);
    h.visibility.set(false);
    expect(h.sources).toHaveLength(2);
    // No second reopen from the timer that was pending.
    await vi.advanceTimersByTimeAsync(REOPEN_HIDDEN_MS + 1_000);
    expect(h.sources).toHaveLength(2);
  });

  it("a dropped connection the browser retries itself is left to the browser", async () => {
    const h = await harness(false);
    h.latest().open();
    h.latest().fail(false);
    h.visibility.set(true);
    h.visibility.set(false);
    await vi.advanceTimersByTimeAsync(REOPEN_HIDDEN_MS + 1_000);
    expect(h.sources).toHaveLength(1);
  });
});

/** A live stream over `client`'s task queries from one fake source, on a visible page, settled (the observer's first fetch answered). */
async function liveOver(client: QueryClient): Promise<FakeSource> {
  const source = new FakeSource();
  stops.push(
    connectLive({
      url: "/api/live?taskId=t1",
      queryClient: client,
      filter: { queryKey: ["task"] },
      onState: () => {},
      open: () => source,
      visibility: page(false),
    }),
  );
  await vi.advanceTimersByTimeAsync(400);
  return source;
}

describe("the live stream with a slow server", () => {
  it("events faster than a fetch do not cancel it: the page gets answers, one fetch at a time, and the last one reads the end", async () => {
    // The server's state moves on with every event; a fetch answers what it was 300 ms after it started.
    const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
    let serverVersion = 0;
    let started = 0;
    let inFlight = 0;
    let mostInFlight = 0;
    const observer = new QueryObserver(client, {
      queryKey: ["task", "steps"],
      queryFn: async ({ signal }) => {
        started++;
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        try {
          await new Promise<void>((resolve, reject) => {
            const timer = setTimeout(resolve, 300);
            signal.addEventListener("abort", () => {
              clearTimeout(timer);
              reject(new Error("aborted"));
            });
          });
          return serverVersion;
        } finally {
          inFlight--;
        }
      },
    });
    const seen: number[] = [];
    stops.push(observer.subscribe((r) => r.data !== undefined && seen.push(r.data)));
    const source = await liveOver(client);
    source.open();
    // Twenty events, one every 100 ms: a busy run, and each fetch takes three times as long.
    for (let i = 0; i < 20; i++) {
      serverVersion++;
      source.message();
      await vi.advanceTimersByTimeAsync(100);
    }
    await vi.advanceTimersByTimeAsync(2_000);
    expect(mostInFlight, "fetches at once").toBe(1);
    // Answers came while the events went on (not only after they stopped) …
    expect(seen.filter((v) => v > 0 && v < 20).length).toBeGreaterThanOrEqual(3);
    // … and the last answer is the server's last state.
    expect(observer.getCurrentResult().data).toBe(20);
    // About one fetch per 300 ms of events, not one per event.
    expect(started).toBeLessThan(15);
  });
});

describe("an event during a fetch the stream did not start", () => {
  it("is answered by a fetch that starts after it: the one in flight is joined, then one more", async () => {
    const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
    let serverVersion = 0;
    const observer = new QueryObserver(client, {
      queryKey: ["task", "steps"],
      queryFn: async () => {
        const answer = serverVersion; // what the server had when the request reached it
        await new Promise((r) => setTimeout(r, 300));
        return answer;
      },
    });
    stops.push(observer.subscribe(() => {}));
    const source = await liveOver(client);
    // A poll starts; the run then writes its last step and the event arrives while the poll is out.
    void observer.refetch();
    await vi.advanceTimersByTimeAsync(50);
    serverVersion = 1;
    source.message();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(observer.getCurrentResult().data).toBe(1);
  });
});

describe("pollInterval", () => {
  it("polls as asked while visible, at most every 30 s while hidden, never when asked not to", () => {
    expect(pollInterval(5_000, false)).toBe(5_000);
    expect(pollInterval(5_000, true)).toBe(HIDDEN_POLL_MS);
    expect(pollInterval(2_000, true)).toBe(HIDDEN_POLL_MS);
    expect(pollInterval(60_000, true)).toBe(60_000);
    expect(pollInterval(false, true)).toBe(false);
  });
});
