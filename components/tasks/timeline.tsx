"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { AlertTriangle, Bot, CheckCircle2, Loader2, User, Wrench, XCircle, Flag } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { cn } from "@/components/ui/cn.ts";
import { factCountLabel } from "./fact-value.tsx";
import { compactNumber, durationMs } from "./format.ts";

export interface TimelineStep {
  runId: string;
  stepId: string;
  index: number;
  kind: string;
  tool: string | null;
  status: string;
  summary: string;
  error: string | null;
  attempts: number;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  startedAt: Date;
  endedAt: Date | null;
  durationMs: number | null;
}

const ROW_HEIGHT = 44;

function KindIcon({ kind }: { kind: string }) {
  const Icon = kind === "model" ? Bot : kind === "tool" ? Wrench : kind === "human" ? User : Flag;
  return <Icon aria-label={kind} className="h-4 w-4 shrink-0 text-zinc-500" />;
}

function StatusIcon({ status, retrying }: { status: string; retrying: boolean }) {
  if (status === "running")
    return retrying ? <AlertTriangle aria-label="retrying" className="h-4 w-4 text-amber-600" /> : <Loader2 aria-label="running" className="h-4 w-4 animate-spin text-blue-600" />;
  if (status === "failed") return <XCircle aria-label="failed" className="h-4 w-4 text-red-600" />;
  return <CheckCircle2 aria-label="completed" className="h-4 w-4 text-emerald-600" />;
}

/** Working-set changes of one step, for its mark on the timeline ("+2 facts"). */
export interface StepFactCounts {
  added: number;
  changed: number;
  removed: number;
}

/**
 * The step timeline: fixed-height virtual rows (a 5,000-step run renders ~30 rows at a time), one
 * per durable step, in execution order. "Follow live" keeps the newest step in view until the user
 * scrolls up; it turns back on when they return to the bottom. Steps that changed the working set
 * carry a mark from `factMarks` (keyed `<runId>:<stepId>`).
 */
export function Timeline({
  steps,
  loading,
  selectedKey,
  onSelect,
  emptyMessage,
  factMarks,
}: {
  steps: TimelineStep[];
  loading: boolean;
  selectedKey: string | null;
  onSelect: (key: string) => void;
  emptyMessage: string;
  factMarks?: Map<string, StepFactCounts>;
}) {
  const parentRef = useRef<HTMLDivElement>(null);
  const [follow, setFollow] = useState(true);
  const virtualizer = useVirtualizer({ count: steps.length, getScrollElement: () => parentRef.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });

  useEffect(() => {
    if (follow && steps.length > 0 && !selectedKey) virtualizer.scrollToIndex(steps.length - 1, { align: "end" });
  }, [steps.length, follow, selectedKey, virtualizer]);

  useEffect(() => {
    if (!selectedKey) return;
    const i = steps.findIndex((s) => `${s.runId}:${s.stepId}` === selectedKey);
    if (i >= 0) virtualizer.scrollToIndex(i, { align: "auto" });
  }, [selectedKey, steps, virtualizer]);

  if (loading) {
    return (
      <div className="space-y-2 p-4" aria-busy="true">
        {Array.from({ length: 8 }, (_, i) => (
          <div key={i} className="h-9 animate-pulse rounded bg-zinc-200/60" />
        ))}
      </div>
    );
  }
  if (steps.length === 0) return <p className="p-8 text-sm text-zinc-500">{emptyMessage}</p>;

  return (
    <>
      <div className="flex items-center justify-between border-b border-zinc-200 bg-zinc-50 px-4 py-2 text-xs text-zinc-600">
        <span>
          {steps.length} timeline entries ({steps.filter((s) => s.kind === "model" || s.kind === "tool").length} model and tool steps) · <kbd className="rounded border px-1">j</kbd>/<kbd className="rounded border px-1">k</kbd> to move
        </span>
        <label className="flex items-center gap-1.5">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> Follow live
        </label>
      </div>
      <div
        ref={parentRef}
        className="min-h-0 flex-1 overflow-auto"
        role="list"
        aria-label="Steps"
        onScroll={(e) => {
          const el = e.currentTarget;
          const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < ROW_HEIGHT;
          if (!atBottom && follow) setFollow(false);
          if (atBottom && !follow) setFollow(true);
        }}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
          {virtualizer.getVirtualItems().map((item) => {
            const s = steps[item.index]!;
            const key = `${s.runId}:${s.stepId}`;
            const selected = key === selectedKey;
            const tokens = s.promptTokens + s.completionTokens;
            const facts = factMarks?.get(key);
            return (
              <button
                key={key}
                type="button"
                role="listitem"
                data-step-id={s.stepId}
                data-status={s.status}
                aria-current={selected ? "true" : undefined}
                onClick={() => onSelect(key)}
                className={cn(
                  "absolute left-0 flex w-full items-center gap-3 border-b border-zinc-100 px-4 text-left text-sm hover:bg-zinc-50",
                  selected && "bg-blue-50 hover:bg-blue-50",
                )}
                style={{ top: item.start, height: ROW_HEIGHT }}
              >
                <span className="w-10 shrink-0 text-right font-mono text-xs text-zinc-400 tabular-nums">{item.index + 1}</span>
                <KindIcon kind={s.kind} />
                <StatusIcon status={s.status} retrying={s.status === "running" && !!s.error} />
                <span className="w-24 shrink-0 font-mono text-xs text-zinc-500">{s.stepId}</span>
                <span className={cn("min-w-0 flex-1 truncate", s.status === "failed" && "text-red-800")}>{s.summary || s.tool || s.kind}</span>
                {s.summary.includes("· deduplicated") && <span className="shrink-0 rounded bg-sky-100 px-1.5 text-xs text-sky-900" title="A repeat of a committed side effect: the original result was returned and nothing was sent again">deduplicated</span>}
                {facts && (
                  <span
                    className={cn("shrink-0 rounded px-1.5 text-xs", facts.removed ? "bg-red-50 text-red-800" : facts.changed ? "bg-amber-50 text-amber-900" : "bg-emerald-50 text-emerald-800")}
                    data-testid="fact-mark"
                    title="Working-set changes this step caused (details in the Step and Working set tabs)"
                  >
                    {factCountLabel(facts)}
                  </span>
                )}
                {s.attempts > 1 && <span className="shrink-0 rounded bg-amber-100 px-1.5 text-xs text-amber-900">{s.attempts} attempts</span>}
                {tokens > 0 && <span className="w-16 shrink-0 text-right text-xs text-zinc-500 tabular-nums">{compactNumber(tokens)} tok</span>}
                <span className="w-16 shrink-0 text-right text-xs text-zinc-500 tabular-nums">{durationMs(s.durationMs)}</span>
              </button>
            );
          })}
        </div>
      </div>
    </>
  );
}
