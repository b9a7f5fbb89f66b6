"use client";

import { keepPreviousData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useCallback, useMemo } from "react";
import { holdsAny, useMe } from "@/components/auth/use-me.ts";
import { LivePill, useLiveUpdates } from "@/components/live/use-live-updates.tsx";
import { pollInterval } from "@/components/live/live-stream.ts";
import { useTRPC } from "@/components/trpc.tsx";
import { LoadError } from "@/components/ui/load-error.tsx";
import { TaskFilters } from "./list/task-filters.tsx";
import { TaskTable } from "./list/task-table.tsx";
import { BulkActionBar } from "./list/bulk-action-bar.tsx";
import { useTaskListParams } from "./list/use-task-list-params.ts";
import { useTaskSelection } from "./list/use-task-selection.ts";

const launchButton = "shrink-0 rounded-md bg-zinc-900 px-4 py-2 text-sm font-medium text-white hover:bg-zinc-800";

/**
 * /tasks — every task, filtered and searched on the server (status, profile, outcome, launch date
 * range, launched since an instant, text over goal and id; all in the URL: `status`, `profile`,
 * `outcome`, `from`, `to`, `since`, `q`,
 * `sort`; list/use-task-list-params.ts), keyset-paged as you scroll (virtualised rows,
 * list/task-table.tsx). The table is as wide as its columns and scrolls sideways inside itself,
 * never the page.
 */
export function TaskList() {
  const trpc = useTRPC();
  const live = useLiveUpdates();
  const p = useTaskListParams();
  const tasks = useInfiniteQuery({
    ...trpc.task.list.infiniteQueryOptions(p.input, { getNextPageParam: (last) => last.nextCursor ?? undefined }),
    placeholderData: keepPreviousData,
    refetchInterval: () => pollInterval(live === "live" ? 30_000 : 5_000),
    refetchIntervalInBackground: true,
  });
  const profiles = useQuery(trpc.task.profiles.queryOptions());
  const rows = useMemo(() => tasks.data?.pages.flatMap((page) => page.rows) ?? [], [tasks.data]);
  /** Launching needs the operator role: the links to the launch form are for operators only. */
  const roles = useMe().data?.roles;
  const mayLaunch = holdsAny(roles, ["operator"]);
  /** Resuming and cancelling many: operators (their own tasks, the server skips the rest) and admins. */
  const mayAct = holdsAny(roles, ["operator", "admin"]);
  const { limit: _limit, sort: _sort, ...filter } = p.input;
  const selection = useTaskSelection(JSON.stringify(filter));
  const total = tasks.data?.pages[0]?.total ?? 0;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = tasks;
  const onNearEnd = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  return (
    <div className="flex h-screen min-w-0 flex-col px-4 pt-6 pb-4 lg:px-8">
      <div className="mb-4 flex flex-wrap items-center justify-between gap-4">
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="text-2xl font-semibold tracking-tight">Tasks</h1>
          <LivePill state={live} />
          <span className="hidden text-xs text-zinc-400 lg:inline" aria-hidden>
            j/k select · Enter opens
          </span>
          {tasks.data && (
            <span className="text-sm text-zinc-500" data-testid="task-count">
              {total.toLocaleString("en-US")} {p.filtered ? "matching" : ""} task{total === 1 ? "" : "s"}
            </span>
          )}
        </div>
        {mayLaunch && (
          <Link href="/tasks/new" className={launchButton}>
            Launch task
          </Link>
        )}
      </div>

      <TaskFilters p={p} profiles={profiles.data ?? []} />
      {mayAct && <BulkActionBar selection={selection} filter={filter} total={total} filtered={p.filtered} />}

      {tasks.isError && <LoadError what="tasks" error={tasks.error} onRetry={() => void tasks.refetch()} />}
      {tasks.isPending ? (
        <div aria-busy="true" className="space-y-2">
          {Array.from({ length: 6 }, (_, i) => (
            <div key={i} className="h-12 animate-pulse rounded-md bg-zinc-200/60" />
          ))}
        </div>
      ) : rows.length === 0 && !p.filtered ? (
        <div className="rounded-lg border border-dashed border-zinc-300 bg-white p-12 text-center">
          <p className="text-zinc-600">No tasks yet.</p>
          {mayLaunch ? (
            <Link href="/tasks/new" className={`mt-4 inline-block ${launchButton}`}>
              Launch your first task
            </Link>
          ) : (
            <p className="mt-2 text-sm text-zinc-500">Launching a task needs the operator role.</p>
          )}
        </div>
      ) : rows.length === 0 ? (
        <div className="rounded-lg border border-dashed border-zinc-300 bg-white p-10 text-center text-sm text-zinc-600" data-testid="filtered-empty">
          No task matches these filters.{" "}
          <button type="button" className="font-medium underline" onClick={() => p.clear(false)}>
            Clear filters
          </button>
        </div>
      ) : (
        <TaskTable rows={rows} total={total} onNearEnd={onNearEnd} fetchingMore={isFetchingNextPage} selection={mayAct ? selection : undefined} />
      )}
    </div>
  );
}
