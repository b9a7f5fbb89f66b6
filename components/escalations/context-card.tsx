"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ago, usd } from "@/components/tasks/format.ts";
import { useTRPC } from "@/components/trpc.tsx";
import { cn } from "@/components/ui/cn.ts";
import { JsonView } from "@/components/ui/json-view.tsx";
import { DECIDED_VERB, secondsLeft, useNow } from "./countdown.ts";

/** Undo window the inbox gives every decision (seconds). */
export const UI_UNDO_SECONDS = 10;

const REASONS: Record<string, string> = {
  loop: "Loop: the same tool call with identical arguments, again",
  stall: "Stall: no new fact for several steps",
  budget: "Budget ceiling reached",
  saturation: "Context saturated and compaction cannot make room",
  request_human: "The agent asks for a decision",
  risky_action: "Approval needed: a risky action",
  manual: "Escalated by an operator",
};

type Decision = "resume" | "approve" | "reject" | "dead_end" | "cancel";

const absolute = (d: Date) => d.toLocaleString("en-GB", { hour12: false, timeZoneName: "short" });

/**
 * The context card of one escalation: what stopped the run and why (evidence, the proposed call of a
 * risky action, open question, last steps, fact diff, alerts, spend), who is on it (claim / take
 * over / release), the decision buttons, and once decided the undo banner with its countdown. When
 * the escalation is no longer open the buttons are disabled and the card says who decided what, when.
 */
