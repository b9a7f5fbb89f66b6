"use client";

import { useQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { LivePill, useLiveUpdates } from "@/components/live/use-live-updates.tsx";
import { useEffect } from "react";
import { ago, shortId, usd } from "@/components/tasks/format.ts";
import { exactTitle } from "@/components/ui/timestamp.tsx";
import { RelativeTime } from "@/components/tasks/relative-time.tsx";
import { useTRPC } from "@/components/trpc.tsx";
import { cn } from "@/components/ui/cn.ts";
import { ContextCard, REASON_SHORT } from "./context-card.tsx";
import { secondsLeft, useNow } from "./countdown.ts";
import { useMe } from "@/components/auth/use-me.ts";
import { useReplaceParams } from "@/components/ui/use-replace-params.ts";
import { LoadError } from "@/components/ui/load-error.tsx";

const REASONS = ["loop", "stall", "budget", "saturation", "tool_failure", "request_human", "risky_action", "unresolved_effect", "manual"] as const;
const STATUS_FILTERS = [
  ["open", "Open"],
  ["decided", "Decided"],
  ["all", "All"],
] as const;
type StatusFilter = (typeof STATUS_FILTERS)[number][0];

/**
 * /escalations — the handlers' inbox: open ones by default (SLA breaches on top), filtered by status
 * (open / decided / all), reason and assignee (claimant or role), all in the URL (`status`, `reason`,
 * `assignee`, `id`). Each item: task id, reason, age and due time, the task's cost so far, who is on
 * it or whose role it is; decided ones say who decided what. The selected one's context card on the
 * right. Claims and
 * decisions are the signed-in user's (the header says who that is).
 */
export function EscalationInbox() {
  const trpc = useTRPC();
  const live = useLiveUpdates();
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const me = useMe().data?.name ?? "";
  const statusParam = search.get("status");
  const status: StatusFilter = STATUS_FILTERS.some(([v]) => v === statusParam) ? (statusParam as StatusFilter) : "open";
  const reason = search.get("reason") ?? "";
  const assignee = search.get("assignee") ?? "";
  const setParams = useReplaceParams();
  const list = useQuery({
    ...trpc.escalation.list.queryOptions({ ...(status === "all" ? {} : { status }), ...(reason ? { reason } : {}), ...(assignee ? { assignee } : {}) }),
    placeholderData: (prev) => prev,
    refetchInterval: (q) => (q.state.data?.some((e) => e.status === "decided" || e.status === "applying") ? 2_000 : live === "live" ? 30_000 : 5_000),
  });
  const idParam = search.get("id");
  const selected = idParam ?? list.data?.find((e) => e.status === "open")?.id ?? null;
  // Pin a defaulted selection in the URL, so deciding it (it leaves the open list) keeps its card in view.
  useEffect(() => {
    if (!idParam && selected) router.replace(`${pathname}?${new URLSearchParams([...search.entries(), ["id", selected]]).toString()}`, { scroll: false });
  }, [idParam, selected, router, pathname, search]);
  const openCount = list.data?.filter((e) => e.status === "open").length ?? 0;
  const overdueCount = list.data?.filter((e) => e.overdue).length ?? 0;
  const now = useNow(list.data?.some((e) => e.applyInMs > 0) ?? false, 500);
  const people = [...new Set((list.data ?? []).flatMap((e) => [e.claimedBy, e.assigneeRole]).filter((x): x is string => !!x))].sort();
  const filtered = !!reason || !!assignee;
  return (
    <div className="flex h-screen min-w-0">
      <section className="flex w-[26rem] shrink-0 flex-col border-r border-zinc-200 bg-white" aria-label="Escalations">
        <div className="space-y-2 border-b border-zinc-200 px-4 py-4">
          <div className="flex items-center justify-between">
            <h1 className="text-xl font-semibold">Escalations</h1>
            <LivePill state={live} />
          </div>
          {me && (
            <p className="text-xs text-zinc-600" data-testid="handler-identity">
              Claims and decisions are yours: {me}
            </p>
          )}
          <div className="flex flex-wrap items-end gap-2 text-xs" role="search" aria-label="Filter escalations">
            <div role="radiogroup" aria-label="Status" className="flex overflow-hidden rounded-md border border-zinc-300">
              {STATUS_FILTERS.map(([v, label]) => (
                <button
                  key={v}
                  type="button"
                  role="radio"
                  aria-checked={status === v}
                  onClick={() => setParams({ status: v === "open" ? null : v })}
                  className={cn("px-2.5 py-1", status === v ? "bg-zinc-900 text-white" : "text-zinc-700 hover:bg-zinc-100")}
                >
                  {label}
                </button>
              ))}
            </div>
            <label className="flex flex-col gap-0.5">
              <span className="text-zinc-600">Reason</span>
              <select value={reason} onChange={(e) => setParams({ reason: e.target.value || null })} className="rounded-md border border-zinc-300 px-1.5 py-1">
                <option value="">any</option>
                {REASONS.map((r) => (
                  <option key={r} value={r}>
                    {REASON_SHORT[r] ?? r.replace("_", " ")}
                  </option>
                ))}
              </select>
            </label>
            <label className="flex flex-col gap-0.5">
              <span className="text-zinc-600">Assignee</span>
              <input
                list="escalation-assignees"
                value={assignee}
                onChange={(e) => setParams({ assignee: e.target.value || null })}
                placeholder="name or role"
                className="w-28 rounded-md border border-zinc-300 px-1.5 py-1"
              />
              <datalist id="escalation-assignees">
                {[me, ...people.filter((p) => p !== me)].map((p) => (
                  <option key={p} value={p} />
                ))}
              </datalist>
            </label>
            {filtered && (
              <button type="button" className="py-1 underline" onClick={() => setParams({ reason: null, assignee: null })}>
                Clear
              </button>
            )}
          </div>
          {overdueCount > 0 && <p className="text-xs font-semibold text-red-700">⚠ {overdueCount} past due (SLA breached), on top</p>}
        </div>
        <div className="min-h-0 flex-1 overflow-auto">
          {list.isPending && <div className="m-4 h-24 animate-pulse rounded bg-zinc-200/60" />}
          {list.isError && <LoadError what="escalations" error={list.error} onRetry={() => void list.refetch()} className="m-4" />}
          {list.data && status === "open" && openCount === 0 && (
            <p className="px-4 py-3 text-sm text-emerald-800">{filtered ? "Nothing open matches these filters." : "Inbox zero: nothing waits for a human."}</p>
          )}
          {list.data && status !== "open" && list.data.length === 0 && <p className="px-4 py-3 text-sm text-zinc-600">No escalation matches.</p>}
          <ul>
            {list.data?.map((e) => {
              const overdue = e.overdue;
              const left = e.applyInMs > 0 ? secondsLeft(e.applyInMs, list.dataUpdatedAt, now) : 0;
              return (
                <li key={e.id}>
                  <button
                    type="button"
                    data-escalation-id={e.id}
                    data-status={e.status}
                    onClick={() => setParams({ id: e.id })}
                    className={cn(
                      "block w-full border-b border-l-4 border-b-zinc-100 border-l-transparent px-4 py-3 text-left text-sm hover:bg-zinc-50",
                      selected === e.id && "bg-blue-50",
                      overdue && "border-l-red-600",
                      e.status === "applied" && "opacity-70",
                    )}
                  >
                    <div className="flex items-center justify-between gap-2">
                      <span className="font-medium">{REASON_SHORT[e.reason] ?? e.reason.replace("_", " ")}</span>
                      <span className={cn("text-xs", overdue ? "font-semibold text-red-700" : "text-zinc-500")} title={`due ${exactTitle(e.dueAt)}`}>
                        {e.status === "open"
                          ? overdue
                            ? // After a reminder re-armed dueAt it lies ahead again: still overdue (isEscalationOverdue), with no "for" time.
                              new Date(e.dueAt).getTime() < now
                              ? `⚠ overdue ${ago(e.dueAt).replace(" ago", "")}`
                              : `⚠ overdue (reminded, now with ${e.assigneeRole})`
                            : `due in ${ago(e.dueAt).replace(" ago", "")}`
                          : e.status === "decided" && left > 0
                            ? `${e.decision?.replace("_", " ")}: decided, applies in ${left} s`
                            : e.status === "applied"
                              ? `${e.decision?.replace("_", " ")} by ${e.decidedBy ?? "someone"}`
                              : `${e.decision?.replace("_", " ")}: being applied`}
                      </span>
                    </div>
                    <div className="line-clamp-2 break-words text-zinc-600">{e.message}</div>
                    <div className="mt-0.5 flex flex-wrap gap-x-3 text-xs text-zinc-500">
                      <span className="font-mono" title={e.taskId}>
                        {shortId(e.taskId)}
                      </span>
                      <span>
                        opened <RelativeTime date={e.createdAt} />
                      </span>
                      <span className="tabular-nums" title="The task's spend so far (all runs)">
                        {usd(e.taskCostUsd)} so far
                      </span>
                      <span>{e.claimedBy && e.status === "open" ? "" : `for ${e.assigneeRole}`}</span>
                    </div>
                    <div className="truncate text-xs text-zinc-400" dir="auto">
                      {e.goal}
                    </div>
                    {e.status !== "open" && e.decidedBy && (
                      <div className="mt-0.5 text-xs text-zinc-600">
                        {e.decision?.replace("_", " ")} by {e.decidedBy === me ? "you" : e.decidedBy}
                        {e.decidedAt ? (
                          <>
                            {" "}
                            · <RelativeTime date={e.decidedAt} />
                          </>
                        ) : null}
                      </div>
                    )}
                    {e.claimedBy && e.status === "open" && (
                      <div className="mt-0.5 text-xs font-medium text-blue-800">
                        {e.claimedBy} is on this{e.claimedBy === me ? " (you)" : ""}
                      </div>
                    )}
                  </button>
                </li>
              );
            })}
          </ul>
        </div>
      </section>
      <section className="min-w-0 flex-1 overflow-auto" aria-label="Context card">
        {selected ? <ContextCard key={selected} escalationId={selected} me={me} /> : <p className="p-8 text-sm text-zinc-500">Select an escalation.</p>}
      </section>
    </div>
  );
}
