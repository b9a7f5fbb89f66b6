"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { AlertTriangle, Bot, CheckCircle2, ChevronDown, ChevronRight, Flag, Loader2, User, Wrench, XCircle } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { cn } from "@/components/ui/cn.ts";
import { factCountLabel } from "./fact-value.tsx";
import { compactNumber, durationMs, usd } from "./format.ts";
import { isDeduplicated, type FilterableStep, type TimelineItem } from "./step-filter.ts";

export interface TimelineStep extends FilterableStep {
  error: string | null;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  durationMs: number | null;
}

/** A run as the timeline labels it. */
export interface TimelineRun {
  id: string;
  number: number;
  cause: string;
  status: string;
  fromCheckpointSeq: number | null;
}

const ROW_HEIGHT = 44;

function KindIcon({ kind }: { kind: string }) {
  const Icon = kind === "model" ? Bot : kind === "tool" ? Wrench : kind === "human" ? User : Flag;
  return <Icon aria-label={kind} className="h-4 w-4 shrink-0 text-zinc-500" />;
}

function StatusIcon({ status, retrying }: { status: string; retrying: boolean }) {
  if (status === "running")
    return retrying ? (
      <AlertTriangle aria-label="retrying" className="h-4 w-4 text-amber-600" />
    ) : (
      <Loader2 aria-label="running" className="h-4 w-4 animate-spin text-blue-600 motion-reduce:animate-none" />
    );
  if (status === "failed") return <XCircle aria-label="failed" className="h-4 w-4 text-red-600" />;
  return <CheckCircle2 aria-label="completed" className="h-4 w-4 text-emerald-600" />;
}

/** Working-set changes of one step, for its mark on the timeline ("+2 facts"). */
export interface StepFactCounts {
  added: number;
  changed: number;
  removed: number;
}

export function causeLabel(run: Pick<TimelineRun, "cause" | "fromCheckpointSeq">): string {
  const cause = run.cause.replace("_", " ");
  return run.fromCheckpointSeq !== null ? `${cause} from checkpoint #${run.fromCheckpointSeq}` : cause === "initial" ? "initial" : cause;
}

