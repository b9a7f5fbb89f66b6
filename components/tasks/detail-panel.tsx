"use client";

import type { inferRouterOutputs } from "@trpc/server";
import { cn } from "@/components/ui/cn.ts";
import type { AppRouter } from "@/server/api/root.ts";
import { CheckpointsPanel } from "./checkpoints-panel.tsx";
import { StepDetail } from "./detail/step-detail.tsx";
import { Artifacts, Outbox, Result } from "./detail/task-outputs.tsx";
import type { ForkPoint } from "./detail/fork-button.tsx";
import { WorkingSetPanel } from "./working-set-panel.tsx";

type TaskDetail = inferRouterOutputs<AppRouter>["task"]["get"];

export type PanelTab = "step" | "facts" | "checkpoints" | "artifacts" | "outbox" | "result";

export type { ForkPoint } from "./detail/fork-button.tsx";

/**
 * The tab an arrow key moves to in a tablist (WAI-ARIA APG tabs pattern: Left/Right wrap around,
 * Home/End go to the ends), or null for any other key.
 */
export function tabKeyTarget<T>(ids: readonly T[], current: T, key: string): T | null {
  const i = ids.indexOf(current);
  const n = ids.length;
  if (n === 0) return null;
  if (key === "ArrowRight") return ids[(i + 1) % n] ?? null;
  if (key === "ArrowLeft") return ids[(i - 1 + n) % n] ?? null;
  if (key === "Home") return ids[0] ?? null;
  if (key === "End") return ids[n - 1] ?? null;
  return null;
}

/**
 * The right-hand panel of the run page: the selected step (with the working-set changes it caused),
 * the working set (current facts and their step-by-step history, filtered by `keyFilter`),
 * checkpoints, artifacts, outbox, result. `factsNow` is the size of the current working set (the
 * tab's count; the task's fact rows until it is known).
 */
export function DetailPanel({
  task,
  selectedKey,
  tab,
  onTab,
  onSelectStep,
  keyFilter,
  onKeyFilter,
  factsNow,
  forkFrom,
  liveStepKey,
  onFollow,
}: {
  task: TaskDetail;
  selectedKey: string | null;
  tab: PanelTab;
  onTab: (tab: PanelTab) => void;
  onSelectStep: (key: string) => void;
  keyFilter: string;
  onKeyFilter: (prefix: string) => void;
  factsNow: number | undefined;
  /** The checkpoint at or before the selected step (Fork beside the step); null when none. */
  forkFrom: ForkPoint | null;
  /**
   * While the run is live (running or queued): the key of its latest step ("" before its first), which
   * the Step tab shows — following the run — until the user picks a step; undefined otherwise.
   */
  liveStepKey?: string;
  /** Back to following the live step (clears the picked one). */
  onFollow: () => void;
}) {
  const following = liveStepKey !== undefined && !selectedKey;
  const tabs: { id: PanelTab; label: string }[] = [
    { id: "step", label: "Step" },
    { id: "facts", label: `Working set (${factsNow ?? task.facts.length})` },
    { id: "checkpoints", label: `Checkpoints (${task.checkpointCount})` },
    { id: "artifacts", label: `Artifacts (${task.artifacts.length})` },
    { id: "outbox", label: `Outbox (${task.outbox.length})` },
    { id: "result", label: "Result" },
  ];
  return (
    <>
      {/* The tabs wrap onto a second line rather than scroll sideways, so every tab shows at 800 px and up. */}
      <div
        role="tablist"
        aria-label="Details"
        className="flex shrink-0 flex-wrap gap-1 border-b border-zinc-200 px-3 pt-2"
        onKeyDown={(e) => {
          const next = tabKeyTarget(
            tabs.map((t) => t.id),
            tab,
            e.key,
          );
          if (!next) return;
          e.preventDefault();
          onTab(next);
          e.currentTarget.querySelector<HTMLElement>(`[data-tab="${next}"]`)?.focus();
        }}
      >
        {tabs.map((t) => (
          <button
            key={t.id}
            role="tab"
            type="button"
            data-tab={t.id}
            aria-selected={tab === t.id}
            tabIndex={tab === t.id ? 0 : -1}
            onClick={() => onTab(t.id)}
            className={cn(
              "rounded-t-md px-3 py-2 text-sm whitespace-nowrap",
              tab === t.id ? "border border-b-white border-zinc-200 bg-white font-medium text-zinc-900" : "text-zinc-600 hover:text-zinc-900",
            )}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" className="min-h-0 flex-1 overflow-auto p-4">
        {tab === "step" && (
          <StepDetail
            taskId={task.id}
            createdBy={task.createdBy}
            selectedKey={following ? liveStepKey || null : selectedKey}
            onShowWorkingSet={() => onTab("facts")}
            forkFrom={forkFrom}
            follow={liveStepKey !== undefined ? { following, onFollow } : undefined}
          />
        )}
        {tab === "facts" && (
          <WorkingSetPanel taskId={task.id} keyFilter={keyFilter} onKeyFilter={onKeyFilter} selectedKey={selectedKey} onSelectStep={onSelectStep} />
        )}
        {tab === "checkpoints" && <CheckpointsPanel taskId={task.id} createdBy={task.createdBy} status={task.status} onSelectStep={onSelectStep} />}
        {tab === "artifacts" && <Artifacts task={task} />}
        {tab === "outbox" && <Outbox task={task} />}
        {tab === "result" && <Result task={task} />}
      </div>
    </>
  );
}
