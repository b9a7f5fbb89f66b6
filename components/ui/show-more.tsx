"use client";

/**
 * The footer of a paged list: "Showing 200 of 1,234 facts · show 200 more", shown while the server
 * has more pages (TanStack Query's `hasNextPage`), disabled while the next page loads. `page` is the
 * list's page size; `noun` the plural of what it lists.
 */
export function ShowMore({
  shown,
  total,
  page,
  noun,
  query,
}: {
  shown: number;
  total: number;
  page: number;
  noun: string;
  query: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => Promise<unknown> };
}) {
  if (!query.hasNextPage) return null;
  return (
    <button
      type="button"
      className="mt-1 text-xs font-medium text-zinc-700 underline"
      disabled={query.isFetchingNextPage}
      onClick={() => void query.fetchNextPage()}
    >
      Showing {shown.toLocaleString("en-US")} of {total.toLocaleString("en-US")} {noun} · show{" "}
      {Math.max(0, Math.min(page, total - shown)).toLocaleString("en-US")} more
    </button>
  );
}
