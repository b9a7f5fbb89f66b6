"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef } from "react";
import { LivePill, useLiveUpdates } from "@/components/live/use-live-updates.tsx";
import { useTRPC } from "@/components/trpc.tsx";
import { StatusBadge } from "@/components/ui/status-badge.tsx";
import { cn } from "@/components/ui/cn.ts";
import { TaskCostPanel } from "@/components/costs/task-cost-panel.tsx";
import { DetailPanel, type PanelTab } from "./detail-panel.tsx";
import { ago, compactNumber, durationMs, usd } from "./format.ts";
import { Timeline, type StepFactCounts, type TimelineStep } from "./timeline.tsx";

const TERMINAL = new Set(["completed", "dead_end", "failed", "cancelled"]);

function Meter({ label, value, detail, fraction }: { label: string; value: string; detail?: string; fraction?: number }) {
  return (
    <div className="min-w-32">
      <div className="text-xs uppercase tracking-wide text-zinc-500">{label}</div>
      <div className="text-lg font-semibold tabular-nums">{value}</div>
      {fraction !== undefined && (
        <div className="mt-1 h-1.5 w-full overflow-hidden rounded-full bg-zinc-200" role="meter" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(fraction * 100)}>
          <div className={cn("h-full rounded-full", fraction >= 0.9 ? "bg-red-500" : fraction >= 0.7 ? "bg-amber-500" : "bg-zinc-900")} style={{ width: `${Math.min(100, fraction * 100)}%` }} />
        </div>
      )}
      {detail && <div className="text-xs text-zinc-500">{detail}</div>}
    </div>
  );
}

/**
 * Live updates invalidate the `task` queries (components/live); the working-set queries follow them:
 * whenever the task or its steps come back with a new data object (a live change, or the polling
 * fallback), the `workingSet` queries are invalidated too.
 */
function useRefreshWorkingSetWith(task: unknown, steps: unknown) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const previous = useRef<{ task: unknown; steps: unknown } | null>(null);
  useEffect(() => {
    const before = previous.current;
    previous.current = { task, steps };
    const changed = (now: unknown, then: unknown) => now !== undefined && then !== undefined && now !== then;
    if (before && (changed(task, before.task) || changed(steps, before.steps))) void queryClient.invalidateQueries(trpc.workingSet.pathFilter());
  }, [task, steps, queryClient, trpc]);
}

/**
 * The run page (/tasks/[id]): sticky header with status and reason, goal and meters; timeline of
 * steps on the left (virtualised); detail panel on the right. Selection and tab live in the URL
 * (`?step=<runId>:<stepId>&tab=…`), so a link opens the same view.
 */