export function ContextCard({ escalationId, me }: { escalationId: string; me: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const card = useQuery({
    ...trpc.escalation.get.queryOptions({ escalationId }),
    // Live updates cover tasks only: poll, faster while a decision waits out its window or is applied.
    refetchInterval: (q) => (q.state.data?.status === "applied" ? 30_000 : q.state.data?.status === "open" ? 5_000 : 1_000),
  });
  const [guidance, setGuidance] = useState("");
  const [extraSteps, setExtraSteps] = useState("");
  const [deadEndReason, setDeadEndReason] = useState("");
  const [rejectReason, setRejectReason] = useState("");
  const refresh = () => void queryClient.invalidateQueries();
  const decide = useMutation(trpc.escalation.decide.mutationOptions({ onSettled: refresh }));
  const undo = useMutation(trpc.escalation.undo.mutationOptions({ onSettled: refresh }));
  const claim = useMutation(trpc.escalation.claim.mutationOptions({ onSettled: refresh }));
  const release = useMutation(trpc.escalation.release.mutationOptions({ onSettled: refresh }));
  const e = card.data;
  const waiting = e?.status === "decided" && e.applyInMs > 0;
  const now = useNow(waiting);

  if (card.isError) return <p className="p-6 text-sm text-red-700">Could not load the escalation: {card.error.message}</p>;
  if (!e) return <div className="m-6 h-64 animate-pulse rounded bg-zinc-200/60" aria-busy="true" />;
  const open = e.status === "open";
  const busy = decide.isPending || undo.isPending;
  const steps = extraSteps === "" ? 0 : Number(extraSteps);
  const stepsError = extraSteps !== "" && (!Number.isInteger(steps) || steps < 0 || steps > 100_000) ? "Extra steps: a whole number from 0 to 100000" : null;
  const send = (decision: Decision) => {
    decide.reset();
    undo.reset();
    decide.mutate({
      escalationId,
      decision,
      guidance: (decision === "reject" ? rejectReason || guidance : guidance) || undefined,
      budgetIncrease: steps > 0 ? { steps } : undefined,
      deadEndReason: decision === "dead_end" ? deadEndReason : undefined,
      undoSeconds: UI_UNDO_SECONDS,
    });
  };
  const left = waiting ? secondsLeft(e.applyInMs, card.dataUpdatedAt, now) : 0;
  const mine = e.decidedBy === me;
  const who = mine ? "you" : (e.decidedBy ?? "someone");
  const risky = e.proposedCall !== null;
  const error = decide.error ?? undo.error ?? claim.error ?? release.error;

  return (
    <div className="space-y-5 p-6" data-testid="context-card">
      {e.status === "decided" && (
        <div role="status" aria-live="polite" data-testid="undo-banner" className="sticky top-0 z-10 flex items-center justify-between gap-3 rounded-md border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-950 shadow-sm">
          <span>
            {DECIDED_VERB[e.decision ?? ""] ?? e.decision} by {who} — {/* The ticking countdown is hidden from screen readers; they hear the deadline once (throttled live region). */}
            <span aria-hidden="true">{left > 0 ? `decided, applies in ${left} s` : "applying now…"}</span>
            <span className="sr-only">{left > 0 && e.applyAfter ? `decided; undo possible until ${absolute(e.applyAfter)}` : "applying now"}</span>
          </span>
          {left > 0 && (
            <button type="button" className="rounded-md border border-amber-600 bg-white px-3 py-1 text-sm font-medium text-amber-900 disabled:opacity-50" disabled={undo.isPending} onClick={() => undo.mutate({ escalationId })}>
              Undo ({left} s)
            </button>
          )}
        </div>
      )}

      <div>
        <div className="flex items-center gap-2 text-xs uppercase tracking-wide text-zinc-500">
          {REASONS[e.reason] ?? e.reason}
          {e.overdue && <span className="rounded bg-red-100 px-1.5 py-0.5 font-semibold normal-case text-red-800">⚠ Overdue (was due {ago(e.dueAt)})</span>}
        </div>
        <h2 className="mt-1 text-lg font-semibold">{e.message}</h2>
        <p className="mt-1 text-sm text-zinc-600">
          <Link className="underline" href={`/tasks/${e.taskId}`}>
            {e.goal.slice(0, 160)}
          </Link>
        </p>
        <p className="mt-1 text-xs text-zinc-500">
          {e.profile.name} · opened <span title={absolute(e.createdAt)}>{ago(e.createdAt)}</span> · due {absolute(e.dueAt)} · for {e.assigneeRole}
        </p>
      </div>

      <ClaimLine
        claimedBy={e.claimedBy}
        claimedAt={e.claimedAt}
        me={me}
        closed={e.status === "applied"}
        pending={claim.isPending || release.isPending}
        onClaim={() => claim.mutate({ escalationId })}
        onTakeOver={(from) => window.confirm(`${from} is on this. Take it over?`) && claim.mutate({ escalationId, takeOverFrom: from })}
        onRelease={() => release.mutate({ escalationId })}
      />

      {risky && e.proposedCall && (
        <div className="rounded-md border border-amber-300 bg-amber-50/40 p-3" data-testid="proposed-call">
          <div className="mb-2 text-sm">
            The agent wants to call <code className="rounded bg-white px-1 font-mono font-semibold">{e.proposedCall.tool}</code>. Approve lets that very call run (recognised by its fingerprint); Reject tells the agent not to.
          </div>
          <JsonView value={e.proposedCall.arguments} label="Arguments" />
        </div>
      )}

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
      {e.undos.length > 0 && (
        <ul className="space-y-0.5 text-xs text-zinc-500" data-testid="undos">
          {e.undos.map((u, i) => (
            <li key={i}>
              Undone: {u.decision.replace("_", " ")} by {u.decidedBy ?? "someone"}, taken back by {u.undoneBy}
              {u.undoneAt ? ` at ${absolute(u.undoneAt)}` : ""}
            </li>
          ))}
        </ul>
      )}

      {!open && (
        <p id="decided-note" className="rounded-md border border-zinc-200 bg-zinc-50 p-3 text-sm" data-testid="decided">
          {e.decision ? `${e.decision.replace("_", " ")} by ${e.decidedBy ?? "someone"}` : e.status}
          {e.decidedAt ? <span title={absolute(e.decidedAt)}> {ago(e.decidedAt)}</span> : ""}
          {e.guidance ? ` — “${e.guidance}”` : ""}
          {e.deadEndReason ? ` — “${e.deadEndReason}”` : ""}
          {e.status === "applied" ? ` · applied ${e.appliedAt ? absolute(e.appliedAt) : ""}` : e.status === "applying" ? " · being applied" : waiting ? ` · applies in ${left} s` : " · being applied"}
          {e.resultRunId ? " · a new run started" : ""}.{" "}
          {e.status === "decided" && mine
            ? "The buttons are off until you undo it."
            : `The buttons are off because this escalation was already decided${mine ? "" : " by someone else"}.`}
        </p>
      )}

      <fieldset disabled={!open || busy} className="space-y-3 border-t border-zinc-200 pt-4 disabled:opacity-60" aria-describedby={!open ? "decided-note" : undefined}>
        <legend className="sr-only">Decision</legend>
        {risky && (
          <div className="space-y-2 rounded-md border border-zinc-200 p-3">
            <div className="flex flex-wrap items-center gap-2">
              <button type="button" className="rounded-md bg-emerald-700 px-4 py-2 text-sm font-medium text-white disabled:opacity-50" onClick={() => send("approve")}>
                Approve
              </button>
              <button type="button" className="rounded-md border border-red-600 px-4 py-2 text-sm text-red-800 disabled:opacity-50" onClick={() => send("reject")}>
                Reject
              </button>
              <input
                aria-label="Reject reason"
                className="min-w-48 flex-1 rounded-md border border-zinc-300 px-2 py-1.5 text-sm"
                value={rejectReason}
                onChange={(ev) => setRejectReason(ev.target.value)}
                placeholder="Why not (optional, passed to the agent as guidance)"
              />
            </div>
          </div>
        )}
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
          <button type="button" className={cn("rounded-md px-4 py-2 text-sm font-medium disabled:opacity-50", risky ? "border border-zinc-400" : "bg-zinc-900 text-white")} disabled={!!stepsError} onClick={() => send("resume")}>
            {risky ? "Resume with guidance" : "Resume"}
          </button>
          {e.reason === "request_human" && (
            <>
              <button type="button" className="rounded-md border border-emerald-600 px-3 py-2 text-sm text-emerald-800 disabled:opacity-50" onClick={() => send("approve")}>
                Approve
              </button>
              <button type="button" className="rounded-md border border-red-600 px-3 py-2 text-sm text-red-800 disabled:opacity-50" onClick={() => send("reject")}>
                Reject
              </button>
            </>
          )}
          <button type="button" className="rounded-md border border-zinc-300 px-3 py-2 text-sm disabled:opacity-50" onClick={() => window.confirm("Cancel this task?") && send("cancel")}>
            Cancel task
          </button>
        </div>
        <div className="flex items-center gap-2">
          <input aria-label="Dead-end reason" className="flex-1 rounded-md border border-zinc-300 px-2 py-1 text-sm" value={deadEndReason} onChange={(ev) => setDeadEndReason(ev.target.value)} placeholder="Why the task cannot be done (required to mark a dead end)" />
          <button type="button" className="rounded-md border border-violet-600 px-3 py-1.5 text-sm text-violet-800 disabled:opacity-50" disabled={deadEndReason.trim() === ""} onClick={() => send("dead_end")}>
            Mark dead end
          </button>
        </div>
        <p className="text-xs text-zinc-500">Every decision can be undone for {UI_UNDO_SECONDS} s before it applies.</p>
      </fieldset>
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error.message}
        </p>
      )}
    </div>
  );
}

