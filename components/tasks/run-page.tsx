"use client";

import type React from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { holdsAny, useMe, useTaskActions } from "@/components/auth/use-me.ts";
import dynamic from "next/dynamic";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { LivePill, useLiveUpdates } from "@/components/live/use-live-updates.tsx";
import { useTRPC } from "@/components/trpc.tsx";
import { StatusBadge } from "@/components/ui/status-badge.tsx";
import { cn } from "@/components/ui/cn.ts";
import { TaskCostPanel } from "@/components/costs/task-cost-panel.tsx";
import { DetailPanel, type PanelTab } from "./detail-panel.tsx";
import { EscalateDialog } from "./escalate-dialog.tsx";
import { compactNumber, elapsed, usd } from "./format.ts";
import { Timestamp } from "@/components/ui/timestamp.tsx";
import { ExecutorState } from "./executor-state.tsx";
import { RelativeTime, useTickingNow } from "./relative-time.tsx";
import { RunOverview } from "./run-overview.tsx";
import { RunSwitcher } from "./run-switcher.tsx";
import { StepFilterBar } from "./step-filter-bar.tsx";
import { decodeStepRows } from "./step-rows.ts";
import { buildSegments, isFiltering, parseStepFilter, stepMatches, timelineItems, writeStepFilter, type StepFilter } from "./step-filter.ts";
import { Timeline, type StepFactCounts, type TimelineRun, type TimelineStep } from "./timeline.tsx";

// The waterfall (recharts) loads after the first rows: it is not needed to read the timeline.
const Waterfall = dynamic(() => import("./waterfall.tsx").then((m) => m.Waterfall), {
  ssr: false,
  loading: () => <div className="h-24 border-b border-zinc-200" aria-hidden />,
});

const TERMINAL = new Set(["completed", "dead_end", "failed", "cancelled"]);