export function RunPage({ taskId }: { taskId: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const live = useLiveUpdates(taskId);
  const refetchInterval = live === "live" ? 30_000 : 5_000;
  const task = useQuery({ ...trpc.task.get.queryOptions({ taskId }), refetchInterval });
  const steps = useQuery({ ...trpc.task.steps.queryOptions({ taskId }), refetchInterval });
  const factSummary = useQuery({ ...trpc.workingSet.summary.queryOptions({ taskId }), refetchInterval });
  useRefreshWorkingSetWith(task.data, steps.data);
  const cancel = useMutation(trpc.task.cancel.mutationOptions({ onSuccess: () => void task.refetch() }));
  const requestCheckpoint = useMutation(trpc.task.requestCheckpoint.mutationOptions({ onSuccess: () => void task.refetch() }));
  const resume = useMutation(trpc.task.resume.mutationOptions({ onSuccess: () => void task.refetch() }));
  const escalateNow = useMutation(trpc.escalation.request.mutationOptions({ onSuccess: () => void task.refetch() }));

  const selectedKey = search.get("step");
  const tab = (search.get("tab") as PanelTab | null) ?? "step";
  const keyFilter = search.get("keys") ?? "";
  const setParams = useCallback(
    (next: { step?: string | null; tab?: PanelTab; keys?: string }) => {
      const params = new URLSearchParams(search.toString());
      if (next.step !== undefined) {
        if (next.step) params.set("step", next.step);
        else params.delete("step");
      }
      if (next.keys !== undefined) {
        if (next.keys) params.set("keys", next.keys);
        else params.delete("keys");
      }
      if (next.tab) params.set("tab", next.tab);
      router.replace(`${pathname}?${params.toString()}`, { scroll: false });
    },
    [router, pathname, search],
  );

  const rows: TimelineStep[] = useMemo(() => steps.data ?? [], [steps.data]);
  const factMarks = useMemo(() => {
    const marks = new Map<string, StepFactCounts>();
    for (const s of factSummary.data?.steps ?? []) if (s.stepId) marks.set(`${s.runId}:${s.stepId}`, s);
    return marks;
  }, [factSummary.data]);
  const onKeyFilter = useCallback((keys: string) => setParams({ keys }), [setParams]);
  const selectedIndex = rows.findIndex((s) => `${s.runId}:${s.stepId}` === selectedKey);

  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      const target = e.target as HTMLElement | null;
      if (target && ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName)) return;
      if (e.key !== "j" && e.key !== "k") return;
      const next = e.key === "j" ? Math.min(rows.length - 1, selectedIndex + 1) : Math.max(0, selectedIndex - 1);
      const s = rows[next];
      if (s) setParams({ step: `${s.runId}:${s.stepId}`, tab: "step" });
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [rows, selectedIndex, setParams]);

  if (task.isError) {
    return (
      <div className="p-8">
        <div role="alert" className="rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
          {task.error.data?.code === "NOT_FOUND" ? `No task ${taskId}.` : `Could not load the task: ${task.error.message}`}{" "}
          <button className="font-medium underline" onClick={() => void task.refetch()}>
            Retry
          </button>
        </div>
      </div>
    );
  }
  if (!task.data) {
    return (
      <div className="space-y-3 p-8" aria-busy="true">
        <div className="h-8 w-1/3 animate-pulse rounded bg-zinc-200" />
        <div className="h-24 animate-pulse rounded bg-zinc-200/70" />
        <div className="h-96 animate-pulse rounded bg-zinc-200/50" />
      </div>
    );
  }

  const t = task.data;
  const latestRun = t.runs.at(-1);
  const lastStep = rows.at(-1);
  const lastActivity = lastStep ? (lastStep.endedAt ?? lastStep.startedAt) : null;
  const reason =
    t.status === "dead_end"
      ? `Dead end: ${t.deadEndReason ?? "the agent stopped"}`
      : t.status === "failed"
        ? `${latestRun?.endReason ? `${latestRun.endReason.replace("_", " ")}: ` : ""}${t.error ?? "failed"}`
        : t.status === "cancelled"
          ? (t.error ?? "Cancelled")
          : t.status === "queued"
            ? "Waiting for the executor to pick up the run"
            : t.status === "running" && lastStep
              ? `Working: ${lastStep.stepId}${lastStep.status === "running" ? " in progress" : ""}${lastStep.attempts > 1 ? ` (attempt ${lastStep.attempts})` : ""}${lastStep.error && lastStep.status === "running" ? ` — last error ${lastStep.error.slice(0, 80)}` : ""}`
              : null;
  const elapsed = t.startedAt ? (t.endedAt ?? new Date()).getTime() - t.startedAt.getTime() : null;
  const offline = t.profile.model === "scripted" || t.profile.model.startsWith("scripted-");

  return (
    <div className="flex h-screen flex-col">
      <header className="border-b border-zinc-200 bg-white px-8 py-5">
        <div className="flex flex-wrap items-center gap-3">
          <StatusBadge status={t.status} className="text-sm" />
          <LivePill state={live} />
          <span className="font-mono text-xs text-zinc-500">{t.id}</span>
          <span className="text-xs text-zinc-500">
            {t.profile.name} · {offline ? "offline scripted model" : t.profile.model}
          </span>
          <span className="ml-auto" />
          {t.status === "running" && (
            <button
              type="button"
              className="rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium hover:bg-zinc-50 disabled:opacity-50"
              disabled={requestCheckpoint.isPending || latestRun?.checkpointRequested}
              title="Take a checkpoint after the turn in flight"
              onClick={() => requestCheckpoint.mutate({ taskId })}
            >
              {latestRun?.checkpointRequested ? "Checkpoint requested" : "Checkpoint now"}
            </button>
          )}
          {t.status === "running" && (
            <button
              type="button"
              className="rounded-md border border-amber-500 px-3 py-1.5 text-sm font-medium text-amber-900 hover:bg-amber-50 disabled:opacity-50"
              disabled={escalateNow.isPending || escalateNow.isSuccess}
              title="Checkpoint and put a decision in front of a human after the turn in flight"
              onClick={() => {
                const note = window.prompt("Why escalate? (optional note for the handler)");
                if (note === null) return; // Cancel in the prompt: no escalation
                escalateNow.mutate({ taskId, note: note.trim() || undefined });
              }}
            >
              {escalateNow.isSuccess ? "Escalation requested" : "Escalate"}
            </button>
          )}
          {(t.status === "failed" || t.status === "cancelled") && (
            <button
              type="button"
              className="rounded-md bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-800 disabled:opacity-50"
              disabled={resume.isPending}
              title="A new run from the latest good checkpoint (choose another one, or add guidance, in the Checkpoints tab)"
              onClick={() => resume.mutate({ taskId })}
            >
              Resume
            </button>
          )}
          {!TERMINAL.has(t.status) && (
            <button
              type="button"
              className="rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium hover:bg-zinc-50 disabled:opacity-50"
              disabled={cancel.isPending}
              onClick={() => {
                if (window.confirm("Cancel this task? The run stops after the step in flight.")) cancel.mutate({ taskId });
              }}
            >
              Cancel task
            </button>
          )}
        </div>
        {t.escalations
          .filter((e) => e.status === "open")
          .map((e) => (
            <div key={e.id} role="alert" className="mt-3 flex items-center justify-between rounded-md border border-amber-300 bg-amber-50 px-4 py-2 text-sm text-amber-950" data-testid="escalation-banner">
              <span>
                <span className="font-semibold">Waiting on a human ({e.reason.replace("_", " ")}):</span> {e.message}
              </span>
              <a className="ml-4 shrink-0 rounded-md bg-amber-600 px-3 py-1 font-medium text-white" href={`/escalations?id=${e.id}`}>
                Decide
              </a>
            </div>
          ))}
        {t.alerts.length > 0 && (
          <p className="mt-2 text-xs text-zinc-600" data-testid="alerts-line">
            Alerts:{" "}
            {t.alerts.slice(-6).map((a) => (
              <button
                key={a.id}
                type="button"
                className={cn("mr-1 rounded px-1.5 py-0.5", a.severity === "critical" ? "bg-red-100 text-red-800" : "bg-amber-100 text-amber-900")}
                title={a.message}
                onClick={() => setParams({ step: `${a.runId}:${a.stepId}`, tab: "step" })}
              >
                {a.kind} · {a.stepId}
              </button>
            ))}
          </p>
        )}
        {(escalateNow.error ?? resume.error ?? requestCheckpoint.error ?? cancel.error) && (
          <p role="alert" className="mt-2 text-sm text-red-800">
            {(escalateNow.error ?? resume.error ?? requestCheckpoint.error ?? cancel.error)?.message}
          </p>
        )}
        {latestRun && (
          <p className="mt-1 text-xs text-zinc-500" data-testid="run-line">
            Run {t.runs.length} of {t.runs.length} · {latestRun.cause.replace("_", " ")}
            {latestRun.fromCheckpointId ? " from a checkpoint" : ""} · {latestRun.segments} segment{latestRun.segments === 1 ? "" : "s"}
            {latestRun.guidance ? ` · guidance: “${latestRun.guidance.slice(0, 80)}”` : ""}
          </p>
        )}
        {reason && (
          <p className={cn("mt-2 text-sm", t.status === "failed" ? "text-red-800" : t.status === "dead_end" ? "text-violet-800" : "text-zinc-700")} data-testid="status-reason">
            {reason}
          </p>
        )}
        {t.status === "completed" && t.result && typeof t.result === "object" && "summary" in t.result && (
          <p className="mt-2 text-sm text-emerald-900" data-testid="result-summary">
            Result: {typeof t.result.summary === "string" ? t.result.summary : JSON.stringify(t.result.summary)}
          </p>
        )}
        <h1 className="mt-2 line-clamp-2 text-base font-medium text-zinc-900" title={t.goal}>
          {t.goal}
        </h1>
        <div className="mt-4 flex flex-wrap gap-8">
          <Meter label="Steps" value={`${t.usage.steps} / ${t.stepBudget}`} fraction={t.usage.steps / t.stepBudget} />
          <Meter
            label="Tokens"
            value={`${compactNumber(t.usage.promptTokens + t.usage.completionTokens)}${t.tokenBudget ? ` / ${compactNumber(t.tokenBudget)}` : ""}`}
            detail={`${compactNumber(t.usage.promptTokens)} in (${compactNumber(t.usage.cachedTokens)} cached) · ${compactNumber(t.usage.completionTokens)} out`}
            fraction={t.tokenBudget ? (t.usage.promptTokens + t.usage.completionTokens) / t.tokenBudget : undefined}
          />
          <Meter
            label="Cost"
            value={`${usd(t.usage.costUsd)}${t.costBudgetUsd !== null ? ` / ${usd(t.costBudgetUsd)}` : ""}`}
            fraction={t.costBudgetUsd ? t.usage.costUsd / t.costBudgetUsd : undefined}
            detail={`${t.usage.modelCalls} model calls${t.usage.checkpointUsd > 0 ? ` · ${usd(t.usage.checkpointUsd)} on checkpoints` : ""}${t.usage.wastedUsd > 0 ? ` · ${usd(t.usage.wastedUsd)} wasted on retries` : ""}${offline ? " · notional prices" : ""}`} />
          <Meter label="Duration" value={durationMs(elapsed)} detail={t.startedAt ? `started ${ago(t.startedAt)}` : "not started"} />
          <Meter label="Last step" value={lastActivity ? ago(lastActivity) : "—"} detail={lastStep ? lastStep.stepId : undefined} />
        </div>
        <TaskCostPanel taskId={t.id} />
      </header>
      <div className="flex min-h-0 flex-1">
        <section aria-label="Timeline" className="flex min-w-0 flex-1 flex-col border-r border-zinc-200">
          <Timeline
            steps={rows}
            loading={steps.isPending}
            selectedKey={selectedKey}
            onSelect={(key) => setParams({ step: key, tab: "step" })}
            emptyMessage={t.status === "queued" ? "No steps yet: the run is queued for the executor." : "No steps yet."}
            factMarks={factMarks}
          />
        </section>
        <aside aria-label="Details" className="flex w-[44%] min-w-96 flex-col bg-white">
          <DetailPanel
            task={t}
            selectedKey={selectedKey}
            tab={tab}
            onTab={(next) => setParams({ tab: next })}
            onSelectStep={(key) => setParams({ step: key, tab: "step" })}
            keyFilter={keyFilter}
            onKeyFilter={onKeyFilter}
            factsNow={factSummary.data?.currentSize}
          />
        </aside>
      </div>
    </div>
  );
}
