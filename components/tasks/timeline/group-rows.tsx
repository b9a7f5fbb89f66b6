import { ChevronDown, ChevronRight } from "lucide-react";
import type React from "react";
import { durationMs, usd } from "../format.ts";
import type { TimelineItem } from "../step-filter.ts";
import { causeLabel, type TimelineRun, type TimelineStep } from "./types.ts";

type SegmentItem = Extract<TimelineItem<TimelineStep>, { type: "segment" }>;
type FoldItem = Extract<TimelineItem<TimelineStep>, { type: "fold" }>;

/** A run's header row: "Run 2 · resume from checkpoint #3 · completed". */
export function RunRow({ run, style }: { run: TimelineRun | undefined; style: React.CSSProperties }) {
  return (
    <div
      className="absolute left-0 flex w-full items-center gap-2 border-b border-zinc-200 bg-zinc-100 px-4 text-xs font-semibold text-zinc-700"
      style={style}
      data-testid="run-header"
    >
      Run {run?.number ?? "?"} · {run ? causeLabel(run) : ""} · {run?.status.replace("_", " ")}
    </div>
  );
}

/** A segment's header row (checkpoint to checkpoint), a button that folds or unfolds its steps. */
export function SegmentRow({ item, style, onToggle }: { item: SegmentItem; style: React.CSSProperties; onToggle: (segmentKey: string) => void }) {
  const seg = item.segment;
  return (
    <button
      type="button"
      aria-expanded={!item.collapsed}
      data-testid="segment-header"
      data-segment={seg.key}
      onClick={() => onToggle(seg.key)}
      className="absolute left-0 flex w-full items-center gap-2 border-b border-zinc-200 bg-zinc-50 px-3 text-left text-xs text-zinc-600 hover:bg-zinc-100"
      style={style}
    >
      {item.collapsed ? <ChevronRight aria-hidden className="h-4 w-4" /> : <ChevronDown aria-hidden className="h-4 w-4" />}
      <span className="font-medium text-zinc-800">Segment {seg.n}</span>
      <span>{seg.fromReason ? `from checkpoint (${seg.fromReason.replace("_", " ")})` : "from the run's start"}</span>
      <span>
        · {item.shown === seg.steps.length ? `${seg.steps.length} steps` : `${item.shown} of ${seg.steps.length} steps`}
        {seg.partial ? " listed (its earlier steps are not)" : ""}
      </span>
      {seg.failed > 0 && <span className="rounded bg-red-50 px-1.5 text-red-800">{seg.failed} failed</span>}
      {seg.retried > 0 && <span className="rounded bg-amber-50 px-1.5 text-amber-900">{seg.retried} retried</span>}
      <span className="ml-auto tabular-nums">{usd(seg.costUsd)}</span>
    </button>
  );
}

/** A run of identical repeats folded to one "×N" row, a button that expands it to its steps. */
export function FoldRow({ item, style, onToggle }: { item: FoldItem; style: React.CSSProperties; onToggle?: (foldKey: string) => void }) {
  const f = item.fold;
  const cost = f.steps.reduce((sum, x) => sum + x.costUsd, 0);
  const ms = f.steps.reduce((sum, x) => sum + (x.durationMs ?? 0), 0);
  const failed = f.steps.filter((x) => x.status === "failed").length;
  return (
    <button
      type="button"
      aria-expanded={item.expanded}
      data-testid="repeat-fold"
      data-fold={f.key}
      onClick={() => onToggle?.(f.key)}
      title={`${f.times} consecutive turns made the same call${f.tools.length > 1 ? "s" : ""} with the same arguments (steps ${f.steps[0]!.stepId} … ${f.steps.at(-1)!.stepId})`}
      className="absolute left-0 flex w-full items-center gap-3 border-b border-amber-100 bg-amber-50/60 px-4 text-left text-sm hover:bg-amber-50"
      style={style}
    >
      <span className="w-10 shrink-0 text-right font-mono text-xs text-zinc-400 tabular-nums">{f.positions[0]}</span>
      {item.expanded ? <ChevronDown aria-hidden className="h-4 w-4 text-amber-700" /> : <ChevronRight aria-hidden className="h-4 w-4 text-amber-700" />}
      <span className="shrink-0 rounded bg-amber-200 px-1.5 text-xs font-semibold text-amber-950">×{f.times}</span>
      <span className="min-w-0 flex-1 truncate text-amber-950">
        {f.summary}
        <span className="ml-2 text-xs text-amber-800">
          identical repeats · {f.steps.length} steps ({f.steps[0]!.stepId} … {f.steps.at(-1)!.stepId})
        </span>
      </span>
      {failed > 0 && <span className="shrink-0 rounded bg-red-50 px-1.5 text-xs text-red-800">{failed} failed</span>}
      {cost > 0 && <span className="w-14 shrink-0 text-right text-xs text-zinc-500 tabular-nums">{usd(cost)}</span>}
      <span className="w-16 shrink-0 text-right text-xs text-zinc-500 tabular-nums">{durationMs(ms)}</span>
    </button>
  );
}