function Meter({ label, value, detail, fraction }: { label: string; value: React.ReactNode; detail?: React.ReactNode; fraction?: number }) {
  return (
    <div className="min-w-32">
      <div className="text-xs uppercase tracking-wide text-zinc-500">{label}</div>
      <div className="text-lg font-semibold tabular-nums">{value}</div>
      {fraction !== undefined && (
        <div
          className="mt-1 h-1.5 w-full overflow-hidden rounded-full bg-zinc-200"
          role="meter"
          aria-label={label}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={Math.round(fraction * 100)}
        >
          <div
            className={cn("h-full rounded-full", fraction >= 0.9 ? "bg-red-500" : fraction >= 0.7 ? "bg-amber-500" : "bg-zinc-900")}
            style={{ width: `${Math.min(100, fraction * 100)}%` }}
          />
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
  const me = useMe().data;
  const actions = useTaskActions(task.data?.createdBy);
  const steps = useQuery({ ...trpc.task.steps.queryOptions({ taskId }), refetchInterval });
  const factSummary = useQuery({ ...trpc.workingSet.summary.queryOptions({ taskId }), refetchInterval });
  useRefreshWorkingSetWith(task.data, steps.data);
  const cancel = useMutation(trpc.task.cancel.mutationOptions({ onSuccess: () => void task.refetch() }));
  const requestCheckpoint = useMutation(trpc.task.requestCheckpoint.mutationOptions({ onSuccess: () => void task.refetch() }));
  const resume = useMutation(trpc.task.resume.mutationOptions({ onSuccess: () => void task.refetch() }));
  const escalateNow = useMutation(trpc.escalation.request.mutationOptions({ onSuccess: () => void task.refetch() }));
  const checkpoints = useQuery({ ...trpc.task.checkpoints.queryOptions({ taskId }), refetchInterval });
  const [escalateOpen, setEscalateOpen] = useState(false);
  const [goalOpen, setGoalOpen] = useState(false);
  const [collapsed, setCollapsed] = useState<Set<string>>(() => new Set());
  const [expandedFolds, setExpandedFolds] = useState<Set<string>>(() => new Set());
  const now = useTickingNow();

  const selectedKey = search.get("step");
  const tab = (search.get("tab") as PanelTab | null) ?? "step";
  const keyFilter = search.get("keys") ?? "";
  const filter = useMemo(() => parseStepFilter(new URLSearchParams(search.toString())), [search]);
  const runParam = search.get("run");
  const showWaterfall = search.get("wf") !== "0";
  const setParams = useCallback(
    (next: { step?: string | null; tab?: PanelTab; keys?: string; run?: string | null; wf?: boolean; filter?: StepFilter }) => {
      let params = new URLSearchParams(search.toString());
      if (next.filter) params = writeStepFilter(params, next.filter);
      if (next.step !== undefined) {
        if (next.step) params.set("step", next.step);
        else params.delete("step");
      }
      if (next.keys !== undefined) {
        if (next.keys) params.set("keys", next.keys);
        else params.delete("keys");
      }
      if (next.run !== undefined) {
        if (next.run) params.set("run", next.run);
        else params.delete("run");
      }
      if (next.wf !== undefined) {
        if (next.wf) params.delete("wf");
        else params.set("wf", "0");
      }
      if (next.tab) params.set("tab", next.tab);
      router.replace(`${pathname}?${params.toString()}`, { scroll: false });
    },
    [router, pathname, search],
  );

  const rows: TimelineStep[] = useMemo(() => decodeStepRows(steps.data), [steps.data]);
  const textSearch = useQuery({
    ...trpc.task.searchSteps.queryOptions({ taskId, text: filter.text }),
    enabled: !!filter.text,
    placeholderData: (prev) => prev,
  });
  const textMatches = useMemo(() => (filter.text && textSearch.data ? new Set(textSearch.data) : null), [filter.text, textSearch.data]);
  const factMarks = useMemo(() => {
    const marks = new Map<string, StepFactCounts>();
    for (const s of factSummary.data?.steps ?? []) if (s.stepId) marks.set(`${s.runId}:${s.stepId}`, s);
    return marks;
  }, [factSummary.data]);
  const onKeyFilter = useCallback((keys: string) => setParams({ keys }), [setParams]);

  const runs = useMemo(() => {
    const seqById = new Map((checkpoints.data ?? []).map((c) => [c.id, c.seq]));
    const out = new Map<
      string,
      TimelineRun & { startedAt: Date; endedAt: Date | null; endReason: string | null; fromCheckpointReason: string | null; guidance: string | null }
    >();
    (task.data?.runs ?? []).forEach((r, i) => {
      out.set(r.id, {
        id: r.id,
        number: i + 1,
        cause: r.cause,
        status: r.status,
        fromCheckpointSeq: r.fromCheckpointId ? (seqById.get(r.fromCheckpointId) ?? null) : null,
        fromCheckpointReason: r.fromCheckpointId ? ((checkpoints.data ?? []).find((c) => c.id === r.fromCheckpointId)?.reason ?? null) : null,
        startedAt: r.startedAt,
        endedAt: r.endedAt,
        endReason: r.endReason,
        guidance: r.guidance,
      });
    });
    return out;
  }, [task.data?.runs, checkpoints.data]);
  const runId = runParam && runs.has(runParam) ? runParam : null;
  const segments = useMemo(() => buildSegments(rows), [rows]);
  const segmentsInView = useMemo(() => segments.filter((g) => !runId || g.runId === runId), [segments, runId]);
  const filtering = isFiltering(filter);
  const items = useMemo(
    () => timelineItems(segments, { runId, collapsed, matches: (s) => stepMatches(s, filter, textMatches), filtering, runCount: runs.size, expandedFolds }),
    [segments, runId, collapsed, filter, textMatches, filtering, runs.size, expandedFolds],
  );
  const stepItems = useMemo(() => items.filter((i) => i.type === "step"), [items]);
  const matchCount = useMemo(
    () => (filtering ? rows.filter((s) => (!runId || s.runId === runId) && stepMatches(s, filter, textMatches)).length : null),
    [filtering, rows, runId, filter, textMatches],
  );
  const selectedPos = stepItems.findIndex((s) => s.key === selectedKey);
  const selectedStep = useMemo(() => rows.find((s) => `${s.runId}:${s.stepId}` === selectedKey) ?? null, [rows, selectedKey]);
  const toggleSegment = useCallback((key: string) => {
    setCollapsed((prev) => {
      const next = new Set(prev);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  }, []);
  const toggleFold = useCallback((key: string) => {
    setExpandedFolds((prev) => {
      const next = new Set(prev);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  }, []);
  // Opening a step folded into identical repeats (deep link, the waterfall) expands its fold.
  // Only once per selection: folding it again by hand stays folded.
  const autoExpanded = useRef<string | null>(null);
  useEffect(() => {
    if (!selectedKey || autoExpanded.current === selectedKey || items.some((i) => i.type === "step" && i.key === selectedKey)) return;
    const fold = items.find((i) => i.type === "fold" && !i.expanded && i.fold.steps.some((s) => `${s.runId}:${s.stepId}` === selectedKey));
    if (fold) {
      autoExpanded.current = selectedKey;
      toggleFold(fold.key);
    }
  }, [selectedKey, items, toggleFold]);
  // Opening a step (deep link, j/k, the waterfall) expands its segment.
  useEffect(() => {
    if (!selectedStep) return;
    const seg = segments.find((g) => g.runId === selectedStep.runId && g.steps.includes(selectedStep));
    if (seg && collapsed.has(seg.key)) toggleSegment(seg.key);
  }, [selectedStep, segments, collapsed, toggleSegment]);

  // The waterfall shows the selected step's segment, else the last segment in view (at most 400 bars around the selection).
  const waterfallWindow = useMemo(() => {
    const inView = segments.filter((g) => !runId || g.runId === runId);
    const seg = (selectedStep && inView.find((g) => g.runId === selectedStep.runId && g.steps.includes(selectedStep))) ?? inView.at(-1);
    if (!seg) return null;
    let list = seg.steps;
    if (list.length > 400) {
      const at = selectedStep ? Math.max(0, list.indexOf(selectedStep)) : list.length - 1;
      const from = Math.max(0, Math.min(list.length - 400, at - 200));
      list = list.slice(from, from + 400);
    }
    const run = runs.get(seg.runId);
    const last = list.at(-1);
    return {
      steps: list,
      from: list[0]?.startedAt ?? null,
      to: last ? (last.endedAt ?? new Date(last.startedAt.getTime() + (last.durationMs ?? 0))) : null,
      title: `run ${run?.number ?? "?"}, segment ${seg.n}${list.length < seg.steps.length ? ` (${list.length} of ${seg.steps.length} steps)` : ""}`,
    };
  }, [segments, runId, selectedStep, runs]);

  // The checkpoint at or before the selected step: the latest of its run whose last covered step is at or before it, else the one its run started from.
  const forkFrom = useMemo(() => {
    if (!selectedStep || !checkpoints.data) return null;
    const indexOf = new Map(rows.filter((s) => s.runId === selectedStep.runId).map((s) => [s.stepId, s.index]));
    const own = checkpoints.data.filter((c) => c.runId === selectedStep.runId && (indexOf.get(c.afterStepId) ?? Infinity) <= selectedStep.index && c.good);
    const best = own.at(-1);
    if (best) return { id: best.id, seq: best.seq, reason: best.reason };
    const from = task.data?.runs.find((r) => r.id === selectedStep.runId)?.fromCheckpointId;
    const cp = from ? checkpoints.data.find((c) => c.id === from) : undefined;
    return cp ? { id: cp.id, seq: cp.seq, reason: cp.reason } : null;
  }, [selectedStep, checkpoints.data, rows, task.data?.runs]);

  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      const target = e.target as HTMLElement | null;
      if (target && (["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName) || target.isContentEditable)) return;
      if (e.metaKey || e.ctrlKey || e.altKey) return;
      if (e.key !== "j" && e.key !== "k") return;
      if (stepItems.length === 0) return;
      // From no selection (or one the filter hides) both keys open the first match.
      const next = selectedPos < 0 ? 0 : e.key === "j" ? Math.min(stepItems.length - 1, selectedPos + 1) : Math.max(0, selectedPos - 1);
      const s = stepItems[next];
      if (s) setParams({ step: s.key, tab: "step" });
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [stepItems, selectedPos, setParams]);

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
  const shownRun = runId ? runs.get(runId) : undefined;
  // The timeline renders as soon as the steps are in, even before the task's header (panel-only skeletons).
  const timelineSection = (
    <section aria-label="Timeline" className="flex min-w-0 flex-1 flex-col border-r border-zinc-200">
      <RunSwitcher runs={[...runs.values()]} value={runId} onChange={(id) => setParams({ run: id })} />
      <StepFilterBar
        filter={filter}
        onChange={(next) => setParams({ filter: next })}
        tools={[...new Set(rows.map((s) => s.tool).filter((x): x is string => !!x))].sort()}
        matchCount={matchCount}
        total={runId ? rows.filter((s) => s.runId === runId).length : rows.length}
        searching={!!filter.text && textSearch.isFetching}
        searchError={textSearch.isError ? textSearch.error.message : null}
        truncated={steps.data?.truncated ?? false}
        waterfall={showWaterfall}
        onWaterfall={(on) => setParams({ wf: on })}
        onCollapseAll={(all) => setCollapsed(all ? new Set(segments.map((g) => g.key)) : new Set())}
      />
      {showWaterfall && waterfallWindow && (
        <RunOverview
          segments={segmentsInView}
          window={waterfallWindow.from && waterfallWindow.to ? { from: waterfallWindow.from, to: waterfallWindow.to } : null}
          onSelect={(key) => setParams({ step: key, tab: "step" })}
        />
      )}
      {showWaterfall && waterfallWindow && (
        <Waterfall
          steps={waterfallWindow.steps}
          title={waterfallWindow.title}
          selectedKey={selectedKey}
          onSelect={(key) => setParams({ step: key, tab: "step" })}
        />
      )}
      <Timeline
        items={items}
        runs={runs}
        loading={steps.isPending}
        selectedKey={selectedKey}
        onSelect={(key) => setParams({ step: key, tab: "step" })}
        onToggleSegment={toggleSegment}
        onToggleFold={toggleFold}
        emptyMessage={
          filtering
            ? "No step matches this filter."
            : shownRun
              ? `No steps in run ${shownRun.number} yet.`
              : task.data?.status === "queued"
                ? "No steps yet: the run is queued for the executor."
                : "No steps yet."
        }
        factMarks={factMarks}
      />
    </section>
  );
  if (!task.data) {
    return (
      <div className="flex h-screen min-w-0 flex-col">
        <div className="space-y-3 border-b border-zinc-200 bg-white px-8 py-5" aria-busy="true">
          <div className="h-6 w-1/3 animate-pulse rounded bg-zinc-200" />
          <div className="h-16 animate-pulse rounded bg-zinc-200/70" />
        </div>
        <div className="flex min-h-0 flex-1">
          {timelineSection}
          <aside aria-label="Details" className="w-[44%] min-w-96 space-y-3 bg-white p-4" aria-busy="true">
            <div className="h-40 animate-pulse rounded bg-zinc-200/60" />
          </aside>
        </div>
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
  const offline = t.profile.model === "scripted" || t.profile.model.startsWith("scripted-");

  return (
    <div className="flex h-screen min-w-0 flex-col">
      <EscalateDialog
        open={escalateOpen}
        onOpenChange={setEscalateOpen}
        pending={escalateNow.isPending}
        onSubmit={(note) => escalateNow.mutate({ taskId, note }, { onSuccess: () => setEscalateOpen(false) })}
      />
      <header className="border-b border-zinc-200 bg-white px-8 py-5">
        <div className="flex flex-wrap items-center gap-3">
          <StatusBadge status={t.status} className="text-sm" />
          <LivePill state={live} />
          <span className="font-mono text-xs text-zinc-500">{t.id}</span>
          <span className="text-xs text-zinc-500">
            {t.profile.name} · {offline ? "offline scripted model" : t.profile.model}
          </span>
          <span className="ml-auto" />
          {actions.allowed && t.status === "running" && (
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
          {actions.allowed && t.status === "running" && (
            <button
              type="button"
              className="rounded-md border border-amber-500 px-3 py-1.5 text-sm font-medium text-amber-900 hover:bg-amber-50 disabled:opacity-50"
              disabled={escalateNow.isPending || escalateNow.isSuccess}
              title="Checkpoint and put a decision in front of a human after the turn in flight"
              onClick={() => setEscalateOpen(true)}
            >
              {escalateNow.isSuccess ? "Escalation requested" : "Escalate"}
            </button>
          )}
          {actions.allowed && (t.status === "failed" || t.status === "cancelled") && (
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
          {actions.allowed && !TERMINAL.has(t.status) && (
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
          {actions.why && (!TERMINAL.has(t.status) || t.status === "failed" || t.status === "cancelled") && (
            <span className="text-xs text-zinc-500" data-testid="task-actions-refused">
              {actions.why}
            </span>
          )}
        </div>
        {t.escalations
          .filter((e) => e.status === "open")
          .map((e) => (
            <div
              key={e.id}
              role="alert"
              className="mt-3 flex items-center justify-between rounded-md border border-amber-300 bg-amber-50 px-4 py-2 text-sm text-amber-950"
              data-testid="escalation-banner"
            >
              <span>
                <span className="font-semibold">Waiting on a human ({e.reason.replace("_", " ")}):</span> {e.message}
              </span>
              {holdsAny(me?.roles, ["handler"]) ? (
                <a className="ml-4 shrink-0 rounded-md bg-amber-600 px-3 py-1 font-medium text-white" href={`/escalations?id=${e.id}`}>
                  Decide
                </a>
              ) : (
                <span className="ml-4 shrink-0 text-xs text-amber-900" data-testid="decide-refused">
                  A handler decides it (deciding needs the handler role).
                </span>
              )}
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
            {t.runs.length} run{t.runs.length === 1 ? "" : "s"} · latest: run {t.runs.length}, {latestRun.cause.replace("_", " ")}
            {latestRun.fromCheckpointId ? ` from checkpoint #${runs.get(latestRun.id)?.fromCheckpointSeq ?? "?"}` : ""} · {latestRun.segments} segment
            {latestRun.segments === 1 ? "" : "s"}
            {latestRun.guidance ? ` · guidance: “${latestRun.guidance.slice(0, 80)}”` : ""}
          </p>
        )}
        {reason && (
          <p
            className={cn("mt-2 text-sm", t.status === "failed" ? "text-red-800" : t.status === "dead_end" ? "text-violet-800" : "text-zinc-700")}
            data-testid="status-reason"
          >
            {reason}
          </p>
        )}
        {latestRun && <ExecutorState runId={latestRun.id} active={!TERMINAL.has(t.status)} />}
        {t.status === "completed" && t.result && typeof t.result === "object" && "summary" in t.result && (
          <p className="mt-2 text-sm text-emerald-900" data-testid="result-summary">
            Result: {typeof t.result.summary === "string" ? t.result.summary : JSON.stringify(t.result.summary)}
          </p>
        )}
        {t.status === "completed" &&
          t.outcome === "completed_with_gaps" &&
          t.result &&
          typeof t.result === "object" &&
          "gaps" in t.result &&
          Array.isArray(t.result.gaps) && (
            <p className="mt-1 text-sm text-amber-800" data-testid="result-gaps">
              <span className="mr-2 rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium">Completed with gaps</span>
              Not done: {t.result.gaps.map(String).join("; ")}
            </p>
          )}
        <div className="mt-2 flex items-start gap-2">
          <h1
            className={cn("min-w-0 text-base font-medium break-words whitespace-pre-wrap text-zinc-900 [overflow-wrap:anywhere]", !goalOpen && "line-clamp-3")}
            title={t.goal}
            data-testid="goal"
          >
            {t.goal}
          </h1>
          {t.goal.length > 240 && (
            <button
              type="button"
              className="shrink-0 text-xs text-zinc-500 underline hover:text-zinc-900"
              aria-expanded={goalOpen}
              onClick={() => setGoalOpen((o) => !o)}
            >
              {goalOpen ? "Fold goal" : "Whole goal"}
            </button>
          )}
        </div>
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
            detail={`${t.usage.modelCalls} model calls${t.usage.checkpointUsd > 0 ? ` · ${usd(t.usage.checkpointUsd)} on checkpoints` : ""}${t.usage.wastedUsd > 0 ? ` · ${usd(t.usage.wastedUsd)} wasted on retries` : ""}${offline ? " · notional prices" : ""}`}
          />
          <Meter
            label="Duration"
            value={elapsed(t.startedAt, t.endedAt, now)}
            detail={
              t.startedAt ? (
                <>
                  started <Timestamp className="font-mono" date={t.startedAt} />
                </>
              ) : (
                "not started"
              )
            }
          />
          <Meter label="Last step" value={lastActivity ? <RelativeTime date={lastActivity} /> : "—"} detail={lastStep ? lastStep.stepId : undefined} />
        </div>
        <TaskCostPanel taskId={t.id} />
      </header>
      <div className="flex min-h-0 flex-1">
        {timelineSection}
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
            forkFrom={forkFrom}
          />
        </aside>
      </div>
    </div>
  );
}
