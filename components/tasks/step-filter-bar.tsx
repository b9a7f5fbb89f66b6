"use client";

import { useEffect, useState } from "react";
import { cn } from "@/components/ui/cn.ts";
import { TextInput } from "@/components/ui/field.tsx";
import { Select } from "@/components/ui/select.tsx";
import { STEP_KINDS, isFiltering, type StepFilter } from "./step-filter.ts";

const EMPTY: StepFilter = { kinds: [], tool: null, failed: false, retried: false, dedup: false, text: "" };

function Toggle({ on, onClick, children, title }: { on: boolean; onClick: () => void; children: React.ReactNode; title?: string }) {
  return (
    <button
      type="button"
      aria-pressed={on}
      title={title}
      onClick={onClick}
      className={cn(
        "rounded-full border px-2.5 py-0.5 text-xs",
        on ? "border-zinc-900 bg-zinc-900 text-white" : "border-zinc-300 text-zinc-700 hover:bg-zinc-100",
      )}
    >
      {children}
    </button>
  );
}

/**
 * The timeline's filter and search bar: kind chips, a tool, failed / retried / deduplicated, and a
 * text search in arguments and output (on the server, 300 ms after typing stops); says how many
 * steps match and that j/k moves through them.
 */
export function StepFilterBar({
  filter,
  onChange,
  tools,
  matchCount,
  total,
  searching,
  searchError,
  earlier,
  moreComing,
  waterfall,
  onWaterfall,
  onCollapseAll,
}: {
  filter: StepFilter;
  onChange: (f: StepFilter) => void;
  tools: string[];
  matchCount: number | null;
  total: number;
  searching: boolean;
  searchError: string | null;
  /** Steps of the task before the first listed one (the list holds the newest steps); 0 when all are listed. */
  earlier: number;
  /** Only the newest steps are in yet; the longer list is loading. */
  moreComing: boolean;
  waterfall: boolean;
  onWaterfall: (on: boolean) => void;
  onCollapseAll: (collapse: boolean) => void;
}) {
  const [text, setText] = useState(filter.text);
  useEffect(() => setText(filter.text), [filter.text]);
  useEffect(() => {
    if (text.trim() === filter.text) return;
    const t = setTimeout(() => onChange({ ...filter, text: text.trim() }), 300);
    return () => clearTimeout(t);
  }, [text, filter, onChange]);
  const set = (patch: Partial<StepFilter>) => onChange({ ...filter, ...patch });
  return (
    <div className="space-y-2 border-b border-zinc-200 bg-zinc-50 px-4 py-2 text-xs text-zinc-600" role="search" aria-label="Filter steps">
      <div className="flex flex-wrap items-center gap-2">
        <TextInput
          type="search"
          aria-label="Search steps"
          placeholder="Search arguments and output…"
          value={text}
          onChange={(e) => setText(e.target.value)}
          className="w-56 py-1"
        />
        {STEP_KINDS.map((k) => (
          <Toggle
            key={k}
            on={filter.kinds.includes(k)}
            onClick={() => set({ kinds: filter.kinds.includes(k) ? filter.kinds.filter((x) => x !== k) : [...filter.kinds, k] })}
          >
            {k}
          </Toggle>
        ))}
        <Select
          aria-label="Tool"
          value={filter.tool ?? ""}
          onChange={(e) => set({ tool: e.target.value || null })}
          placeholder="any tool"
          options={tools.map((t) => [t, t] as const)}
          className="px-1.5 py-0.5 text-xs"
        />
        <Toggle on={filter.failed} onClick={() => set({ failed: !filter.failed })}>
          failed
        </Toggle>
        <Toggle on={filter.retried} onClick={() => set({ retried: !filter.retried })} title="Steps that took more than one attempt">
          retried
        </Toggle>
        <Toggle on={filter.dedup} onClick={() => set({ dedup: !filter.dedup })} title="Repeats of a committed side effect that got the recorded result">
          deduplicated
        </Toggle>
        {isFiltering(filter) && (
          <button type="button" className="underline hover:text-zinc-900" onClick={() => onChange(EMPTY)}>
            Clear
          </button>
        )}
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <span data-testid="match-count" aria-live="polite">
          {matchCount === null ? `${total} steps` : searching ? "Searching…" : `${matchCount} of ${total} steps match`}
          {moreComing
            ? " (the newest; loading earlier ones…)"
            : earlier > 0
              ? ` (the newest; ${earlier.toLocaleString("en-US")} earlier step${earlier === 1 ? " is" : "s are"} not listed — search covers them)`
              : ""}
        </span>
        {searchError && <span className="text-red-700">Search failed: {searchError}</span>}
        <span>
          <kbd className="rounded border bg-white px-1">j</kbd>/<kbd className="rounded border bg-white px-1">k</kbd>{" "}
          {matchCount === null ? "move" : "move through the matches"}
        </span>
        <span className="ml-auto flex items-center gap-3">
          <button type="button" className="underline hover:text-zinc-900" onClick={() => onCollapseAll(true)}>
            Collapse segments
          </button>
          <button type="button" className="underline hover:text-zinc-900" onClick={() => onCollapseAll(false)}>
            Expand
          </button>
          <label className="flex items-center gap-1">
            <input type="checkbox" checked={waterfall} onChange={(e) => onWaterfall(e.target.checked)} /> Waterfall
          </label>
        </span>
      </div>
    </div>
  );
}