/** "<name> is on this": claim, take over (confirmed), release. Claims never block deciding. */
function ClaimLine({
  claimedBy,
  claimedAt,
  me,
  closed,
  pending,
  onClaim,
  onTakeOver,
  onRelease,
}: {
  claimedBy: string | null;
  claimedAt: Date | null;
  me: string;
  closed: boolean;
  pending: boolean;
  onClaim: () => void;
  onTakeOver: (from: string) => void;
  onRelease: () => void;
}) {
  const since = claimedAt ? <span title={absolute(claimedAt)}> (since {ago(claimedAt)})</span> : null;
  const button = "rounded-md border border-zinc-300 px-3 py-1 text-sm disabled:opacity-50";
  return (
    <div className="flex items-center justify-between gap-3 rounded-md border border-zinc-200 px-3 py-2 text-sm" data-testid="claim">
      {claimedBy === null ? (
        <span className="text-zinc-600">Nobody is on this yet.</span>
      ) : (
        <span>
          <span className="font-medium">{claimedBy} is on this</span>
          {claimedBy === me ? " (you)" : ""}
          {since}
          {claimedBy !== me && !closed ? <span className="text-zinc-500"> — you can still decide; the card shows who is on it.</span> : null}
        </span>
      )}
      {!closed &&
        (claimedBy === null ? (
          <button type="button" className={button} disabled={pending} onClick={onClaim}>
            I’m on this
          </button>
        ) : claimedBy === me ? (
          <button type="button" className={button} disabled={pending} onClick={onRelease}>
            Release
          </button>
        ) : (
          <button type="button" className={button} disabled={pending} onClick={() => onTakeOver(claimedBy)}>
            Take over
          </button>
        ))}
    </div>
  );
}
