"use client";

import { createColumnHelper } from "@tanstack/react-table";
import type { inferRouterOutputs } from "@trpc/server";
import { Check, Copy } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { StatusBadge } from "@/components/ui/status-badge.tsx";
import { BUDGET_STEPS_MEANING, stepsApartLabel } from "@/lib/contracts/step-count.ts";
import { Timestamp } from "@/components/ui/timestamp.tsx";
import type { AppRouter } from "@/server/api/root.ts";
import { runClock } from "@/lib/contracts/run-clock.ts";
import { compactNumber, durationMs, shortId, usd } from "../format.ts";
import { RelativeTime, useTickingNow } from "../relative-time.tsx";

export type TaskRow = inferRouterOutputs<AppRouter>["task"]["list"]["rows"][number];

/** The short task id as a link to its run page, and a button that copies the whole id. */
function CopyId({ id }: { id: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <span className="inline-flex items-center gap-1">
      <Link href={`/tasks/${id}`} className="font-mono text-xs text-zinc-700 hover:underline" title={id}>
        {shortId(id)}
      </Link>
      <button
        type="button"
        className="rounded p-0.5 text-zinc-400 hover:bg-zinc-100 hover:text-zinc-800"
        aria-label={`Copy task id ${id}`}
        title={`Copy ${id}`}
        onClick={() => {
          void navigator.clipboard?.writeText(id).then(() => {
            setCopied(true);
            setTimeout(() => setCopied(false), 1_500);
          });
        }}
      >
        {copied ? <Check aria-hidden className="h-3.5 w-3.5 text-emerald-600" /> : <Copy aria-hidden className="h-3.5 w-3.5" />}
      </button>
    </span>
  );
}

/**
 * Active time (the run page header's figure, lib/contracts/run-clock.ts runClock: runs less the time
 * an escalation was open), with the time spent waiting for a human as a second figure when there was any.
 */
function Duration({ row }: { row: TaskRow }) {
  const now = useTickingNow();
  if (!row.startedAt) return <span className="tabular-nums">—</span>;
  const clock = runClock(row, now);
  const active = durationMs(clock.activeMs);
  const waiting = durationMs(clock.waitingMs);
  return (
    <span
      className="inline-flex flex-col tabular-nums"
      data-testid="task-duration"
      suppressHydrationWarning
      title={clock.waitingMs > 0 ? `${active} active · ${waiting} waiting for a human${clock.waiting ? " (now)" : ""}` : `${active} active`}
    >
      <span suppressHydrationWarning>{active}</span>
      {clock.waitingMs > 0 && (
        <span className="text-xs text-zinc-500" suppressHydrationWarning>
          +{waiting} wait
        </span>
      )}
    </span>
  );
}

/** Completed tasks: clean, with alerts, or with gaps (and alerts), under the status badge. */
function Outcome({ row }: { row: TaskRow }) {
  const alerts = `${row.alerts} alert${row.alerts === 1 ? "" : "s"}`;
  if (row.outcome === "completed_with_gaps")
    return (
      <span
        className="rounded bg-amber-100 px-1 text-xs font-medium text-amber-900"
        data-testid="outcome"
        title="Completed, but part of the goal was not done (see the task's result)"
      >
        with gaps{row.alerts > 0 ? ` · ${alerts}` : ""}
      </span>
    );
  if (row.outcome === "with_alerts")
    return (
      <span className="text-xs text-amber-800" data-testid="outcome">
        with {alerts}
      </span>
    );
  if (row.outcome === "clean")
    return (
      <span className="text-xs text-zinc-500" data-testid="outcome">
        clean
      </span>
    );
  return null;
}

const col = createColumnHelper<TaskRow>();

/** The task table's columns (sizes in px; the goal column takes what is left). */
export const columns = [
  col.accessor("id", {
    header: "ID",
    size: 100,
    cell: (c) => (
      <div>
        <CopyId id={c.getValue()} />
        <div className="truncate text-xs text-zinc-500" title={`launched by ${c.row.original.createdBy}`}>
          by <bdi>{c.row.original.createdBy}</bdi>
        </div>
      </div>
    ),
  }),
  col.accessor("status", {
    header: "Status",
    size: 120,
    cell: (c) => (
      <div className="flex flex-col items-start gap-0.5">
        <StatusBadge status={c.getValue()} />
        <Outcome row={c.row.original} />
      </div>
    ),
  }),
  col.accessor("goal", {
    header: "Goal",
    size: 145,
    cell: (c) => (
      <div className="min-w-0">
        <Link
          href={`/tasks/${c.row.original.id}`}
          className="line-clamp-2 font-medium break-words [overflow-wrap:anywhere] text-zinc-900 hover:underline"
          title={c.getValue()}
          dir="auto"
        >
          {c.getValue()}
        </Link>
      </div>
    ),
  }),
  col.accessor("profileName", {
    header: "Profile",
    size: 105,
    cell: (c) => (
      <div className="min-w-0">
        <div className="truncate">
          <bdi>{c.getValue()}</bdi>
        </div>
        <div className="truncate text-xs text-zinc-500">{c.row.original.model}</div>
      </div>
    ),
  }),
  col.display({
    id: "steps",
    header: "Steps / budget",
    size: 95,
    cell: (c) => {
      const r = c.row.original;
      const apart = stepsApartLabel({ checkpoints: r.checkpointSteps, human: r.humanSteps });
      return (
        <div className="min-w-0" title={`Budget steps: ${BUDGET_STEPS_MEANING}`}>
          <span className="tabular-nums">
            {r.stepsUsed} / {r.stepBudget}
          </span>
          {apart && (
            <div className="truncate text-xs text-zinc-500" title={apart}>
              {[r.checkpointSteps ? `+${r.checkpointSteps} ckpt` : "", r.humanSteps ? `+${r.humanSteps} human` : ""].filter(Boolean).join(" ")}
            </div>
          )}
        </div>
      );
    },
  }),
  col.accessor("tokens", {
    header: "Tokens",
    size: 70,
    cell: (c) => (
      <span className="tabular-nums" title={c.getValue().toLocaleString("en-US")}>
        {compactNumber(c.getValue())}
      </span>
    ),
  }),
  col.accessor("costUsd", { header: "Cost", size: 75, cell: (c) => <span className="tabular-nums">{usd(c.getValue())}</span> }),
  col.accessor("createdAt", {
    header: "Started",
    size: 175,
    cell: (c) => (
      <div className="whitespace-nowrap">
        <RelativeTime date={c.row.original.startedAt ?? c.getValue()} />
        <Timestamp className="block font-mono text-xs text-zinc-500" date={c.row.original.startedAt ?? c.getValue()} />
      </div>
    ),
  }),
  col.display({ id: "duration", header: "Duration", size: 70, cell: (c) => <Duration row={c.row.original} /> }),
];

/** The table's least width: the sum of its columns. */
export const TABLE_WIDTH = columns.reduce((sum, c) => sum + (c.size ?? 100), 0);
