"use client";

import { useState } from "react";
import { cn } from "@/components/ui/cn.ts";
import { ExecutorState } from "../executor-state.tsx";
import type { TimelineStep } from "../timeline.tsx";
import type { RunInfo } from "./run-derive.ts";
import { isTerminal } from "./run-actions.tsx";
import type { RunTask } from "./use-run-queries.ts";
import { SafeText, safeAttr } from "@/components/ui/safe-text.tsx";

/**
 * The status pill's reason in words: the dead end's reason, the failure's class and error, the
 * cancel, "waiting for the executor" while queued, and while running the step in flight (its attempt
 * and last error); null when the status says it all.
 */
export function statusReason(t: Pick<RunTask, "status" | "deadEndReason" | "error" | "runs">, lastStep: TimelineStep | undefined): string | null {
  const latestRun = t.runs.at(-1);
  if (t.status === "dead_end") return `Dead end: ${t.deadEndReason ?? "the agent stopped"}`;
  if (t.status === "failed") return `${latestRun?.endReason ? `${latestRun.endReason.replace("_", " ")}: ` : ""}${t.error ?? "failed"}`;
  if (t.status === "cancelled") return t.error ?? "Cancelled";
  if (t.status === "queued") return "Waiting for the executor to pick up the run";
  if (t.status === "running" && lastStep)
    return `Working: ${lastStep.stepId}${lastStep.status === "running" ? " in progress" : ""}${lastStep.attempts > 1 ? ` (attempt ${lastStep.attempts})` : ""}${lastStep.error && lastStep.status === "running" ? ` — last error ${lastStep.error.slice(0, 80)}` : ""}`;
  return null;
}

/** Runs so far and how the latest one started; the status reason; the executor's view; the result (and its gaps). */
export function RunStatus({ task: t, runs, lastStep }: { task: RunTask; runs: ReadonlyMap<string, RunInfo>; lastStep: TimelineStep | undefined }) {
  const latestRun = t.runs.at(-1);
  const reason = statusReason(t, lastStep);
  const result = t.result && typeof t.result === "object" ? (t.result as Record<string, unknown>) : null;
  return (
    <>
      {latestRun && (
        <p className="mt-1 text-xs text-zinc-500" data-testid="run-line">
          {t.runs.length} run{t.runs.length === 1 ? "" : "s"} · latest: run {t.runs.length}, {latestRun.cause.replace("_", " ")}
          {latestRun.fromCheckpointId ? ` from checkpoint #${runs.get(latestRun.id)?.fromCheckpointSeq ?? "?"}` : ""} · {latestRun.segments} segment
          {latestRun.segments === 1 ? "" : "s"}
          {latestRun.guidance ? (
            <>
              {" · guidance: “"}
              <SafeText text={latestRun.guidance.slice(0, 80)} />”
            </>
          ) : null}
        </p>
      )}
      {reason && (
        <p
          className={cn(
            "mt-2 text-sm [overflow-wrap:anywhere]",
            t.status === "failed" ? "text-red-800" : t.status === "dead_end" ? "text-violet-800" : "text-zinc-700",
          )}
          data-testid="status-reason"
        >
          <SafeText text={reason} multiline />
        </p>
      )}
      {latestRun && <ExecutorState runId={latestRun.id} active={!isTerminal(t.status)} />}
      {t.status === "completed" && result && "summary" in result && (
        <p className="mt-2 text-sm text-emerald-900 [overflow-wrap:anywhere]" data-testid="result-summary">
          Result: <SafeText text={typeof result.summary === "string" ? result.summary : JSON.stringify(result.summary)} multiline />
        </p>
      )}
      {t.status === "completed" && t.outcome === "completed_with_gaps" && result && Array.isArray(result.gaps) && (
        <p className="mt-1 text-sm text-amber-800 [overflow-wrap:anywhere]" data-testid="result-gaps">
          <span className="mr-2 rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium">Completed with gaps</span>
          Not done: <SafeText text={result.gaps.map(String).join("; ")} />
        </p>
      )}
    </>
  );
}

/** The goal as the page's heading: three lines, with "Whole goal" to unfold a long one. */
export function RunGoal({ goal }: { goal: string }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="mt-2 flex items-start gap-2">
      <h1
        className={cn("min-w-0 text-base font-medium break-words whitespace-pre-wrap text-zinc-900 [overflow-wrap:anywhere]", !open && "line-clamp-3")}
        title={safeAttr(goal, { newlines: true })}
        data-testid="goal"
        dir="auto"
      >
        <SafeText text={goal} multiline />
      </h1>
      {goal.length > 240 && (
        <button type="button" className="shrink-0 text-xs text-zinc-500 underline hover:text-zinc-900" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
          {open ? "Fold goal" : "Whole goal"}
        </button>
      )}
    </div>
  );
}
