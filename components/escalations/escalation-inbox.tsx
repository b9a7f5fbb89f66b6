"use client";

import { useQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { LivePill, useLiveUpdates } from "@/components/live/use-live-updates.tsx";
import { pollInterval } from "@/components/live/live-stream.ts";
import { useEffect } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { ContextCard } from "./context-card.tsx";
import { secondsLeft, useNow } from "./countdown.ts";
import { useMe } from "@/components/auth/use-me.ts";
import { useReplaceParams } from "@/components/ui/use-replace-params.ts";
import { LoadError } from "@/components/ui/load-error.tsx";
import { InboxFilters, STATUS_FILTERS, type StatusFilter } from "./inbox/inbox-filters.tsx";
import { InboxItem } from "./inbox/inbox-item.tsx";
import { assigneeFilterOptions } from "@/lib/contracts/escalation.ts";

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
  // Every write to an escalation row (a new one, a claim, a decision, an undo) refreshes the list and the card.
  const live = useLiveUpdates(undefined, { scope: "escalation" });
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
    refetchInterval: (q) =>
      pollInterval(q.state.data?.some((e) => e.status === "decided" || e.status === "applying") ? 2_000 : live === "live" ? 30_000 : 5_000),
    refetchIntervalInBackground: true,
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
  const people = assigneeFilterOptions({ me, claimants: (list.data ?? []).map((e) => e.claimedBy), assignees: (list.data ?? []).map((e) => e.assigneeRole) });
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
          <InboxFilters status={status} reason={reason} assignee={assignee} people={people} setParams={setParams} />
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
              const left = e.applyInMs > 0 ? secondsLeft(e.applyInMs, list.dataUpdatedAt, now) : 0;
              return (
                <li key={e.id}>
                  <InboxItem e={e} selected={selected === e.id} left={left} me={me} onSelect={() => setParams({ id: e.id })} />
                </li>
              );
            })}
          </ul>
        </div>
      </section>
      <section className="min-w-0 flex-1 overflow-auto" aria-label="Context card">
        {selected ? (
          <ContextCard key={selected} escalationId={selected} me={me} live={live} />
        ) : (
          <p className="p-8 text-sm text-zinc-500">Select an escalation.</p>
        )}
      </section>
    </div>
  );
}
