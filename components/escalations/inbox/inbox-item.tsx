"use client";

import type { inferRouterOutputs } from "@trpc/server";
import { ago, shortId, usd } from "@/components/tasks/format.ts";
import { exactTitle } from "@/components/ui/timestamp.tsx";
import { RelativeTime } from "@/components/tasks/relative-time.tsx";
import { cn } from "@/components/ui/cn.ts";
import type { AppRouter } from "@/server/api/root.ts";
import { REASON_SHORT } from "../context-card.tsx";
import { assigneeWords } from "@/lib/contracts/escalation.ts";
import { SafeText, safeAttr } from "@/components/ui/safe-text.tsx";

type InboxEscalation = inferRouterOutputs<AppRouter>["escalation"]["list"][number];

/**
 * One escalation of the inbox list (a button selecting it): reason, due or decision state (`left`:
 * seconds until a decided one applies), message, task id, age, the
 * task's cost so far, who it is for, its goal, who decided or claimed it (`me` reads "you").
 */
export function InboxItem({ e, selected, left, me, onSelect }: { e: InboxEscalation; selected: boolean; left: number; me: string; onSelect: () => void }) {
  const overdue = e.overdue;
  return (
    <button
      type="button"
      data-escalation-id={e.id}
      data-status={e.status}
      onClick={onSelect}
      className={cn(
        "block w-full border-b border-l-4 border-b-zinc-100 border-l-transparent px-4 py-3 text-left text-sm hover:bg-zinc-50",
        selected && "bg-blue-50",
        overdue && "border-l-red-600",
        e.status === "applied" && "opacity-70",
      )}
    >
      <div className="flex items-center justify-between gap-2">
        <span className="font-medium">{REASON_SHORT[e.reason] ?? e.reason.replace("_", " ")}</span>
        <span className={cn("text-xs", overdue ? "font-semibold text-red-700" : "text-zinc-500")} title={`due ${exactTitle(e.dueAt)}`}>
          {e.status === "open"
            ? overdue
              ? // dueAt is when the answer was due (escalationClock), so it lies behind an overdue one.
                `⚠ overdue ${ago(e.dueAt).replace(" ago", "")}${e.phase === "reminders_over" ? " · reminders over" : e.remindersSent ? ` · ${e.remindersSent} reminder${e.remindersSent === 1 ? "" : "s"} sent` : ""}`
              : `due in ${ago(e.dueAt).replace(" ago", "")}`
            : e.status === "decided" && left > 0
              ? `${e.decision?.replace("_", " ")}: decided, applies in ${left} s`
              : e.status === "applied"
                ? `${e.decision?.replace("_", " ")} by ${safeAttr(e.decidedBy ?? "someone")}`
                : `${e.decision?.replace("_", " ")}: being applied`}
        </span>
      </div>
      <div className="line-clamp-2 break-words text-zinc-600">
        <SafeText text={e.message} />
      </div>
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
        <span>{e.claimedBy && e.status === "open" ? "" : `escalated to ${safeAttr(assigneeWords(e.assigneeRole))}`}</span>
      </div>
      <div className="truncate text-xs text-zinc-400" dir="auto">
        <SafeText text={e.goal} />
      </div>
      {e.status !== "open" && e.decidedBy && (
        <div className="mt-0.5 text-xs text-zinc-600">
          {e.decision?.replace("_", " ")} by {e.decidedBy === me ? "you" : <SafeText text={e.decidedBy} />}
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
          <SafeText text={e.claimedBy} /> is on this{e.claimedBy === me ? " (you)" : ""}
        </div>
      )}
    </button>
  );
}
