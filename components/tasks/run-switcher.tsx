"use client";

import { cn } from "@/components/ui/cn.ts";
import { durationMs } from "./format.ts";
import { exactTitle } from "@/components/ui/timestamp.tsx";
import { causeLabel, type TimelineRun } from "./timeline.tsx";
import { safeAttr } from "@/components/ui/safe-text.tsx";

/**
 * The run switcher above the timeline: "All runs" and one tab per run (initial, resume, auto resume,
 * fork) with its cause, the checkpoint it started from and its end; the chosen run goes in the URL
 * (`run=<id>`). Hidden for a task with a single run.
 */
export function RunSwitcher({
  runs,
  value,
  onChange,
}: {
  runs: (TimelineRun & { startedAt: Date; endedAt: Date | null; endReason: string | null; fromCheckpointReason: string | null; guidance: string | null })[];
  value: string | null;
  onChange: (runId: string | null) => void;
}) {
  if (runs.length < 2) return null;
  return (
    <div role="tablist" aria-label="Runs" className="flex gap-1 overflow-x-auto border-b border-zinc-200 bg-white px-3 pt-2" data-testid="run-switcher">
      <button
        type="button"
        role="tab"
        aria-selected={value === null}
        onClick={() => onChange(null)}
        className={cn(
          "shrink-0 rounded-t-md px-3 py-1.5 text-xs",
          value === null ? "border border-b-white border-zinc-200 font-medium text-zinc-900" : "text-zinc-600 hover:text-zinc-900",
        )}
      >
        All runs ({runs.length})
      </button>
      {runs.map((r) => {
        const took = r.endedAt ? durationMs(r.endedAt.getTime() - r.startedAt.getTime()) : "running";
        const title = [
          `Run ${r.number}: ${causeLabel(r)}${r.fromCheckpointReason ? ` (${r.fromCheckpointReason.replace("_", " ")})` : ""}`,
          `started ${exactTitle(r.startedAt)}`,
          r.endedAt
            ? `ended ${exactTitle(r.endedAt)} — ${r.status.replace("_", " ")}${r.endReason ? ` (${r.endReason.replace("_", " ")})` : ""}`
            : "still running",
          r.guidance ? `guidance: ${safeAttr(r.guidance)}` : "",
        ]
          .filter(Boolean)
          .join("\n");
        return (
          <button
            key={r.id}
            type="button"
            role="tab"
            aria-selected={value === r.id}
            data-run-id={r.id}
            title={title}
            onClick={() => onChange(r.id)}
            className={cn(
              "shrink-0 rounded-t-md px-3 py-1.5 text-left text-xs",
              value === r.id ? "border border-b-white border-zinc-200 font-medium text-zinc-900" : "text-zinc-600 hover:text-zinc-900",
            )}
          >
            Run {r.number} · {causeLabel(r)}
            <span className="block text-[11px] font-normal text-zinc-500">
              {r.status.replace("_", " ")}
              {r.endReason ? ` (${r.endReason.replace("_", " ")})` : ""} · {took}
            </span>
          </button>
        );
      })}
    </div>
  );
}
