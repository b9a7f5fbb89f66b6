"use client";

import { LoadError } from "@/components/ui/load-error.tsx";
import { keepPreviousData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { createColumnHelper, flexRender, getCoreRowModel, useReactTable } from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import type { inferRouterOutputs } from "@trpc/server";
import { Check, Copy } from "lucide-react";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { holdsAny, useMe } from "@/components/auth/use-me.ts";
import { LivePill, useLiveUpdates } from "@/components/live/use-live-updates.tsx";
import { useTRPC } from "@/components/trpc.tsx";
import { StatusBadge } from "@/components/ui/status-badge.tsx";
import { cn } from "@/components/ui/cn.ts";
import type { AppRouter } from "@/server/api/root.ts";
import { compactNumber, elapsed, shortId, usd } from "./format.ts";
import { Timestamp } from "@/components/ui/timestamp.tsx";
import { FAILURE_CLASSES, FAILURE_LABELS } from "@/lib/contracts/failure.ts";
import { RelativeTime, useTickingNow } from "./relative-time.tsx";

type TaskRow = inferRouterOutputs<AppRouter>["task"]["list"]["rows"][number];

const STATUS_OPTIONS = [
  ["queued", "Queued"],
  ["running", "Running"],
  ["waiting_for_human", "Waiting on human"],
  ["completed", "Completed"],
  ["dead_end", "Dead end"],
  ["failed", "Failed"],
  ["cancelled", "Cancelled"],
] as const;
type StatusValue = (typeof STATUS_OPTIONS)[number][0];
const OUTCOME_OPTIONS = [
  ["clean", "Completed clean"],
  ["with_alerts", "Completed with alerts"],
  ["completed_with_gaps", "Completed with gaps"],
] as const;
type OutcomeValue = (typeof OUTCOME_OPTIONS)[number][0];
const ROW_HEIGHT = 60;
const DAY_MS = 86_400_000;

/** "YYYY-MM-DD" → midnight UTC of that day; null when not such a date. */
function dayStart(value: string | null): Date | null {
  if (!value || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const d = new Date(`${value}T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? null : d;
}

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

function Duration({ row }: { row: TaskRow }) {
  const now = useTickingNow();
  return <span className="tabular-nums">{elapsed(row.startedAt, row.endedAt, now)}</span>;
}

const col = createColumnHelper<TaskRow>();
const columns = [
  col.accessor("id", {
    header: "ID",
    size: 110,
    cell: (c) => (
      <div>
        <CopyId id={c.getValue()} />
        <div className="truncate text-xs text-zinc-500" title={`launched by ${c.row.original.createdBy}`}>
          by {c.row.original.createdBy}
        </div>
      </div>
    ),
  }),
  col.accessor("status", {
    header: "Status",
    size: 165,
    cell: (c) => (
      <div className="flex flex-col items-start gap-0.5">
        <StatusBadge status={c.getValue()} />
        {c.row.original.outcome === "completed_with_gaps" && (
          <span
            className="rounded bg-amber-100 px-1 text-xs font-medium text-amber-900"
            data-testid="outcome"
            title="Completed, but part of the goal was not done (see the task's result)"
          >
            with gaps{c.row.original.alerts > 0 ? ` · ${c.row.original.alerts} alert${c.row.original.alerts === 1 ? "" : "s"}` : ""}
          </span>
        )}
        {c.row.original.outcome === "with_alerts" && (
          <span className="text-xs text-amber-800" data-testid="outcome">
            with {c.row.original.alerts} alert{c.row.original.alerts === 1 ? "" : "s"}
          </span>
        )}
        {c.row.original.outcome === "clean" && (
          <span className="text-xs text-zinc-500" data-testid="outcome">
            clean
          </span>
        )}
      </div>
    ),
  }),
  col.accessor("goal", {
    header: "Goal",
    size: 280,
    cell: (c) => (
      <div className="min-w-0">
        <Link href={`/tasks/${c.row.original.id}`} className="line-clamp-2 font-medium break-words text-zinc-900 hover:underline" title={c.getValue()}>
          {c.getValue()}
        </Link>
      </div>
    ),
  }),
  col.accessor("profileName", {
    header: "Profile",
    size: 130,
    cell: (c) => (
      <div className="min-w-0">
        <div className="truncate">{c.getValue()}</div>
        <div className="truncate text-xs text-zinc-500">{c.row.original.model}</div>
      </div>
    ),
  }),
  col.display({
    id: "steps",
    header: "Steps / budget",
    size: 120,
    cell: (c) => (
      <span className="tabular-nums">
        {c.row.original.stepsUsed} / {c.row.original.stepBudget}
      </span>
    ),
  }),
  col.accessor("tokens", {
    header: "Tokens",
    size: 80,
    cell: (c) => (
      <span className="tabular-nums" title={c.getValue().toLocaleString("en-US")}>
        {compactNumber(c.getValue())}
      </span>
    ),
  }),
  col.accessor("costUsd", { header: "Cost", size: 80, cell: (c) => <span className="tabular-nums">{usd(c.getValue())}</span> }),
  col.accessor("createdAt", {
    header: "Started",
    size: 180,
    cell: (c) => (
      <div className="whitespace-nowrap">
        <RelativeTime date={c.row.original.startedAt ?? c.getValue()} />
        <Timestamp className="block font-mono text-xs text-zinc-500" date={c.row.original.startedAt ?? c.getValue()} />
      </div>
    ),
  }),
  col.display({ id: "duration", header: "Duration", size: 90, cell: (c) => <Duration row={c.row.original} /> }),
];
const TABLE_WIDTH = columns.reduce((sum, c) => sum + (c.size ?? 100), 0);

/**
 * /tasks — every task, filtered and searched on the server (status, profile, outcome, launch date
 * range, text over goal and id; all in the URL: `status`, `profile`, `outcome`, `from`, `to`, `q`,
 * `sort`), keyset-paged as you scroll (virtualised rows). The table is as wide as its columns and
 * scrolls sideways inside itself, never the page.
 */
export function TaskList() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const live = useLiveUpdates();

  const status = (search.get("status") ?? "").split(",").filter((s): s is StatusValue => STATUS_OPTIONS.some(([v]) => v === s));
  const profile = search.get("profile") ?? "";
  const outcomeParam = search.get("outcome");
  const outcome = OUTCOME_OPTIONS.some(([v]) => v === outcomeParam) ? (outcomeParam as OutcomeValue) : undefined;
  const model = search.get("model") ?? "";
  const failureParam = search.get("failure");
  const failure = FAILURE_CLASSES.find((c) => c === failureParam);
  const fromDay = search.get("from") ?? "";
  const toDay = search.get("to") ?? "";
  const q = search.get("q") ?? "";
  const sort = search.get("sort") === "oldest" ? "oldest" : "newest";
  const from = dayStart(fromDay);
  const toStart = dayStart(toDay);
  const filtered = status.length > 0 || !!profile || !!model || !!failure || !!outcome || !!from || !!toStart || !!q;

  const setParam = useCallback(
    (next: Record<string, string | null>) => {
      const params = new URLSearchParams(search.toString());
      for (const [k, v] of Object.entries(next)) {
        if (v) params.set(k, v);
        else params.delete(k);
      }
      const qs = params.toString();
      router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
    },
    [router, pathname, search],
  );

  // The search box updates the URL 300 ms after typing stops.
  const [qDraft, setQDraft] = useState(q);
  useEffect(() => setQDraft(q), [q]);
  useEffect(() => {
    if (qDraft === q) return;
    const t = setTimeout(() => setParam({ q: qDraft.trim() || null }), 300);
    return () => clearTimeout(t);
  }, [qDraft, q, setParam]);

  const input = {
    limit: 100,
    sort,
    ...(status.length ? { status } : {}),
    ...(profile ? { profile } : {}),
    ...(outcome ? { outcome } : {}),
    ...(model ? { model } : {}),
    ...(failure ? { failure } : {}),
    ...(from ? { from } : {}),
    ...(toStart ? { to: new Date(toStart.getTime() + DAY_MS) } : {}),
    ...(q ? { q } : {}),
  } as const;
  const tasks = useInfiniteQuery({
    ...trpc.task.list.infiniteQueryOptions(input, { getNextPageParam: (last) => last.nextCursor ?? undefined }),
    placeholderData: keepPreviousData,
    refetchInterval: live === "live" ? 30_000 : 5_000,
  });
  const profiles = useQuery(trpc.task.profiles.queryOptions());
  const rows = useMemo(() => tasks.data?.pages.flatMap((p) => p.rows) ?? [], [tasks.data]);
  /** Launching needs the operator role: the links to the launch form are for operators only. */
  const mayLaunch = holdsAny(useMe().data?.roles, ["operator"]);
  const total = tasks.data?.pages[0]?.total ?? 0;

  const table = useReactTable({ data: rows, columns, getCoreRowModel: getCoreRowModel(), getRowId: (r) => r.id });
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_HEIGHT, overscan: 10 });
  const items = virtualizer.getVirtualItems();
  const lastItem = items.at(-1);
  useEffect(() => {
    if (lastItem && lastItem.index >= rows.length - 20 && tasks.hasNextPage && !tasks.isFetchingNextPage) void tasks.fetchNextPage();
  }, [lastItem, rows.length, tasks]);

  // j/k move the selection through the list (scrolling it into view), Enter opens the selected task.
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const selectedIndex = selectedId ? rows.findIndex((r) => r.id === selectedId) : -1;
  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      const target = e.target as HTMLElement | null;
      if (target && (["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName) || target.isContentEditable)) return;
      if (e.metaKey || e.ctrlKey || e.altKey || rows.length === 0) return;
      if (e.key === "j" || e.key === "k") {
        const next = selectedIndex < 0 ? 0 : e.key === "j" ? Math.min(rows.length - 1, selectedIndex + 1) : Math.max(0, selectedIndex - 1);
        setSelectedId(rows[next]!.id);
        virtualizer.scrollToIndex(next, { align: "auto" });
        e.preventDefault();
      } else if (e.key === "Enter" && selectedIndex >= 0 && !(target && ["A", "BUTTON"].includes(target.tagName))) {
        e.preventDefault();
        router.push(`/tasks/${rows[selectedIndex]!.id}`);
      }
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [rows, selectedIndex, virtualizer, router]);

  const padTop = items[0]?.start ?? 0;
  const padBottom = lastItem ? virtualizer.getTotalSize() - lastItem.end : 0;
  const tableRows = table.getRowModel().rows;

  return (
    <div className="flex h-screen min-w-0 flex-col px-8 pt-6 pb-4">
      <div className="mb-4 flex items-center justify-between gap-4">
        <div className="flex items-center gap-3">
          <h1 className="text-2xl font-semibold tracking-tight">Tasks</h1>
          <LivePill state={live} />
          <span className="hidden text-xs text-zinc-400 lg:inline" aria-hidden>
            j/k select · Enter opens
          </span>
          {tasks.data && (
            <span className="text-sm text-zinc-500" data-testid="task-count">
              {total.toLocaleString("en-US")} {filtered ? "matching" : ""} task{total === 1 ? "" : "s"}
            </span>
          )}
        </div>
        {mayLaunch && (
          <Link href="/tasks/new" className="shrink-0 rounded-md bg-zinc-900 px-4 py-2 text-sm font-medium text-white hover:bg-zinc-800">
            Launch task
          </Link>
        )}
      </div>

      <form role="search" aria-label="Filter tasks" className="mb-3 flex flex-wrap items-end gap-3 text-sm" onSubmit={(e) => e.preventDefault()}>
        <label className="flex w-72 flex-col gap-1">
          <span className="text-xs font-medium text-zinc-600">Search goal or id</span>
          <input
            type="search"
            value={qDraft}
            onChange={(e) => setQDraft(e.target.value)}
            placeholder="e.g. license audit, or 7p2qk9d"
            className="rounded-md border border-zinc-300 px-2.5 py-1.5"
          />
        </label>
        <label className="flex flex-col gap-1">
          <span className="text-xs font-medium text-zinc-600">Status</span>
          <select
            value={status.join(",")}
            onChange={(e) => setParam({ status: e.target.value || null })}
            className="w-52 rounded-md border border-zinc-300 px-2 py-1.5"
          >
            <option value="">Any status</option>
            {STATUS_OPTIONS.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
            <option value="running,waiting_for_human,queued">Active (not ended)</option>
            <option value="failed,dead_end,cancelled">Ended without result</option>
          </select>
        </label>
        <label className="flex flex-col gap-1">
          <span className="text-xs font-medium text-zinc-600">Profile</span>
          <select value={profile} onChange={(e) => setParam({ profile: e.target.value || null })} className="rounded-md border border-zinc-300 px-2 py-1.5">
            <option value="">Any profile</option>
            {(profiles.data ?? (profile ? [profile] : [])).map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1">
          <span className="text-xs font-medium text-zinc-600">Outcome</span>
          <select
            value={outcome ?? ""}
            onChange={(e) => setParam({ outcome: e.target.value || null })}
            className="rounded-md border border-zinc-300 px-2 py-1.5"
          >
            <option value="">Any outcome</option>
            {OUTCOME_OPTIONS.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1">
          <span className="text-xs font-medium text-zinc-600">Failure</span>
          <select
            value={failure ?? ""}
            onChange={(e) => setParam({ failure: e.target.value || null })}
            className="rounded-md border border-zinc-300 px-2 py-1.5"
          >
            <option value="">Any failure</option>
            {FAILURE_CLASSES.map((c) => (
              <option key={c} value={c}>
                {FAILURE_LABELS[c]}
              </option>
            ))}
          </select>
        </label>
        {model && (
          <span className="flex flex-col gap-1" data-testid="model-filter">
            <span className="text-xs font-medium text-zinc-600">Model (latest call)</span>
            <span className="flex items-center gap-1 rounded-md border border-zinc-300 bg-zinc-50 px-2 py-1.5 font-mono text-xs">
              {model}
              <button
                type="button"
                aria-label={`Remove the model filter ${model}`}
                className="text-zinc-500 hover:text-zinc-900"
                onClick={() => setParam({ model: null })}
              >
                ×
              </button>
            </span>
          </span>
        )}
        <label className="flex flex-col gap-1">
          <span className="text-xs font-medium text-zinc-600">Launched from (UTC)</span>
          <input
            type="date"
            value={fromDay}
            onChange={(e) => setParam({ from: e.target.value || null })}
            className="rounded-md border border-zinc-300 px-2 py-1"
          />
        </label>
        <label className="flex flex-col gap-1">
          <span className="text-xs font-medium text-zinc-600">to (UTC, inclusive)</span>
          <input type="date" value={toDay} onChange={(e) => setParam({ to: e.target.value || null })} className="rounded-md border border-zinc-300 px-2 py-1" />
        </label>
        <label className="flex flex-col gap-1">
          <span className="text-xs font-medium text-zinc-600">Sort</span>
          <select
            value={sort}
            onChange={(e) => setParam({ sort: e.target.value === "oldest" ? "oldest" : null })}
            className="rounded-md border border-zinc-300 px-2 py-1.5"
          >
            <option value="newest">Newest first</option>
            <option value="oldest">Oldest first</option>
          </select>
        </label>
        {filtered && (
          <button
            type="button"
            className="rounded-md px-2 py-1.5 text-zinc-600 underline hover:text-zinc-900"
            onClick={() => router.replace(sort === "oldest" ? `${pathname}?sort=oldest` : pathname, { scroll: false })}
          >
            Clear filters
          </button>
        )}
      </form>

      {tasks.isError && <LoadError what="tasks" message={tasks.error.message} onRetry={() => void tasks.refetch()} />}
      {tasks.isPending ? (
        <div aria-busy="true" className="space-y-2">
          {Array.from({ length: 6 }, (_, i) => (
            <div key={i} className="h-12 animate-pulse rounded-md bg-zinc-200/60" />
          ))}
        </div>
      ) : rows.length === 0 && !filtered ? (
        <div className="rounded-lg border border-dashed border-zinc-300 bg-white p-12 text-center">
          <p className="text-zinc-600">No tasks yet.</p>
          {mayLaunch ? (
            <Link href="/tasks/new" className="mt-4 inline-block rounded-md bg-zinc-900 px-4 py-2 text-sm font-medium text-white">
              Launch your first task
            </Link>
          ) : (
            <p className="mt-2 text-sm text-zinc-500">Launching a task needs the operator role.</p>
          )}
        </div>
      ) : rows.length === 0 ? (
        <div className="rounded-lg border border-dashed border-zinc-300 bg-white p-10 text-center text-sm text-zinc-600" data-testid="filtered-empty">
          No task matches these filters.{" "}
          <button type="button" className="font-medium underline" onClick={() => router.replace(pathname, { scroll: false })}>
            Clear filters
          </button>
        </div>
      ) : (
        <div ref={scrollRef} className="min-h-0 flex-1 overflow-auto rounded-lg border border-zinc-200 bg-white" data-testid="task-table-scroll">
          <table className="w-full table-fixed text-sm" style={{ minWidth: TABLE_WIDTH }} aria-rowcount={total}>
            <colgroup>
              {table.getFlatHeaders().map((h) => (
                // The goal column takes whatever width is left beyond the others' (at least its own size, via the table's min width).
                <col key={h.id} style={h.id === "goal" ? undefined : { width: h.getSize() }} />
              ))}
            </colgroup>
            <thead className="sticky top-0 z-10 bg-zinc-50 text-left text-xs tracking-wide text-zinc-500 uppercase shadow-[0_1px_0_#e4e4e7]">
              {table.getHeaderGroups().map((g) => (
                <tr key={g.id}>
                  {g.headers.map((h) => (
                    <th key={h.id} scope="col" className="truncate px-3 py-2 font-medium whitespace-nowrap">
                      {flexRender(h.column.columnDef.header, h.getContext())}
                    </th>
                  ))}
                </tr>
              ))}
            </thead>
            <tbody>
              {padTop > 0 && (
                <tr aria-hidden>
                  <td colSpan={columns.length} style={{ height: padTop }} />
                </tr>
              )}
              {items.map((item) => {
                const row = tableRows[item.index];
                if (!row) return null;
                return (
                  <tr
                    key={row.id}
                    data-task-id={row.id}
                    aria-selected={row.id === selectedId}
                    onClick={() => setSelectedId(row.id)}
                    className={cn(
                      "border-b border-zinc-100 align-top hover:bg-zinc-50",
                      row.id === selectedId && "bg-sky-50 shadow-[inset_3px_0_0_#0284c7] hover:bg-sky-50",
                    )}
                    style={{ height: ROW_HEIGHT }}
                  >
                    {row.getVisibleCells().map((cell) => (
                      <td key={cell.id} className="overflow-hidden px-3 py-2">
                        {flexRender(cell.column.columnDef.cell, cell.getContext())}
                      </td>
                    ))}
                  </tr>
                );
              })}
              {padBottom > 0 && (
                <tr aria-hidden>
                  <td colSpan={columns.length} style={{ height: padBottom }} />
                </tr>
              )}
            </tbody>
          </table>
          {tasks.isFetchingNextPage && <p className="px-4 py-2 text-xs text-zinc-500">Loading more…</p>}
        </div>
      )}
    </div>
  );
}
