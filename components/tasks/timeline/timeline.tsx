"use client";

import type React from "react";
import type { TimelineItem } from "../step-filter.ts";
import { FoldRow, RunRow, SegmentRow } from "./group-rows.tsx";
import { StepRow } from "./step-row.tsx";
import { ROW_HEIGHT, type StepFactCounts, type TimelineRun, type TimelineStep } from "./types.ts";
import { useTimelineScroll } from "./use-timeline-scroll.ts";

/** Rows the server renders (the newest): enough to fill a tall window. */
const STATIC_ROWS = 40;

/**
 * The step timeline: fixed-height virtual rows (a 5,000-step run renders ~30 rows at a time) built
 * by `timelineItems` — run headers, collapsible segment headers (checkpoint to checkpoint), steps in
 * execution order. "Follow live" keeps the newest row in view until the user scrolls up; it turns
 * back on at the bottom. Steps that changed the working set carry a mark from `factMarks`. On the
 * server (and while the browser hydrates its HTML) it renders the newest {@link STATIC_ROWS} rows
 * in plain flow, bottom-aligned — where "Follow live" puts them — so the page's HTML already shows
 * the newest steps; the virtual list takes over from the next render.
 */
export function Timeline({
  items,
  runs,
  loading,
  selectedKey,
  onSelect,
  onToggleSegment,
  onToggleFold,
  emptyMessage,
  factMarks,
}: {
  items: TimelineItem<TimelineStep>[];
  runs: Map<string, TimelineRun>;
  loading: boolean;
  selectedKey: string | null;
  onSelect: (key: string) => void;
  onToggleSegment: (segmentKey: string) => void;
  /** Expands or folds a run of identical repeats (its `fold:…` key). */
  onToggleFold?: (foldKey: string) => void;
  emptyMessage: string;
  factMarks?: Map<string, StepFactCounts>;
}) {
  const { parentRef, virtualizer, follow, setFollow, onScroll, userScrollProps, hydrated } = useTimelineScroll({ items, selectedKey });
  const row = (item: TimelineItem<TimelineStep>, style: React.CSSProperties) => {
    if (item.type === "run") return <RunRow key={item.key} run={runs.get(item.runId)} style={style} />;
    if (item.type === "segment") return <SegmentRow key={item.key} item={item} style={style} onToggle={onToggleSegment} />;
    if (item.type === "fold") return <FoldRow key={item.key} item={item} style={style} onToggle={onToggleFold} />;
    return <StepRow key={item.key} item={item} selected={item.key === selectedKey} facts={factMarks?.get(item.key)} style={style} onSelect={onSelect} />;
  };

  if (loading) {
    return (
      <div className="space-y-2 p-4" aria-busy="true">
        {Array.from({ length: 8 }, (_, i) => (
          <div key={i} className="h-9 animate-pulse rounded bg-zinc-200/60" />
        ))}
      </div>
    );
  }
  if (items.length === 0) return <p className="p-8 text-sm text-zinc-500">{emptyMessage}</p>;

  return (
    <>
      <div className="flex items-center justify-end border-b border-zinc-100 px-4 py-1 text-xs text-zinc-600">
        <label className="flex items-center gap-1.5">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> Follow live
        </label>
      </div>
      {hydrated ? (
        <div
          ref={parentRef}
          className="min-h-32 flex-1 overflow-auto"
          role="list"
          aria-label="Steps"
          data-testid="timeline"
          data-interactive="true"
          onScroll={onScroll}
          {...userScrollProps}
        >
          <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
            {virtualizer.getVirtualItems().map((v) => row(items[v.index]!, { top: v.start, height: ROW_HEIGHT }))}
          </div>
        </div>
      ) : (
        <div className="flex min-h-32 flex-1 flex-col justify-end overflow-hidden" role="list" aria-label="Steps" data-testid="timeline">
          {items.slice(-STATIC_ROWS).map((item) => row(item, { position: "relative", height: ROW_HEIGHT, flexShrink: 0 }))}
        </div>
      )}
    </>
  );
}
