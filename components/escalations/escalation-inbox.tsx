"use client";

import { useQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { LivePill, useLiveUpdates } from "@/components/live/use-live-updates.tsx";
import { ago } from "@/components/tasks/format.ts";
import { useTRPC } from "@/components/trpc.tsx";
import { cn } from "@/components/ui/cn.ts";
import { ContextCard, REASON_SHORT } from "./context-card.tsx";
import { secondsLeft, useNow } from "./countdown.ts";
import { useMe } from "@/components/auth/use-me.ts";

/**
 * /escalations — the handlers' inbox: open ones first (SLA breaches on top), then decisions waiting
 * out their undo window, then recent ones; who is on each; the selected one's context card. Claims
 * and decisions are the signed-in user's (the header says who that is).
 */
export function EscalationInbox() {
  const trpc = useTRPC();
  const live = useLiveUpdates();
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const me = useMe().data?.name ?? "";
  const list = useQuery({
    ...trpc.escalation.list.queryOptions({}),
    refetchInterval: (q) => (q.state.data?.some((e) => e.status === "decided" || e.status === "applying") ? 2_000 : live === "live" ? 30_000 : 5_000),
  });
  const selected = search.get("id") ?? list.data?.find((e) => e.status === "open")?.id ?? null;
  const openCount = list.data?.filter((e) => e.status === "open").length ?? 0;
  const overdueCount = list.data?.filter((e) => e.overdue).length ?? 0;
  const now = useNow(list.data?.some((e) => e.applyInMs > 0) ?? false, 500);
  return (
    <div className="flex h-screen">
      <section className="w-96 shrink-0 overflow-auto border-r border-zinc-200 bg-white" aria-label="Escalations">
        <div className="space-y-2 border-b border-zinc-200 px-4 py-4">
          <div className="flex items-center justify-between">
            <h1 className="text-xl font-semibold">Escalations</h1>
            <LivePill state={live} />
          </div>
          {me && <p className="text-xs text-zinc-600" data-testid="handler-identity">Claims and decisions are yours: {me}</p>}
          {overdueCount > 0 && <p className="text-xs font-semibold text-red-700">⚠ {overdueCount} past due (SLA breached), on top</p>}
        </div>
        {list.isPending && <div className="m-4 h-24 animate-pulse rounded bg-zinc-200/60" />}
        {list.isError && <p className="p-4 text-sm text-red-700">Could not load: {list.error.message}</p>}
        {list.data && openCount === 0 && <p className="px-4 py-3 text-sm text-emerald-800">Inbox zero: nothing waits for a human.</p>}
        <ul>
          {list.data?.map((e) => {
            const overdue = e.overdue;
            const left = e.applyInMs > 0 ? secondsLeft(e.applyInMs, list.dataUpdatedAt, now) : 0;
            return (
              <li key={e.id}>
                <button
                  type="button"
                  data-escalation-id={e.id}
                  onClick={() => router.replace(`${pathname}?id=${e.id}`, { scroll: false })}
                  className={cn(
                    "block w-full border-b border-l-4 border-b-zinc-100 border-l-transparent px-4 py-3 text-left text-sm hover:bg-zinc-50",
                    selected === e.id && "bg-blue-50",
                    overdue && "border-l-red-600",
                    e.status === "applied" && "opacity-60",
                  )}
                >
                  <div className="flex items-center justify-between">
                    <span className="font-medium">{REASON_SHORT[e.reason] ?? e.reason.replace("_", " ")}</span>
                    <span className={cn("text-xs", overdue ? "font-semibold text-red-700" : "text-zinc-500")} title={e.dueAt.toLocaleString("en-GB", { hour12: false, timeZoneName: "short" })}>
                      {e.status === "open"
                        ? overdue
                          ? `⚠ overdue ${ago(e.dueAt).replace(" ago", "")}`
                          : `due in ${ago(e.dueAt).replace(" ago", "")}`
                        : e.status === "decided" && left > 0
                          ? `${e.decision?.replace("_", " ")}: decided, applies in ${left} s`
                          : e.status === "applied"
                            ? `${e.decision?.replace("_", " ")} by ${e.decidedBy ?? "someone"}`
                            : `${e.decision?.replace("_", " ")}: being applied`}
                    </span>
                  </div>
                  <div className="line-clamp-2 text-zinc-600">{e.message}</div>
                  <div className="text-xs text-zinc-400">{e.goal.slice(0, 80)}</div>
                  {e.claimedBy && e.status !== "applied" && (
                    <div className="mt-0.5 text-xs font-medium text-blue-800">
                      {e.claimedBy} is on this{e.claimedBy === me ? " (you)" : ""}
                    </div>
                  )}
                </button>
              </li>
            );
          })}
        </ul>
      </section>
      <section className="min-w-0 flex-1 overflow-auto" aria-label="Context card">
        {selected ? <ContextCard key={selected} escalationId={selected} me={me} /> : <p className="p-8 text-sm text-zinc-500">Select an escalation.</p>}
      </section>
    </div>
  );
}
