import type { WorkingSetState } from "./use-working-set.ts";

/** The key-prefix filter box (Enter applies, Escape clears) and the totals line ("12 facts now · 30 changes"). */
export function WorkingSetFilterBar({
  draft,
  setDraft,
  apply,
  keyFilter,
  ws,
}: {
  draft: string;
  setDraft: (text: string) => void;
  apply: (prefix: string) => void;
  keyFilter: string;
  ws: WorkingSetState;
}) {
  const { history, current, totalFacts, totalChanges } = ws;
  return (
    <div className="flex flex-wrap items-center gap-2">
      <label htmlFor="ws-filter" className="text-xs font-medium text-zinc-700">
        Filter by key
      </label>
      <input
        id="ws-filter"
        type="search"
        placeholder="key prefix, e.g. license:"
        className="w-56 rounded border border-zinc-300 px-2 py-1 font-mono text-xs"
        value={draft}
        maxLength={200}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") apply(draft);
          if (e.key === "Escape") {
            setDraft("");
            apply("");
          }
        }}
      />
      <span className="text-xs text-zinc-500" aria-live="polite">
        {history.data && current.data
          ? `${totalFacts.toLocaleString("en-US")} fact${totalFacts === 1 ? "" : "s"} now · ${totalChanges.toLocaleString("en-US")} change${totalChanges === 1 ? "" : "s"}${keyFilter ? ` for keys starting “${keyFilter}”` : ""}`
          : ""}
        {(history.isFetching || current.isFetching) && history.data ? " · updating" : ""}
      </span>
    </div>
  );
}

/** The load error of either list, with Retry (refetches both). */
export function WorkingSetError({ ws }: { ws: WorkingSetState }) {
  if (!ws.error) return null;
  return (
    <p role="alert" className="rounded border border-red-200 bg-red-50 px-3 py-2 text-red-800">
      Could not load the working set: {ws.error.message}{" "}
      <button
        type="button"
        className="underline"
        onClick={() => {
          void ws.history.refetch();
          void ws.current.refetch();
        }}
      >
        Retry
      </button>
    </p>
  );
}
