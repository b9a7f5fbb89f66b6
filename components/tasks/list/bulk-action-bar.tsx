"use client";

import dynamic from "next/dynamic";
import { useEffect, useState } from "react";
import type { BatchRequest } from "./batch-dialog.tsx";
import type { TaskSelection } from "./use-task-selection.ts";

/**
 * The batch dialog and its dialog library (Radix, ~50 kB of script) load when a batch action is
 * first asked for, not with the list: every script the list page loads runs before its first rows
 * can be painted. It is fetched as soon as the bar shows (a task ticked, a filter set), so the
 * first click does not wait for it.
 */
const loadBatchDialog = () => import("./batch-dialog.tsx");
const BatchDialog = dynamic(() => loadBatchDialog().then((m) => m.BatchDialog), { ssr: false });

const button = "rounded-md border border-zinc-300 bg-white px-3 py-1 text-sm font-medium text-zinc-800 hover:bg-zinc-50 disabled:opacity-50";

/**
 * The bar above the task list when tasks are ticked, or a filter is set: how many are chosen, "Select
 * all N matching" (every task the filter matches, resolved by the server), Resume / Cancel (each opens
 * the batch dialog with its preview) and Clear. `filter` is the list's filter without paging.
 */
export function BulkActionBar({
  selection,
  filter,
  total,
  filtered,
}: {
  selection: TaskSelection;
  filter: Record<string, unknown>;
  total: number;
  filtered: boolean;
}) {
  const [request, setRequest] = useState<BatchRequest | null>(null);
  const count = selection.allMatching ? total : selection.ids.size;
  const shown = count > 0 || filtered;
  useEffect(() => {
    if (shown) void loadBatchDialog();
  }, [shown]);
  if (!shown) return null;
  const chosen = selection.allMatching ? { filter } : { taskIds: [...selection.ids] };
  const open = (action: "resume" | "cancel") => setRequest({ action, selection: chosen, count });
  return (
    <div
      className="mb-3 flex flex-wrap items-center gap-2 rounded-md border border-zinc-200 bg-zinc-50 px-3 py-2 text-sm"
      role="region"
      aria-label="Batch actions"
      data-testid="bulk-bar"
    >
      <span className="text-zinc-700" data-testid="bulk-count">
        {count === 0 ? "No task selected" : selection.allMatching ? `All ${total.toLocaleString("en-US")} matching tasks selected` : `${count} selected`}
      </span>
      {filtered && !selection.allMatching && total > 0 && (
        <button type="button" className="font-medium text-sky-800 underline" onClick={() => selection.setAllMatching(true)}>
          Select all {total.toLocaleString("en-US")} matching
        </button>
      )}
      <span className="grow" />
      <button type="button" className={button} disabled={count === 0} onClick={() => open("resume")}>
        Resume…
      </button>
      <button type="button" className={button} disabled={count === 0} onClick={() => open("cancel")}>
        Cancel tasks…
      </button>
      {count > 0 && (
        <button type="button" className="px-2 text-sm text-zinc-600 underline" onClick={selection.clear}>
          Clear selection
        </button>
      )}
      {request && <BatchDialog request={request} onClose={() => setRequest(null)} onStarted={selection.clear} />}
    </div>
  );
}
