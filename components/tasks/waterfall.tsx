"use client";

import { useEffect, useMemo, useRef } from "react";
import { Bar, BarChart, Cell, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { durationMs } from "./format.ts";
import type { TimelineStep } from "./timeline.tsx";

/** A waterfall axis tick in seconds, rounded (ticks like 12.3456789 s): one decimal under 10 s, whole seconds above. */
export function axisSeconds(seconds: number): string {
  return seconds < 10 ? String(Math.round(seconds * 10) / 10) : String(Math.round(seconds));
}

const BAR_ROW = 18;
/** Gaps shorter than this are not painted (scheduling noise between two steps). */
const GAP_MIN_MS = 250;

export interface WaterfallDatum {
  key: string;
  label: string;
  /** Seconds from the window's start to the previous step's end (transparent). */
  base: number;
  /** Seconds between the previous step's end and this step's start: a wait (human, sleep, retry backoff, queue). */
  gap: number;
  /** Seconds the step took (a running step: until now). */
  dur: number;
  gapMs: number;
  durMs: number;
  attempts: number;
  kind: string;
  status: string;
}

/**
 * Bars of step timing for `steps` (timeline order), relative to the first one's start: for each
 * step, the wait since the previous step ended (painted grey when ≥ 250 ms) and its own duration
 * (from its first attempt's start to its end, so retries' backoff is inside a retried step's bar and
 * marked by its attempt count). Pure.
 */
export function waterfallData(steps: TimelineStep[], now: number): WaterfallDatum[] {
  const t0 = steps[0]?.startedAt.getTime() ?? 0;
  let prevEnd = t0;
  return steps.map((s) => {
    const start = s.startedAt.getTime();
    const end = s.endedAt?.getTime() ?? (s.durationMs !== null ? start + s.durationMs : now);
    const gapMs = Math.max(0, start - prevEnd);
    const shownGap = gapMs >= GAP_MIN_MS ? gapMs : 0;
    const datum: WaterfallDatum = {
      key: `${s.runId}:${s.stepId}`,
      label: s.attempts > 1 ? `${s.stepId} ×${s.attempts}` : s.stepId,
      base: (Math.min(start, prevEnd) - t0) / 1000 + (gapMs - shownGap) / 1000,
      gap: shownGap / 1000,
      dur: Math.max(0, end - start) / 1000,
      gapMs,
      durMs: Math.max(0, end - start),
      attempts: s.attempts,
      kind: s.kind,
      status: s.status,
    };
    prevEnd = Math.max(prevEnd, end);
    return datum;
  });
}

function colour(d: WaterfallDatum, selected: boolean): string {
  if (selected) return "#1d4ed8";
  if (d.status === "failed") return "#dc2626";
  if (d.attempts > 1) return "#d97706";
  if (d.kind === "model") return "#52525b";
  if (d.kind === "checkpoint") return "#7c3aed";
  if (d.kind === "human") return "#0891b2";
  return "#a1a1aa";
}

function WaterfallTooltip({ active, payload }: { active?: boolean; payload?: { payload?: WaterfallDatum }[] }) {
  const d = payload?.[0]?.payload;
  if (!active || !d) return null;
  return (
    <div className="rounded border border-zinc-200 bg-white px-2 py-1 text-xs shadow">
      <div className="font-mono font-medium">{d.label}</div>
      <div>
        {d.kind} · {d.status} · {durationMs(d.durMs)}
        {d.attempts > 1 ? ` · ${d.attempts} attempts (backoff inside)` : ""}
      </div>
      {d.gapMs >= GAP_MIN_MS && <div className="text-zinc-600">waited {durationMs(d.gapMs)} before it (human decision, sleep, retry backoff or queue)</div>}
    </div>
  );
}

/**
 * The waterfall of step timing (recharts, horizontal stacked bars: offset, wait, duration) for one
 * window of steps, in step with the timeline: the selected step's bar is highlighted and scrolled
 * into view; clicking a bar selects that step.
 */
export function Waterfall({
  steps,
  selectedKey,
  onSelect,
  title,
}: {
  steps: TimelineStep[];
  selectedKey: string | null;
  onSelect: (key: string) => void;
  title: string;
}) {
  const data = useMemo(() => waterfallData(steps, Date.now()), [steps]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const selectedIndex = data.findIndex((d) => d.key === selectedKey);
  useEffect(() => {
    const el = scrollRef.current;
    if (!el || selectedIndex < 0) return;
    const y = selectedIndex * BAR_ROW;
    if (y < el.scrollTop || y > el.scrollTop + el.clientHeight - BAR_ROW * 2) el.scrollTop = Math.max(0, y - el.clientHeight / 2);
  }, [selectedIndex]);
  if (data.length === 0) return null;
  const height = data.length * BAR_ROW + 30;
  const total = data.at(-1) ? Math.max(...data.map((d) => d.base + d.gap + d.dur)) : 0;
  return (
    <figure className="flex min-h-0 shrink flex-col border-b border-zinc-200 bg-white" data-testid="waterfall" aria-label={`Waterfall: ${title}`}>
      <figcaption className="flex items-center justify-between px-4 pt-2 text-xs text-zinc-600">
        <span>
          Waterfall · {title} · {data.length} steps over {durationMs(Math.round(total * 1000))}
        </span>
        <span className="flex items-center gap-3">
          <span className="inline-flex items-center gap-1">
            <i className="inline-block h-2 w-3 bg-zinc-300" /> wait
          </span>
          <span className="inline-flex items-center gap-1">
            <i className="inline-block h-2 w-3 bg-amber-600" /> retried
          </span>
          <span className="inline-flex items-center gap-1">
            <i className="inline-block h-2 w-3 bg-red-600" /> failed
          </span>
        </span>
      </figcaption>
      <div ref={scrollRef} className="max-h-44 min-h-0 overflow-y-auto px-2">
        <ResponsiveContainer width="100%" height={height} minWidth={200}>
          <BarChart data={data} layout="vertical" margin={{ top: 4, right: 16, bottom: 4, left: 0 }} barCategoryGap={3}>
            <XAxis type="number" unit=" s" tick={{ fontSize: 10 }} orientation="top" domain={[0, "dataMax"]} tickFormatter={axisSeconds} />
            <YAxis type="category" dataKey="label" width={110} tick={{ fontSize: 10, fontFamily: "ui-monospace, monospace" }} interval={0} />
            <Tooltip content={<WaterfallTooltip />} isAnimationActive={false} cursor={{ fill: "#f4f4f5" }} />
            <Bar dataKey="base" stackId="t" fill="transparent" isAnimationActive={false} />
            <Bar dataKey="gap" stackId="t" fill="#d4d4d8" isAnimationActive={false} name="wait" />
            <Bar
              dataKey="dur"
              stackId="t"
              isAnimationActive={false}
              name="duration"
              onClick={(_, i) => {
                const d = data[i];
                if (d) onSelect(d.key);
              }}
              cursor="pointer"
            >
              {data.map((d) => (
                <Cell key={d.key} fill={colour(d, d.key === selectedKey)} data-testid="waterfall-bar" data-key={d.key} />
              ))}
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