/**
 * The step timeline: fixed-height virtual rows (a 5,000-step run renders ~30 rows at a time) built
 * by `timelineItems` — run headers, collapsible segment headers (checkpoint to checkpoint), steps in
 * execution order. "Follow live" keeps the newest row in view until the user scrolls up; it turns
 * back on at the bottom. Steps that changed the working set carry a mark from `factMarks`.
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
  const parentRef = useRef<HTMLDivElement>(null);
  const [follow, setFollow] = useState(true);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => parentRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    getItemKey: (i) => items[i]?.key ?? i,
  });

  useEffect(() => {
    if (follow && items.length > 0 && !selectedKey) virtualizer.scrollToIndex(items.length - 1, { align: "end" });
  }, [items.length, follow, selectedKey, virtualizer]);

  useEffect(() => {
    if (!selectedKey) return;
    const i = items.findIndex((it) => it.type === "step" && it.key === selectedKey);
    if (i >= 0) virtualizer.scrollToIndex(i, { align: "auto" });
  }, [selectedKey, items, virtualizer]);

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
      <div
        ref={parentRef}
        className="min-h-32 flex-1 overflow-auto"
        role="list"
        aria-label="Steps"
        data-testid="timeline"
        onScroll={(e) => {
          const el = e.currentTarget;
          const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < ROW_HEIGHT;
          if (!atBottom && follow) setFollow(false);
          if (atBottom && !follow) setFollow(true);
        }}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
          {virtualizer.getVirtualItems().map((v) => {
            const item = items[v.index]!;
            const style = { top: v.start, height: ROW_HEIGHT };
            if (item.type === "run") {
              const run = runs.get(item.runId);
              return (
                <div
                  key={item.key}
                  className="absolute left-0 flex w-full items-center gap-2 border-b border-zinc-200 bg-zinc-100 px-4 text-xs font-semibold text-zinc-700"
                  style={style}
                  data-testid="run-header"
                >
                  Run {run?.number ?? "?"} · {run ? causeLabel(run) : ""} · {run?.status.replace("_", " ")}
                </div>
              );
            }
            if (item.type === "segment") {
              const seg = item.segment;
              return (
                <button
                  key={item.key}
                  type="button"
                  aria-expanded={!item.collapsed}
                  data-testid="segment-header"
                  data-segment={seg.key}
                  onClick={() => onToggleSegment(seg.key)}
                  className="absolute left-0 flex w-full items-center gap-2 border-b border-zinc-200 bg-zinc-50 px-3 text-left text-xs text-zinc-600 hover:bg-zinc-100"
                  style={style}
                >
                  {item.collapsed ? <ChevronRight aria-hidden className="h-4 w-4" /> : <ChevronDown aria-hidden className="h-4 w-4" />}
                  <span className="font-medium text-zinc-800">Segment {seg.n}</span>
                  <span>{seg.fromReason ? `from checkpoint (${seg.fromReason.replace("_", " ")})` : "from the run's start"}</span>
                  <span>· {item.shown === seg.steps.length ? `${seg.steps.length} steps` : `${item.shown} of ${seg.steps.length} steps`}</span>
                  {seg.failed > 0 && <span className="rounded bg-red-50 px-1.5 text-red-800">{seg.failed} failed</span>}
                  {seg.retried > 0 && <span className="rounded bg-amber-50 px-1.5 text-amber-900">{seg.retried} retried</span>}
                  <span className="ml-auto tabular-nums">{usd(seg.costUsd)}</span>
                </button>
              );
            }
            if (item.type === "fold") {
              const f = item.fold;
              const cost = f.steps.reduce((sum, x) => sum + x.costUsd, 0);
              const ms = f.steps.reduce((sum, x) => sum + (x.durationMs ?? 0), 0);
              const failed = f.steps.filter((x) => x.status === "failed").length;
              return (
                <button
                  key={item.key}
                  type="button"
                  aria-expanded={item.expanded}
                  data-testid="repeat-fold"
                  data-fold={f.key}
                  onClick={() => onToggleFold?.(f.key)}
                  title={`${f.times} consecutive turns made the same call${f.tools.length > 1 ? "s" : ""} with the same arguments (steps ${f.steps[0]!.stepId} … ${f.steps.at(-1)!.stepId})`}
                  className="absolute left-0 flex w-full items-center gap-3 border-b border-amber-100 bg-amber-50/60 px-4 text-left text-sm hover:bg-amber-50"
                  style={style}
                >
                  <span className="w-10 shrink-0 text-right font-mono text-xs text-zinc-400 tabular-nums">{f.positions[0]}</span>
                  {item.expanded ? (
                    <ChevronDown aria-hidden className="h-4 w-4 text-amber-700" />
                  ) : (
                    <ChevronRight aria-hidden className="h-4 w-4 text-amber-700" />
                  )}
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
            const s = item.step;
            const key = item.key;
            const selected = key === selectedKey;
            const tokens = s.promptTokens + s.completionTokens;
            const facts = factMarks?.get(key);
            return (
              <button
                key={key}
                type="button"
                role="listitem"
                data-step-id={s.stepId}
                data-run-id={s.runId}
                data-status={s.status}
                data-kind={s.kind}
                aria-current={selected ? "true" : undefined}
                onClick={() => onSelect(key)}
                className={cn(
                  "absolute left-0 flex w-full items-center gap-3 border-b border-zinc-100 px-4 text-left text-sm hover:bg-zinc-50",
                  item.inFold && "border-l-4 border-l-amber-200",
                  selected && "bg-blue-50 hover:bg-blue-50",
                )}
                style={style}
              >
                <span className="w-10 shrink-0 text-right font-mono text-xs text-zinc-400 tabular-nums">{item.position}</span>
                <KindIcon kind={s.kind} />
                <StatusIcon status={s.status} retrying={s.status === "running" && !!s.error} />
                <span className="w-24 shrink-0 truncate font-mono text-xs text-zinc-500" title={s.stepId}>
                  {s.stepId}
                </span>
                <span className={cn("min-w-0 flex-1 truncate", s.status === "failed" && "text-red-800")} title={s.summary}>
                  {s.summary || s.tool || s.kind}
                </span>
                {s.tool?.includes("__") && (
                  <span className="shrink-0 rounded bg-violet-100 px-1.5 text-xs text-violet-900" data-testid="mcp-server" title="A tool of this MCP server">
                    MCP · {s.tool.slice(0, s.tool.indexOf("__"))}
                  </span>
                )}
                {isDeduplicated(s) && (
                  <span
                    className="shrink-0 rounded bg-sky-100 px-1.5 text-xs text-sky-900"
                    title="A repeat of a committed side effect: the original result was returned and nothing was sent again"
                  >
                    deduplicated
                  </span>
                )}
                {facts && (
                  <span
                    className={cn(
                      "shrink-0 rounded px-1.5 text-xs",
                      facts.removed ? "bg-red-50 text-red-800" : facts.changed ? "bg-amber-50 text-amber-900" : "bg-emerald-50 text-emerald-800",
                    )}
                    data-testid="fact-mark"
                    title="Working-set changes this step caused (details in the Step and Working set tabs)"
                  >
                    {factCountLabel(facts)}
                  </span>
                )}
                {s.attempts > 1 && <span className="shrink-0 rounded bg-amber-100 px-1.5 text-xs text-amber-900">{s.attempts} attempts</span>}
                {tokens > 0 && <span className="w-14 shrink-0 text-right text-xs text-zinc-500 tabular-nums">{compactNumber(tokens)} tok</span>}
                {s.costUsd > 0 && <span className="w-14 shrink-0 text-right text-xs text-zinc-500 tabular-nums">{usd(s.costUsd)}</span>}
                <span className="w-16 shrink-0 text-right text-xs text-zinc-500 tabular-nums">{durationMs(s.durationMs)}</span>
              </button>
            );
          })}
        </div>
      </div>
    </>
  );
}
