"use client";

import { useCallback, useMemo } from "react";
import { DetailPanel } from "./detail-panel.tsx";
import { RunHeader } from "./run/run-header.tsx";
import { RunTimelineSection } from "./run/run-timeline-section.tsx";
import { useRunParams } from "./run/use-run-params.ts";
import { useRunQueries } from "./run/use-run-queries.ts";
import { useStepKeys } from "./run/use-step-keys.ts";
import { useTimelineModel } from "./run/use-timeline-model.ts";
import { LoadError } from "@/components/ui/load-error.tsx";

/** Task statuses during which the run takes new steps: the Step tab follows the latest one. */
const LIVE = new Set(["running", "queued"]);

/** The detail panel: beside the timeline from 1024 px, below it (full width) on narrower windows. */
const detailsClass = "w-full bg-white lg:w-[38%] lg:min-w-80 xl:min-w-96";
/** The page: one column that scrolls below 1024 px (the timeline, then the panel); two that fill the window from there. */
const pageClass = "flex min-w-0 flex-col lg:h-screen";
const columnsClass = "flex flex-col lg:min-h-0 lg:flex-1 lg:flex-row";

/**
 * The run page (/tasks/[id]): sticky header with status and reason, goal and meters; timeline of
 * steps on the left (virtualised); detail panel on the right. Selection and tab live in the URL
 * (`?step=<runId>:<stepId>&tab=…`), so a link opens the same view. State lives in the hooks of
 * ./run/ (URL state, server state, the timeline's model, j/k), the panels in their own files.
 */
export function RunPage({ taskId }: { taskId: string }) {
  const params = useRunParams();
  const q = useRunQueries(taskId);
  const m = useTimelineModel(taskId, q, params);
  const { setParams } = params;
  const selectStep = useCallback((key: string) => setParams({ step: key, tab: "step" }), [setParams]);
  const onKeyFilter = useCallback((keys: string) => setParams({ keys }), [setParams]);
  const stepKeys = useMemo(() => m.stepItems.map((s) => s.key), [m.stepItems]);
  useStepKeys(stepKeys, params.selectedKey, selectStep);
  const { task } = q;
  // A live run's Step tab follows its latest step until the user picks one (UI: "Follow live").
  const latest = m.rows.at(-1);
  const liveStepKey = task.data && LIVE.has(task.data.status) ? (latest ? `${latest.runId}:${latest.stepId}` : "") : undefined;

  if (task.isError) {
    return (
      <div className="p-8">
        {task.error.data?.code === "NOT_FOUND" ? (
          <div role="alert" className="rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
            No task {taskId}.{" "}
            <button className="font-medium underline" onClick={() => void task.refetch()}>
              Retry
            </button>
          </div>
        ) : (
          <LoadError what="the task" error={task.error} onRetry={() => void task.refetch()} className="" />
        )}
      </div>
    );
  }
  const timeline = <RunTimelineSection m={m} params={params} loading={q.steps.isPending} moreComing={q.moreComing} status={task.data?.status} />;
  if (!task.data) {
    return (
      <div className={pageClass}>
        <div className="space-y-3 border-b border-zinc-200 bg-white px-8 py-5" aria-busy="true">
          <div className="h-6 w-1/3 animate-pulse rounded bg-zinc-200" />
          <div className="h-16 animate-pulse rounded bg-zinc-200/70" />
        </div>
        <div className={columnsClass}>
          {timeline}
          <aside aria-label="Details" className={`${detailsClass} space-y-3 p-4`} aria-busy="true">
            <div className="h-40 animate-pulse rounded bg-zinc-200/60" />
          </aside>
        </div>
      </div>
    );
  }
  return (
    <div className={pageClass}>
      <RunHeader task={task.data} live={q.live} runs={m.runs} lastStep={m.rows.at(-1)} onRefetch={() => void task.refetch()} onSelectStep={selectStep} />
      <div className={columnsClass}>
        {timeline}
        <aside aria-label="Details" className={`flex flex-col ${detailsClass}`}>
          <DetailPanel
            task={task.data}
            selectedKey={params.selectedKey}
            tab={params.tab}
            onTab={(next) => setParams({ tab: next })}
            onSelectStep={selectStep}
            keyFilter={params.keyFilter}
            onKeyFilter={onKeyFilter}
            factsNow={q.factSummary.data?.currentSize}
            forkFrom={m.forkFrom}
            liveStepKey={liveStepKey}
            onFollow={() => setParams({ step: null, tab: "step" })}
          />
        </aside>
      </div>
    </div>
  );
}
