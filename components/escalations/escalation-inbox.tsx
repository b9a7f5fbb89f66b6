"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { LivePill, useLiveUpdates } from "@/components/live/use-live-updates.tsx";
import { ago, usd } from "@/components/tasks/format.ts";
import { useTRPC } from "@/components/trpc.tsx";
import { cn } from "@/components/ui/cn.ts";

const REASONS: Record<string, string> = {
  loop: "Loop: the same tool call with identical arguments, again",
  stall: "Stall: no new fact for several steps",
  budget: "Budget ceiling reached",
  saturation: "Context saturated and compaction cannot make room",
  request_human: "The agent asks for a decision",
  manual: "Escalated by an operator",
};

function ContextCard({ escalationId }: { escalationId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const card = useQuery(trpc.escalation.get.queryOptions({ escalationId }));
  const [guidance, setGuidance] = useState("");
  const [extraSteps, setExtraSteps] = useState("");
  const [deadEndReason, setDeadEndReason] = useState("");
  const decide = useMutation(trpc.escalation.decide.mutationOptions({ onSettled: () => void queryClient.invalidateQueries() }));

  if (card.isError) return <p className="p-6 text-sm text-red-700">Could not load the escalation: {card.error.message}</p>;
  if (!card.data) return <div className="m-6 h-64 animate-pulse rounded bg-zinc-200/60" aria-busy="true" />;
  const e = card.data;
  const open = e.status === "open";
  const steps = extraSteps === "" ? 0 : Number(extraSteps);
  const stepsError = extraSteps !== "" && (!Number.isInteger(steps) || steps < 0 || steps > 100_000) ? "Extra steps: a whole number from 0 to 100000" : null;
  const send = (decision: "resume" | "approve" | "reject" | "dead_end" | "cancel") =>
    decide.mutate({
      escalationId,
      decision,
      guidance: guidance || undefined,
      budgetIncrease: steps > 0 ? { steps } : undefined,
      deadEndReason: decision === "dead_end" ? deadEndReason : undefined,
    });
  return (
    <div className="space-y-5 p-6" data-testid="context-card">
      <div>
        <div className="text-xs uppercase tracking-wide text-zinc-500">{REASONS[e.reason] ?? e.reason}</div>
        <h2 className="mt-1 text-lg font-semibold">{e.message}</h2>
        <p className="mt-1 text-sm text-zinc-600">
          <Link className="underline" href={`/tasks/${e.taskId}`}>
            {e.goal.slice(0, 160)}
          </Link>
        </p>
        <p className="mt-1 text-xs text-zinc-500">
          {e.profile.name} · opened {ago(e.createdAt)} · due {e.dueAt.toLocaleString("en-GB", { hour12: false, timeZoneName: "short" })} · for {e.assigneeRole}
        </p>
      </div>
      <div className="grid grid-cols-3 gap-3 text-sm">
        <div className="rounded border border-zinc-200 p-3">
          <div className="text-xs text-zinc-500">Spent so far</div>
          <div className="font-semibold">{usd(e.spend.usd)}</div>
          {e.spend.wastedUsd > 0 && <div className="text-xs text-zinc-500">{usd(e.spend.wastedUsd)} wasted on retries</div>}
        </div>
        <div className="rounded border border-zinc-200 p-3">
          <div className="text-xs text-zinc-500">Steps</div>
          <div className="font-semibold">
            {e.spend.steps} / {e.spend.stepBudget}
          </div>
        </div>
        <div className="rounded border border-zinc-200 p-3">
          <div className="text-xs text-zinc-500">Checkpoint</div>
          <div className="font-semibold">{e.checkpoint ? `#${e.checkpoint.seq}` : "none (from the start)"}</div>
        </div>
      </div>
      {e.checkpoint?.openQuestion && (
        <p className="rounded bg-zinc-50 p-3 text-sm">
          <span className="font-medium">Open question:</span> {e.checkpoint.openQuestion}
        </p>
      )}
      <div>
        <h3 className="mb-1 text-xs font-medium uppercase tracking-wide text-zinc-500">Last steps</h3>
        <ol className="space-y-1 font-mono text-xs">
          {e.lastSteps.map((s) => (
            <li key={s.stepId} className={cn(s.status === "failed" && "text-red-700")}>
              {s.stepId} {s.summary || s.tool || s.kind}
            </li>
          ))}
        </ol>
      </div>
      <div>
        <h3 className="mb-1 text-xs font-medium uppercase tracking-wide text-zinc-500">Facts changed since the previous checkpoint</h3>
        {e.factDiff.length === 0 ? (
          <p className="text-xs text-zinc-500">None.</p>
        ) : (
          <ul className="max-h-40 overflow-auto font-mono text-xs">
            {e.factDiff.map((c) => (
              <li key={c.key}>
                {c.kind === "added" ? "+" : c.kind === "removed" ? "−" : "~"} {c.key}: {JSON.stringify(c.kind === "removed" ? c.before : c.after).slice(0, 120)}
              </li>
            ))}
          </ul>
        )}
      </div>
      {e.alerts.length > 0 && (
        <div>
          <h3 className="mb-1 text-xs font-medium uppercase tracking-wide text-zinc-500">Alerts</h3>
          <ul className="space-y-1 text-xs">
            {e.alerts.slice(0, 8).map((a, i) => (
              <li key={i}>
                <span className={cn("mr-1 rounded px-1", a.severity === "critical" ? "bg-red-100 text-red-800" : "bg-amber-100 text-amber-900")}>{a.kind}</span>
                {a.message} <span className="text-zinc-400">({a.stepId})</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {open ? (
        <div className="space-y-3 border-t border-zinc-200 pt-4">
          <label htmlFor="guidance" className="block text-sm font-medium">
            Guidance for the agent
          </label>
          <textarea id="guidance" rows={3} className="w-full rounded-md border border-zinc-300 px-3 py-2 text-sm" value={guidance} onChange={(ev) => setGuidance(ev.target.value)} placeholder="What should it do differently?" />
          <div className="flex items-center gap-3">
            <label htmlFor="extraSteps" className="text-sm">
              Extra steps
            </label>
            <input id="extraSteps" inputMode="numeric" className="w-28 rounded-md border border-zinc-300 px-2 py-1 text-sm" value={extraSteps} onChange={(ev) => setExtraSteps(ev.target.value)} placeholder="0" />
            {stepsError && <span className="text-xs text-red-700">{stepsError}</span>}
          </div>
          <div className="flex flex-wrap gap-2">
            <button type="button" className="rounded-md bg-zinc-900 px-4 py-2 text-sm font-medium text-white disabled:opacity-50" disabled={decide.isPending || !!stepsError} onClick={() => send("resume")}>
              Resume
            </button>
            {e.reason === "request_human" && (
              <>
                <button type="button" className="rounded-md border border-emerald-600 px-3 py-2 text-sm text-emerald-800 disabled:opacity-50" disabled={decide.isPending} onClick={() => send("approve")}>
                  Approve
                </button>
                <button type="button" className="rounded-md border border-red-600 px-3 py-2 text-sm text-red-800 disabled:opacity-50" disabled={decide.isPending} onClick={() => send("reject")}>
                  Reject
                </button>
              </>
            )}
            <button type="button" className="rounded-md border border-zinc-300 px-3 py-2 text-sm disabled:opacity-50" disabled={decide.isPending} onClick={() => window.confirm("Cancel this task?") && send("cancel")}>
              Cancel task
            </button>
          </div>
          <div className="flex items-center gap-2">
            <input aria-label="Dead-end reason" className="flex-1 rounded-md border border-zinc-300 px-2 py-1 text-sm" value={deadEndReason} onChange={(ev) => setDeadEndReason(ev.target.value)} placeholder="Why the task cannot be done (required to mark a dead end)" />
            <button type="button" className="rounded-md border border-violet-600 px-3 py-1.5 text-sm text-violet-800 disabled:opacity-50" disabled={decide.isPending || deadEndReason.trim() === ""} onClick={() => send("dead_end")}>
              Mark dead end
            </button>
          </div>
          {decide.isError && (
            <p role="alert" className="text-sm text-red-700">
              {decide.error.message}
            </p>
          )}
        </div>
      ) : (
        <p className="rounded-md border border-zinc-200 bg-zinc-50 p-3 text-sm" data-testid="decided">
          {e.decision ? `${e.decision.replace("_", " ")} by ${e.decidedBy ?? "someone"}` : e.status}
          {e.decidedAt ? ` ${ago(e.decidedAt)}` : ""}
          {e.guidance ? ` — “${e.guidance}”` : ""}
          {e.resultRunId ? " · a new run started" : ""}. The buttons are off because this escalation is already decided.
        </p>
      )}
    </div>
  );
}

/** /escalations — the handlers' inbox: open ones first (most overdue on top), each with its context card. */
export function EscalationInbox() {
  const trpc = useTRPC();
  const live = useLiveUpdates();
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const list = useQuery({ ...trpc.escalation.list.queryOptions({}), refetchInterval: live === "live" ? 30_000 : 5_000 });
  const selected = search.get("id") ?? list.data?.find((e) => e.status === "open")?.id ?? null;
  const openCount = list.data?.filter((e) => e.status === "open").length ?? 0;
  return (
    <div className="flex h-screen">
      <section className="w-96 shrink-0 overflow-auto border-r border-zinc-200 bg-white" aria-label="Escalations">
        <div className="flex items-center justify-between border-b border-zinc-200 px-4 py-4">
          <h1 className="text-xl font-semibold">Escalations</h1>
          <LivePill state={live} />
        </div>
        {list.isPending && <div className="m-4 h-24 animate-pulse rounded bg-zinc-200/60" />}
        {list.isError && <p className="p-4 text-sm text-red-700">Could not load: {list.error.message}</p>}
        {list.data && openCount === 0 && <p className="px-4 py-3 text-sm text-emerald-800">Inbox zero: nothing waits for a human.</p>}
        <ul>
          {list.data?.map((e) => {
            const overdue = e.status === "open" && e.dueAt.getTime() < Date.now();
            return (
              <li key={e.id}>
                <button
                  type="button"
                  data-escalation-id={e.id}
                  onClick={() => router.replace(`${pathname}?id=${e.id}`, { scroll: false })}
                  className={cn("block w-full border-b border-zinc-100 px-4 py-3 text-left text-sm hover:bg-zinc-50", selected === e.id && "bg-blue-50", e.status !== "open" && "opacity-60")}
                >
                  <div className="flex items-center justify-between">
                    <span className="font-medium">{e.reason.replace("_", " ")}</span>
                    <span className={cn("text-xs", overdue ? "font-semibold text-red-700" : "text-zinc-500")}>{e.status === "open" ? (overdue ? "overdue" : `due ${ago(e.dueAt).replace(" ago", "")}`) : e.decision}</span>
                  </div>
                  <div className="line-clamp-2 text-zinc-600">{e.message}</div>
                  <div className="text-xs text-zinc-400">{e.goal.slice(0, 80)}</div>
                </button>
              </li>
            );
          })}
        </ul>
      </section>
      <section className="min-w-0 flex-1 overflow-auto" aria-label="Context card">
        {selected ? <ContextCard key={selected} escalationId={selected} /> : <p className="p-8 text-sm text-zinc-500">Select an escalation.</p>}
      </section>
    </div>
  );
}
