"use client";

import { useQuery } from "@tanstack/react-query";
import type { ExecutorView } from "@/server/domain/executor-view.ts";
import { useTRPC } from "@/components/trpc.tsx";
import { cn } from "@/components/ui/cn.ts";
import { RelativeTime } from "./relative-time.tsx";
import { Timestamp } from "@/components/ui/timestamp.tsx";
import { SafeText } from "@/components/ui/safe-text.tsx";

type Available = Extract<ExecutorView, { available: true }>;

const TONE: Record<Available["state"], string> = {
  running: "bg-sky-100 text-sky-900",
  retrying: "bg-amber-100 text-amber-900",
  queued: "bg-zinc-100 text-zinc-800",
  waiting: "bg-violet-100 text-violet-900",
  sleeping: "bg-indigo-100 text-indigo-900",
  idle: "bg-zinc-100 text-zinc-700",
  ended: "bg-zinc-100 text-zinc-700",
};

const WORD: Record<Available["state"], string> = {
  running: "Running",
  retrying: "Retrying",
  queued: "Queued",
  waiting: "Waiting",
  sleeping: "Sleeping",
  idle: "Between requests",
  ended: "Segment ended",
};

/** The sentence after the state word, with times as relative (ticking) + exact on hover. */
function Detail({ view }: { view: Available }) {
  const at = view.at ? new Date(view.at) : null;
  const when = at ? (
    <>
      {" "}
      <RelativeTime date={at} /> (<Timestamp date={at} />)
    </>
  ) : null;
  switch (view.state) {
    case "running":
      return (
        <>
          {view.step ? <span className="font-mono">{view.step}</span> : "the next steps"}
          {view.attempt && view.attempt > 1 ? ` · attempt ${view.attempt} of ${view.maxAttempts}` : ""}
        </>
      );
    case "retrying":
      return (
        <>
          {view.step ? <span className="font-mono">{view.step}</span> : "the request"} · attempt {view.attempt} of {view.maxAttempts}
          {at && at.getTime() > Date.parse(view.checkedAt) ? <> · next attempt{when}</> : " · due now"}
        </>
      );
    case "waiting":
      return (
        <>
          for event <span className="font-mono">{view.event ?? "?"}</span>
          {view.step ? (
            <>
              {" "}
              (<span className="font-mono">{view.step}</span>)
            </>
          ) : null}{" "}
          · times out{when}
          {view.event === "longhaul/escalation.applied" ? " (then a reminder goes out: see the wait above)" : null}
        </>
      );
    case "sleeping":
      return (
        <>
          {view.step ? <span className="font-mono">{view.step}</span> : null} · wakes{when}
        </>
      );
    case "queued":
      return <>for a free executor worker{at && at.getTime() > Date.parse(view.checkedAt) ? <> · due{when}</> : null}</>;
    case "idle":
      return <>{view.executorStatus === "queued" ? "the executor has not started this segment yet" : "saving the last request"}</>;
    case "ended":
      return <>{view.executorStatus}</>;
  }
}

/**
 * "What the executor is doing" with the task's current run: running a step, queued,
 * sleeping until T, waiting for an event, retrying (attempt n of m, next attempt at T), from tRPC
 * `task.executorView`, polled every 2 s while the page is visible (the executor's state changes do
 * not reach the app's live feed). When the app runs on Inngest the view is unavailable and a quiet
 * line says so. Not shown for ended tasks (`active` false).
 */
export function ExecutorState({ runId, active }: { runId: string; active: boolean }) {
  const trpc = useTRPC();
  const view = useQuery({
    ...trpc.task.executorView.queryOptions({ runId }),
    enabled: active,
    refetchInterval: (q) => (q.state.data?.available === false || q.state.data?.state === "ended" ? 15_000 : 2_000),
  });
  if (!active || !view.data) return null;
  const v = view.data;
  if (!v.available) {
    return (
      <p className="mt-1 text-xs text-zinc-500" data-testid="executor-view" data-state="unavailable">
        Executor view unavailable: <SafeText text={v.reason} />
      </p>
    );
  }
  return (
    <p className="mt-2 flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-zinc-700" data-testid="executor-view" data-state={v.state} aria-live="polite">
      <span className="text-xs uppercase tracking-wide text-zinc-500">Executor</span>
      <span className={cn("rounded px-1.5 py-0.5 text-xs font-medium", TONE[v.state])}>{WORD[v.state]}</span>
      <span>
        <Detail view={v} />
      </span>
      {v.segments > 1 && <span className="text-xs text-zinc-500">segment {v.segments}</span>}
      {v.lastError && (v.state === "retrying" || v.state === "running" || v.state === "ended") && (
        <span className="w-full truncate text-xs text-red-800" title={v.lastError}>
          last error: {v.lastError}
        </span>
      )}
    </p>
  );
}
