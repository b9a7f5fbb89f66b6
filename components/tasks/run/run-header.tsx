"use client";

import { TaskCostPanel } from "@/components/costs/task-cost-panel.tsx";
import { LivePill, type LiveState } from "@/components/live/use-live-updates.tsx";
import { StatusBadge } from "@/components/ui/status-badge.tsx";
import type { TimelineStep } from "../timeline.tsx";
import { StatusLine } from "@/components/ui/use-action-status.tsx";
import { RunActions, useRunActions } from "./run-actions.tsx";
import { AlertsLine, EscalationBanners } from "./run-banners.tsx";
import { SmokeReport } from "./smoke-report.tsx";
import type { RunInfo } from "./run-derive.ts";
import { RunMeters } from "./run-meters.tsx";
import { RunGoal, RunStatus } from "./run-status.tsx";
import { TaskForks } from "../task-forks.tsx";
import { TaskOrigin } from "../task-origin.tsx";
import type { RunTask } from "./use-run-queries.ts";
import { SafeText } from "@/components/ui/safe-text.tsx";

/** True for the offline scripted models (their prices are notional). */
export const isOfflineModel = (model: string) => model === "scripted" || model.startsWith("scripted-");

/**
 * The run page's header: status, live pill, id, profile and model, the actions; where the task came
 * from (its template or eval cell) and its fork links both ways; open escalations
 * and alerts; how the latest run started and why the task is where it is; the goal; the meters and
 * the cost panel.
 */
export function RunHeader({
  task: t,
  live,
  runs,
  lastStep,
  onRefetch,
  onSelectStep,
}: {
  task: RunTask;
  live: LiveState;
  runs: ReadonlyMap<string, RunInfo>;
  lastStep: TimelineStep | undefined;
  onRefetch: () => void;
  onSelectStep: (key: string) => void;
}) {
  const actions = useRunActions(t.id, onRefetch);
  const offline = isOfflineModel(t.profile.model);
  return (
    <header className="border-b border-zinc-200 bg-white px-4 py-5 lg:px-8">
      <div className="flex flex-wrap items-center gap-3">
        <StatusBadge status={t.status} className="text-sm" />
        <LivePill state={live} />
        <span className="font-mono text-xs break-all text-zinc-500">{t.id}</span>
        <span className="text-xs text-zinc-500 [overflow-wrap:anywhere]">
          <span
            data-testid="task-profile-version"
            title={
              t.profile.currentVersion > t.profile.version
                ? `the profile is at v${t.profile.currentVersion} now; this task keeps v${t.profile.version}`
                : undefined
            }
          >
            profile <SafeText text={t.profile.name} /> v{t.profile.version}
          </span>{" "}
          · {offline ? "offline scripted model" : t.profile.model}
        </span>
        <span className="ml-auto" />
        <RunActions task={t} a={actions} />
      </div>
      <TaskOrigin origin={t.origin} />
      <TaskForks forkedFrom={t.forkedFrom} forks={t.forks} />
      <EscalationBanners task={t} />
      <AlertsLine task={t} onSelectStep={onSelectStep} />
      <StatusLine line={actions.line} className="mt-2 text-red-800" testId="run-action" />
      <RunStatus task={t} runs={runs} lastStep={lastStep} />
      <RunGoal goal={t.goal} />
      {t.smoke && <SmokeReport smoke={t.smoke} onSelectStep={onSelectStep} />}
      <RunMeters task={t} lastStep={lastStep} offline={offline} />
      <TaskCostPanel taskId={t.id} header={t.usage} />
    </header>
  );
}
