import type { QueryClient, QueryFilters } from "@tanstack/react-query";
import { catchUp } from "./catch-up.ts";

/** The state the Live pill shows: the stream is opening, open, or down (queries poll). */
export type LiveState = "connecting" | "live" | "polling";

/** After the stream opens, when to catch up once more (ms): longer than a page's first queries take to be served. */
export const SECOND_LOOK_MS = 2_000;
/** A stream the browser gave up on (an HTTP error, not a dropped connection) is opened again after this long while the page is visible (ms)… */
export const REOPEN_VISIBLE_MS = 5_000;
/** …and after this long while it is hidden (ms): cheap, and the page still converges in the background. */
export const REOPEN_HIDDEN_MS = 30_000;
/** How often queries poll at most while the page is hidden (ms), whatever the stream's state. */
export const HIDDEN_POLL_MS = 30_000;

/** What connectLive needs of the browser's EventSource (readyState 2 = CLOSED: the browser will not reconnect by itself). */
export interface EventSourceLike {
  readyState: number;
  onopen: ((ev: Event) => void) | null;
  onerror: ((ev: Event) => void) | null;
  onmessage: ((ev: MessageEvent) => void) | null;
  close(): void;
}

/** What connectLive needs of the page: whether it is hidden, and a way to hear when that changes. */
export interface PageVisibility {
  hidden(): boolean;
  /** Calls `listener` on every visibility change; returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
}

const CLOSED = 2;

/**
 * Keeps the queries `filter` matches up to date with the change stream at `url` (`/api/live`, SSE over
 * PostgreSQL LISTEN/NOTIFY): every event invalidates them — one refetch at a time, the events that
 * come during it answered by one more after it, never by cancelling it — and every (re)open catches up on what was
 * read before it (catch-up.ts), once at once and once more SECOND_LOOK_MS later — the step list the run
 * page preloads while its scripts load is read from the browser's preload cache when its query first
 * runs, so a snapshot served after the stream opened can predate it too.
 *
 * A hidden page keeps its stream: the server sends events and a 15 s keep-alive whatever the page's
 * visibility, and the browser delivers them to a background tab, so a page left in the background
 * converges while hidden. What the browser does not do is reconnect a stream that ended with an HTTP
 * error (a 502 while the web process restarts, a 401): it closes it for good. Such a stream is opened
 * again after REOPEN_VISIBLE_MS (REOPEN_HIDDEN_MS while hidden), and at once when the page becomes
 * visible — whose open catches up. `open` makes the EventSource (the browser's, or a test's);
 * `onState` hears "live" on open and "polling" on error. Returns the function that closes it all.
 */
export function connectLive({
  url,
  queryClient,
  filter,
  onState,
  open,
  visibility,
}: {
  url: string;
  queryClient: QueryClient;
  filter: QueryFilters;
  onState: (state: LiveState) => void;
  open: (url: string) => EventSourceLike;
  visibility: PageVisibility;
}): () => void {
  let source: EventSourceLike;
  let stopCatchUp = () => {};
  let secondLook: ReturnType<typeof setTimeout> | undefined;
  let reopen: ReturnType<typeof setTimeout> | undefined;
  // Events come as fast as a run writes (several a second); a refetch takes longer than that on a busy
  // server. Invalidating with TanStack Query's default (cancelRefetch: true) cancelled the fetch in
  // flight at every event and started another, which the next event cancelled again: the page never
  // got an answer while the run went on. So one fetch at a time: an event during a fetch only asks
  // for one more after it, which reads everything that happened meanwhile.
  let refreshing = false;
  let again = false;
  const refresh = () => {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = true;
    // A fetch already in flight (a poll, a mount) is joined, not restarted; it started before this
    // event, so its answer may predate it: one more round after it.
    const joined = queryClient.isFetching(filter) > 0;
    void queryClient
      .invalidateQueries(filter, { cancelRefetch: false })
      .catch(() => undefined)
      .finally(() => {
        refreshing = false;
        if (again || joined) {
          again = false;
          refresh();
        }
      });
  };
  const lookNow = () => {
    stopCatchUp();
    stopCatchUp = catchUp(queryClient, filter, Date.now());
  };
  const connect = () => {
    clearTimeout(reopen);
    reopen = undefined;
    source = open(url);
    source.onopen = () => {
      onState("live");
      lookNow();
      clearTimeout(secondLook);
      secondLook = setTimeout(lookNow, SECOND_LOOK_MS);
    };
    source.onerror = () => {
      onState("polling");
      if (source.readyState === CLOSED && reopen === undefined) reopen = setTimeout(connect, visibility.hidden() ? REOPEN_HIDDEN_MS : REOPEN_VISIBLE_MS);
    };
    source.onmessage = refresh;
  };
  connect();
  const unsubscribe = visibility.subscribe(() => {
    if (!visibility.hidden() && source.readyState === CLOSED) {
      source.close();
      connect();
    }
  });
  return () => {
    unsubscribe();
    source.close();
    clearTimeout(secondLook);
    clearTimeout(reopen);
    stopCatchUp();
  };
}

/**
 * A query's polling interval (ms, or false for none) as it should be now: `ms` while the page is
 * visible, at most every HIDDEN_POLL_MS while it is hidden. Use it as a `refetchInterval` function
 * with `refetchIntervalInBackground: true`, so a background tab keeps converging — slowly — even with
 * the stream down, and TanStack Query's own refetch on `visibilitychange` brings it up to date the
 * moment it is shown.
 */
export function pollInterval(ms: number | false, hidden: boolean = typeof document !== "undefined" && document.hidden): number | false {
  if (ms === false || !hidden) return ms;
  return Math.max(ms, HIDDEN_POLL_MS);
}
