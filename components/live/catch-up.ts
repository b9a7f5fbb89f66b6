import type { QueryClient, QueryFilters } from "@tanstack/react-query";

/**
 * Brings the queries `filter` matches up to date with a change stream that has just opened (or
 * re-opened) at `openedAt` (ms since the epoch): events written before the stream was subscribed
 * never arrive, so whatever was read before then may be stale for good on a page where nothing else
 * changes (a run waiting on a human). A query read before `openedAt` is invalidated now; one in
 * flight (its snapshot may predate the subscription — the run page's preloaded step list) is
 * invalidated once it lands, not cancelled, so the first paint still uses it. Queries read after
 * `openedAt` are left alone: the stream covers them. Returns a function that stops waiting on the
 * in-flight ones.
 */
export function catchUp(queryClient: QueryClient, filter: QueryFilters, openedAt: number): () => void {
  const cache = queryClient.getQueryCache();
  const waiting = new Set<string>();
  const refetch = (queryKey: readonly unknown[]) => void queryClient.invalidateQueries({ queryKey, exact: true });
  for (const q of cache.findAll(filter)) {
    if (q.state.fetchStatus === "fetching") waiting.add(q.queryHash);
    else if (q.state.dataUpdatedAt > 0 && q.state.dataUpdatedAt < openedAt) refetch(q.queryKey);
  }
  if (waiting.size === 0) return () => {};
  const unsubscribe = cache.subscribe((event) => {
    if (event.type !== "updated" || !waiting.has(event.query.queryHash)) return;
    const action = event.action.type;
    if (action !== "success" && action !== "error") return;
    waiting.delete(event.query.queryHash);
    refetch(event.query.queryKey);
    if (waiting.size === 0) unsubscribe();
  });
  return unsubscribe;
}
