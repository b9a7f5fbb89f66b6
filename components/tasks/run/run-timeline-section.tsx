"use client";

import dynamic from "next/dynamic";
import { useHydrated } from "@/components/ui/use-hydrated.ts";
import { RunOverview } from "../run-overview.tsx";
import { RunSwitcher } from "../run-switcher.tsx";
import { StepFilterBar } from "../step-filter-bar.tsx";
import { Timeline } from "../timeline.tsx";
import type { RunParams } from "./use-run-params.ts";
import type { TimelineModel } from "./use-timeline-model.ts";

// The waterfall (recharts) loads after the first rows: it is not needed to read the timeline.
const Waterfall = dynamic(() => import("../waterfall.tsx").then((m) => m.Waterfall), {
  ssr: false,
  loading: () => <div className="h-24 border-b border-zinc-200" aria-hidden />,
});

/**
 * The left half of the run page: run switcher, step filter, overview strip and waterfall of the
 * segment in view, and the virtual timeline. It renders as soon as the steps are in, before the
 * task's header (panel-only skeletons).
 */
export function RunTimelineSection({
  m,
  params,
  loading,
  moreComing,
  status,
}: {
  m: TimelineModel;
  params: RunParams;
  loading: boolean;
  /** Only the newest steps are in yet (use-run-queries.ts FIRST_STEPS). */
  moreComing: boolean;
  /** The task's status when known (says why a queued task has no steps). */
  status: string | undefined;
}) {
  const { filter, selectedKey, showWaterfall, setParams } = params;
  // The overview reads the clock (a running run's time so far): drawn in the browser only.
  const hydrated = useHydrated();
  const select = (key: string) => setParams({ step: key, tab: "step" });
  const shownRun = m.runId ? m.runs.get(m.runId) : undefined;
  const w = m.waterfall;
  return (
    <section
      aria-label="Timeline"
      className="flex min-w-0 flex-col border-zinc-200 max-lg:h-[75vh] max-lg:border-b lg:flex-1 lg:border-r"
      data-testid="timeline-section"
    >
      <RunSwitcher runs={[...m.runs.values()]} value={m.runId} onChange={(id) => setParams({ run: id })} />
      <StepFilterBar
        filter={filter}
        onChange={(next) => setParams({ filter: next })}
        tools={[...new Set(m.rows.map((s) => s.tool).filter((x): x is string => !!x))].sort()}
        matchCount={m.matchCount}
        total={m.runId ? m.rows.filter((s) => s.runId === m.runId).length : m.rows.length}
        searching={!!filter.text && m.textSearch.isFetching}
        searchError={m.textSearch.isError ? m.textSearch.error.message : null}
        earlier={m.before}
        moreComing={moreComing}
        waterfall={showWaterfall}
        onWaterfall={(on) => setParams({ wf: on })}
        onCollapseAll={m.collapseAll}
      />
      {showWaterfall && w && hydrated && (
        <RunOverview segments={m.segmentsInView} window={w.from && w.to ? { from: w.from, to: w.to } : null} onSelect={select} />
      )}
      {showWaterfall && w && <Waterfall steps={w.steps} title={w.title} selectedKey={selectedKey} onSelect={select} />}
      <Timeline
        items={m.items}
        runs={m.runs}
        loading={loading}
        selectedKey={selectedKey}
        onSelect={select}
        onToggleSegment={m.toggleSegment}
        onToggleFold={m.toggleFold}
        emptyMessage={
          m.filtering
            ? "No step matches this filter."
            : shownRun
              ? `No steps in run ${shownRun.number} yet.`
              : status === "queued"
                ? "No steps yet: the run is queued for the executor."
                : "No steps yet."
        }
        factMarks={m.factMarks}
      />
    </section>
  );
}
