"use client";

import { useQuery } from "@tanstack/react-query";
import { formatDistanceToNowStrict, formatDuration, intervalToDuration } from "date-fns";
import Link from "next/link";
import { LivePill, useLiveUpdates } from "@/components/live/use-live-updates.tsx";
import { StatusBadge } from "@/components/ui/status-badge.tsx";
import { useTRPC } from "@/components/trpc.tsx";

function duration(start: Date | null, end: Date | null): string {
  if (!start) return "—";
  const d = intervalToDuration({ start, end: end ?? new Date() });
  return formatDuration(d, { format: ["hours", "minutes", "seconds"], zero: false }) || "0 seconds";
}

export function TaskList() {
  const trpc = useTRPC();
  const live = useLiveUpdates();
  const tasks = useQuery({ ...trpc.task.list.queryOptions({ limit: 100 }), refetchInterval: live === "live" ? 30_000 : 5_000 });

  return (
    <div className="p-8">
      <div className="mb-6 flex items-center justify-between">
        <div className="flex items-center gap-3">
          <h1 className="text-2xl font-semibold tracking-tight">Tasks</h1>
          <LivePill state={live} />
        </div>
        <Link href="/tasks/new" className="rounded-md bg-zinc-900 px-4 py-2 text-sm font-medium text-white hover:bg-zinc-800">
          Launch task
        </Link>
      </div>
      {tasks.isError && (
        <div role="alert" className="mb-4 flex items-center justify-between rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
          <span>Could not load tasks: {tasks.error.message}</span>
          <button className="font-medium underline" onClick={() => void tasks.refetch()}>
            Retry
          </button>
        </div>
      )}
      {tasks.isPending ? (
        <div aria-busy="true" className="space-y-2">
          {Array.from({ length: 5 }, (_, i) => (
            <div key={i} className="h-12 animate-pulse rounded-md bg-zinc-200/60" />
          ))}
        </div>
      ) : tasks.data && tasks.data.rows.length === 0 ? (
        <div className="rounded-lg border border-dashed border-zinc-300 bg-white p-12 text-center">
          <p className="text-zinc-600">No tasks yet.</p>
          <Link href="/tasks/new" className="mt-4 inline-block rounded-md bg-zinc-900 px-4 py-2 text-sm font-medium text-white">
            Launch your first task
          </Link>
        </div>
      ) : (
        <div className="overflow-hidden rounded-lg border border-zinc-200 bg-white">
          <table className="w-full text-sm">
            <thead className="bg-zinc-50 text-left text-xs uppercase tracking-wide text-zinc-500">
              <tr>
                <th className="px-4 py-2 font-medium">Status</th>
                <th className="px-4 py-2 font-medium">Goal</th>
                <th className="px-4 py-2 font-medium">Steps / budget</th>
                <th className="px-4 py-2 font-medium">Tokens</th>
                <th className="px-4 py-2 font-medium">Started</th>
                <th className="px-4 py-2 font-medium">Duration</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100">
              {tasks.data?.rows.map((t) => (
                <tr key={t.id} className="hover:bg-zinc-50" data-task-id={t.id}>
                  <td className="px-4 py-3 whitespace-nowrap">
                    <StatusBadge status={t.status} />
                  </td>
                  <td className="max-w-xl px-4 py-3">
                    <Link href={`/tasks/${t.id}`} className="line-clamp-2 font-medium text-zinc-900 hover:underline">
                      {t.goal}
                    </Link>
                    <div className="text-xs text-zinc-500">
                      {t.profileName} · {t.model}
                    </div>
                  </td>
                  <td className="px-4 py-3 tabular-nums">
                    {t.stepsUsed} / {t.stepBudget}
                  </td>
                  <td className="px-4 py-3 tabular-nums">{t.tokens.toLocaleString("en-US")}</td>
                  <td className="px-4 py-3 whitespace-nowrap" title={t.startedAt?.toISOString()}>
                    {t.startedAt ? `${formatDistanceToNowStrict(t.startedAt)} ago` : "—"}
                  </td>
                  <td className="px-4 py-3 whitespace-nowrap">{duration(t.startedAt, t.endedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
