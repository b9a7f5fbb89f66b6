"use client";

import type React from "react";
import { cn } from "@/components/ui/cn.ts";
import { Timestamp } from "@/components/ui/timestamp.tsx";
import { BUDGET_STEPS_MEANING, stepsApartLabel } from "@/lib/contracts/step-count.ts";
import { compactNumber, durationMs, usd } from "../format.ts";
import { RelativeTime, useSecondClock } from "../relative-time.tsx";
import type { TimelineStep } from "../timeline.tsx";
import { isTerminal } from "./run-actions.tsx";
import { runClock } from "@/lib/contracts/run-clock.ts";
import { costSplitWords, latestStep, observedNow } from "./run-figures.ts";
import type { RunTask } from "./use-run-queries.ts";

/** One header figure: label, value, optional detail line, and a budget bar when `fraction` (0–1) is given. */
export function Meter({ label, value, detail, fraction }: { label: string; value: React.ReactNode; detail?: React.ReactNode; fraction?: number }) {
  return (
    <div className="min-w-32">
      <div className="text-xs tracking-wide text-zinc-500 uppercase">{label}</div>
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
 * The header's meters: the budget's steps (checkpoint and human steps apart), tokens and cost against
 * their budgets (the cost's parts add up to it), active time and time waiting for a human (ticking
 * every second while the task runs or waits), and the last step's age (never in the future).
 */
export function RunMeters({ task: t, lastStep, offline }: { task: RunTask; lastStep: TimelineStep | undefined; offline: boolean }) {
  const clientNow = useSecondClock(!isTerminal(t.status));
  const last = latestStep(t.usage.lastStep, lastStep ? { stepId: lastStep.stepId, at: lastStep.endedAt ?? lastStep.startedAt } : null);
  const lastActivity = last?.at ?? null;
  const now = observedNow(clientNow, [lastActivity, t.startedAt, t.endedAt, ...t.runs.flatMap((r) => [r.startedAt, r.endedAt])]);
  const clock = runClock(t, now);
  const tokens = t.usage.promptTokens + t.usage.completionTokens;
  const split = costSplitWords(t.usage, usd);
  return (
    <div className="mt-4 flex flex-wrap gap-x-8 gap-y-3">
      <Meter
        label="Steps"
        value={<span title={`Budget steps: ${BUDGET_STEPS_MEANING}`}>{`${t.usage.steps} / ${t.stepBudget}`}</span>}
        fraction={t.usage.steps / t.stepBudget}
        detail={
          <span data-testid="steps-apart">
            {stepsApartLabel({ checkpoints: t.usage.checkpointSteps, human: t.usage.humanSteps }) ?? "model and tool steps"}
          </span>
        }
      />
      <Meter
        label="Tokens"
        value={`${compactNumber(tokens)}${t.tokenBudget ? ` / ${compactNumber(t.tokenBudget)}` : ""}`}
        detail={`${compactNumber(t.usage.promptTokens)} in (${compactNumber(t.usage.cachedTokens)} cached) · ${compactNumber(t.usage.completionTokens)} out`}
        fraction={t.tokenBudget ? tokens / t.tokenBudget : undefined}
      />
      <Meter
        label="Cost"
        value={<span data-testid="cost-total">{`${usd(t.usage.costUsd)}${t.costBudgetUsd !== null ? ` / ${usd(t.costBudgetUsd)}` : ""}`}</span>}
        fraction={t.costBudgetUsd ? t.usage.costUsd / t.costBudgetUsd : undefined}
        detail={<span data-testid="cost-split">{`${t.usage.modelCalls} model calls${split ? ` · ${split}` : ""}${offline ? " · notional prices" : ""}`}</span>}
      />
      <Meter
        label="Active time"
        value={
          <span data-testid="duration-active" data-ticking={clock.running ? "true" : "false"} suppressHydrationWarning>
            {t.startedAt ? durationMs(clock.activeMs) : "—"}
          </span>
        }
        detail={
          <>
            {clock.waitingMs > 0 && (
              <span className="block" data-testid="duration-waiting" suppressHydrationWarning>
                {durationMs(clock.waitingMs)} waiting for a human{clock.waiting ? " (now)" : ""}
              </span>
            )}
            {t.startedAt ? (
              <>
                started <Timestamp className="font-mono" date={t.startedAt} />
              </>
            ) : (
              "not started"
            )}
          </>
        }
      />
      <Meter
        label="Last step"
        value={<span data-testid="last-step-age">{lastActivity ? <RelativeTime date={lastActivity} past /> : "—"}</span>}
        detail={last ? <span data-testid="last-step-id">{last.stepId}</span> : undefined}
      />
    </div>
  );
}
