"use client";

import { CurrentFacts } from "./current-facts.tsx";
import { WorkingSetError, WorkingSetFilterBar } from "./filter-bar.tsx";
import { WorkingSetHistory } from "./history-list.tsx";
import { useKeyFilterDraft } from "./use-key-filter-draft.ts";
import { useWorkingSet } from "./use-working-set.ts";

/**
 * The Working set tab of the run page: the working set the latest run works with (each fact with
 * the step that set it) and, as its history, every change across all runs grouped by the step that
 * caused it — +added, ~changed (before → after), −removed — with the run it belongs to. Filter by
 * key prefix (kept in the URL as `keys`); both lists are paged by the server (200 a page). A step id
 * selects that step on the timeline.
 */
export function WorkingSetPanel({
  taskId,
  keyFilter,
  onKeyFilter,
  selectedKey,
  onSelectStep,
}: {
  taskId: string;
  keyFilter: string;
  onKeyFilter: (prefix: string) => void;
  selectedKey: string | null;
  onSelectStep: (key: string) => void;
}) {
  const { draft, setDraft, apply } = useKeyFilterDraft(keyFilter, onKeyFilter);
  const ws = useWorkingSet(taskId, keyFilter);
  return (
    <div className="space-y-4 text-sm" data-testid="working-set-panel">
      <WorkingSetFilterBar draft={draft} setDraft={setDraft} apply={apply} keyFilter={keyFilter} ws={ws} />
      <WorkingSetError ws={ws} />
      <CurrentFacts ws={ws} keyFilter={keyFilter} selectedKey={selectedKey} onSelectStep={onSelectStep} />
      <WorkingSetHistory ws={ws} keyFilter={keyFilter} selectedKey={selectedKey} onSelectStep={onSelectStep} />
    </div>
  );
}
