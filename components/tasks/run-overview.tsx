"use client";

import { useMemo } from "react";
import { durationMs } from "./format.ts";
import type { Segment } from "./step-filter.ts";
import type { TimelineStep } from "./timeline.tsx";

/** One column of the overview: the share of its time some step was running, and what happened in it. */
export interface OverviewBin {
  /** 0–1: time covered by steps within the bin (overlaps counted once per step, capped at 1). */
  busy: number;
  failed: boolean;
  retried: boolean;
  /** The first step that starts in the bin (for a click), else null. */
  firstKey: string | null;
}

export interface RunOverviewData {
  t0: number;
  t1: number;
  bins: OverviewBin[];
  /** Segment starts as fractions 0–1 of the span, with their labels ("run 1 · 2"). */
  marks: { at: number; label: string; key: string }[];
}

/**
 * The whole time of `segments` (timeline order) cut into `binCount` equal columns: how busy each
 * one was, whether a step in it failed or was retried, and where each segment starts. Waits
 * (humans, sleeps, retry backoffs, queueing) are the empty columns. O(steps + bins); pure.
 */
export function runOverviewData<T extends TimelineStep>(segments: Segment<T>[], binCount: number, now: number): RunOverviewData | null {
  const first = segments[0]?.steps[0];
  if (!first) return null;
  const t0 = first.startedAt.getTime();
  let t1 = t0;
  const endOf = (s: T) => s.endedAt?.getTime() ?? (s.durationMs !== null ? s.startedAt.getTime() + s.durationMs : now);
  for (const g of segments) for (const s of g.steps) t1 = Math.max(t1, endOf(s));
  const span = Math.max(1, t1 - t0);
  const width = span / binCount;
  const bins: OverviewBin[] = Array.from({ length: binCount }, () => ({ busy: 0, failed: false, retried: false, firstKey: null }));
  const binAt = (t: number) => Math.min(binCount - 1, Math.max(0, Math.floor((t - t0) / width)));
  const marks: RunOverviewData["marks"] = [];
  for (const g of segments) {
    const start = g.steps[0];
    if (start) marks.push({ at: (start.startedAt.getTime() - t0) / span, label: String(g.n), key: g.key });
    for (const s of g.steps) {
      const a = s.startedAt.getTime();
      const b = Math.max(a, endOf(s));
      const i0 = binAt(a);
      const i1 = binAt(b);
      const head = bins[i0]!;
      head.firstKey ??= `${s.runId}:${s.stepId}`;
      for (let i = i0; i <= i1; i++) {
        const lo = Math.max(a, t0 + i * width);
        const hi = Math.min(b, t0 + (i + 1) * width);
        const bin = bins[i]!;
        bin.busy = Math.min(1, bin.busy + Math.max(0, hi - lo) / width);
        if (s.status === "failed") bin.failed = true;
        if (s.attempts > 1) bin.retried = true;
      }
    }
  }
  return { t0, t1, bins, marks };
}

/**
 * An overview strip of the whole run's time above the waterfall (which shows one window of at most
 * 400 steps): a column per slice of time (height = how busy, red = a failure, amber = a retry, empty
 * = waiting), segment starts as ticks, and the waterfall's window as a blue frame. Clicking a
 * column opens the first step that starts there (the waterfall window follows the selection).
 */
export function RunOverview({
  segments,
  window: win,
  onSelect,
}: {
  segments: Segment<TimelineStep>[];
  window: { from: Date; to: Date } | null;
  onSelect: (key: string) => void;
}) {
  const BINS = 240;
  const data = useMemo(() => runOverviewData(segments, BINS, Date.now()), [segments]);
  if (!data) return null;
  const span = Math.max(1, data.t1 - data.t0);
  const winFrom = win ? Math.max(0, (win.from.getTime() - data.t0) / span) : null;
  const winTo = win ? Math.min(1, (win.to.getTime() - data.t0) / span) : null;
  const pick = (i: number) => {
    for (let k = i; k < data.bins.length; k++) {
      const key = data.bins[k]!.firstKey;
      if (key) return onSelect(key);
    }
    for (let k = i - 1; k >= 0; k--) {
      const key = data.bins[k]!.firstKey;
      if (key) return onSelect(key);
    }
  };
  return (
    <div className="flex items-center gap-3 border-b border-zinc-100 bg-white px-4 py-1 text-xs text-zinc-600" data-testid="run-overview">
      <span className="shrink-0" title={`${segments.length} segment${segments.length === 1 ? "" : "s"}; ticks mark where each starts`}>
        Whole time {durationMs(data.t1 - data.t0)} · {segments.length} seg.
      </span>
      <svg
        viewBox={`0 0 ${BINS} 28`}
        preserveAspectRatio="none"
        className="block h-5 min-w-0 flex-1 cursor-pointer"
        role="img"
        aria-label="Overview of the whole run's time: busy columns, failures in red, retries in amber, the waterfall's window framed"
        onClick={(e) => {
          const r = e.currentTarget.getBoundingClientRect();
          pick(Math.floor(((e.clientX - r.left) / Math.max(1, r.width)) * BINS));
        }}
      >
        <rect x={0} y={0} width={BINS} height={28} fill="#fafafa" />
        {data.bins.map((b, i) =>
          b.busy > 0 ? (
            <rect
              key={i}
              x={i}
              width={1}
              y={26 - Math.max(2, b.busy * 22)}
              height={Math.max(2, b.busy * 22)}
              fill={b.failed ? "#dc2626" : b.retried ? "#d97706" : "#71717a"}
            />
          ) : null,
        )}
        {data.marks.map((m) => (
          <line key={m.key} x1={m.at * BINS} x2={m.at * BINS} y1={0} y2={28} stroke="#7c3aed" strokeWidth={0.4} vectorEffect="non-scaling-stroke" />
        ))}
        {winFrom !== null && winTo !== null && (
          <rect
            x={winFrom * BINS}
            y={0.5}
            width={Math.max(0.8, (winTo - winFrom) * BINS)}
            height={27}
            fill="#1d4ed8"
            fillOpacity={0.08}
            stroke="#1d4ed8"
            strokeWidth={1.5}
            vectorEffect="non-scaling-stroke"
            data-testid="overview-window-frame"
          />
        )}
      </svg>
      {winFrom !== null && winTo !== null && (
        <span className="shrink-0 tabular-nums" data-testid="overview-window" title="The part of the whole time the waterfall below shows">
          window {Math.round(winFrom * 100)}–{Math.round(winTo * 100)} %
        </span>
      )}
    </div>
  );
}
