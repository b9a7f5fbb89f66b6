"use client";

import { cn } from "@/components/ui/cn.ts";
import type { EscalationDecision } from "@/lib/contracts/escalation.ts";
import { FactEditor } from "../fact-editor.tsx";
import { BudgetRaise } from "./budget-raise.tsx";
import { UI_UNDO_SECONDS, type DecisionForm, type EscalationCard } from "./use-decision-form.ts";

/**
 * The decision form: for a risky action or an unknown outcome the verdict first (Approve / Reject,
 * or "It happened" / "It did not happen"), then guidance, the budget raise, fact edits, Resume and
 * Cancel, and the dead end with its required reason. Off while the escalation is not open or a
 * decision is in flight; the button of the decision in flight says so.
 */
export function DecisionFields({ e, form, open }: { e: EscalationCard; form: DecisionForm; open: boolean }) {
  const { fields: f, reasons: r, send, resumeBlocked, pendingDecision } = form;
  const busy = form.mutations.decide.isPending || form.mutations.undo.isPending;
  const risky = e.proposedCall !== null;
  const unresolved = e.reason === "unresolved_effect";
  /** Approve / Reject come first: a risky action's approval, or the verdict on an unknown outcome. */
  const verdict = risky || unresolved;
  const label = (decision: EscalationDecision, words: string) => (pendingDecision === decision ? `${words} — sending…` : words);
  return (
    <fieldset
      disabled={!open || busy}
      aria-busy={busy}
      // min-w-0: a fieldset is otherwise at least as wide as its widest line (a long fact value), wider than the pane.
      className="min-w-0 space-y-3 border-t border-zinc-200 pt-4 disabled:opacity-60"
      aria-describedby={!open ? "decided-note" : undefined}
    >
      <legend className="sr-only">Decision</legend>
      {verdict && (
        <div className="space-y-2 rounded-md border border-zinc-200 p-3">
          <div className="flex flex-wrap items-center gap-2">
            <button
              type="button"
              className="rounded-md bg-emerald-700 px-4 py-2 text-sm font-medium text-white disabled:opacity-50"
              disabled={resumeBlocked}
              onClick={() => send("approve")}
            >
              {label("approve", unresolved ? "It happened — don’t repeat it" : "Approve")}
            </button>
            <button
              type="button"
              className="rounded-md border border-red-600 px-4 py-2 text-sm text-red-800 disabled:opacity-50"
              disabled={resumeBlocked}
              onClick={() => send("reject")}
            >
              {label("reject", unresolved ? "It did not happen — do it again" : "Reject")}
            </button>
            {risky && (
              <input
                aria-label="Reject reason"
                className="min-w-48 flex-1 rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm"
                value={r.rejectReason}
                onChange={(ev) => r.setRejectReason(ev.target.value)}
                placeholder="Why not (optional, passed to the agent as guidance)"
              />
            )}
          </div>
          {unresolved && <p className="text-xs text-zinc-500">Either way the run resumes from its last checkpoint, with the guidance below.</p>}
        </div>
      )}
      <label htmlFor="guidance" className="block text-sm font-medium">
        Guidance for the agent
      </label>
      <textarea
        id="guidance"
        rows={3}
        className="w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm"
        value={f.guidance}
        onChange={(ev) => f.setGuidance(ev.target.value)}
        placeholder="What should it do differently?"
      />
      <BudgetRaise e={e} form={form} open={open} />
      {e.checkpoint ? (
        <FactEditor facts={e.checkpoint.workingSet} drafts={f.factDrafts} onChange={f.setFactDrafts} />
      ) : (
        <p className="text-xs text-zinc-500">
          No checkpoint: the run restarts from the launch facts, so there are no facts to edit here (give them as guidance).
        </p>
      )}
      <div className="flex flex-wrap gap-2">
        <button
          type="button"
          className={cn("rounded-md px-4 py-2 text-sm font-medium disabled:opacity-50", verdict ? "border border-zinc-400" : "bg-zinc-900 text-white")}
          disabled={resumeBlocked}
          onClick={() => send("resume")}
        >
          {label("resume", verdict ? "Resume with guidance" : "Resume")}
        </button>
        <button
          type="button"
          className="rounded-md border border-zinc-300 px-3 py-2 text-sm disabled:opacity-50"
          onClick={() => window.confirm("Cancel this task?") && send("cancel")}
        >
          {label("cancel", "Cancel task")}
        </button>
      </div>
      <div className="space-y-1">
        <label htmlFor="deadEndReason" className="block text-sm font-medium">
          Dead-end reason
        </label>
        <div className="flex flex-wrap items-center gap-2">
          <input
            id="deadEndReason"
            className="min-w-48 flex-1 rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm"
            value={r.deadEndReason}
            onChange={(ev) => r.setDeadEndReason(ev.target.value)}
            placeholder="Why the task cannot be done (required to mark a dead end)"
          />
          <button
            type="button"
            className="rounded-md border border-violet-600 px-3 py-1.5 text-sm text-violet-800 disabled:opacity-50"
            disabled={r.deadEndReason.trim() === ""}
            onClick={() => send("dead_end")}
          >
            {label("dead_end", "Mark dead end")}
          </button>
        </div>
      </div>
      <p className="text-xs text-zinc-500">Every decision can be undone for {UI_UNDO_SECONDS} s before it applies.</p>
    </fieldset>
  );
}
