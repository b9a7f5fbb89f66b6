"use client";

import { Timestamp } from "@/components/ui/timestamp.tsx";
import { DECIDED_VERB } from "../countdown.ts";
import type { EscalationCard } from "./use-decision-form.ts";

/**
 * The banner of a decision waiting out its undo window: who decided what, the countdown (hidden
 * from screen readers, which hear the deadline once), apply failures, and for the decider Undo and
 * Apply now (ends the window: the decision applies at once). One action at a time: either pending,
 * or the decision itself still in flight (`deciding`: the card can show it before the request that
 * made it has answered), disables both.
 */
export function UndoBanner({
  e,
  who,
  mine,
  left,
  undoPending,
  onUndo,
  applyNowPending,
  onApplyNow,
  deciding,
}: {
  e: EscalationCard;
  who: string;
  mine: boolean;
  left: number;
  undoPending: boolean;
  onUndo: () => void;
  applyNowPending: boolean;
  onApplyNow: () => void;
  deciding: boolean;
}) {
  const busy = undoPending || applyNowPending || deciding;
  return (
    <div
      role="status"
      aria-live="polite"
      data-testid="undo-banner"
      className="sticky top-0 z-10 flex flex-wrap items-center justify-between gap-3 rounded-md border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-950 shadow-sm"
    >
      <span className="min-w-0">
        {DECIDED_VERB[e.decision ?? ""] ?? e.decision} by {who} — <span aria-hidden="true">{left > 0 ? `decided, applies in ${left} s` : "applying now…"}</span>
        <span className="sr-only">
          {left > 0 && e.applyAfter ? (
            <>
              decided; undo possible until <Timestamp date={e.applyAfter} />
            </>
          ) : (
            "applying now"
          )}
        </span>
        {e.applyFailures > 0 && (
          <span className="mt-1 block text-red-800" data-testid="apply-failure">
            Applying failed {e.applyFailures === 1 ? "once" : `${e.applyFailures} times`}
            {e.applyFailedAt ? (
              <>
                {" "}
                (last <Timestamp date={e.applyFailedAt} />)
              </>
            ) : null}
            : {e.applyError ?? "unknown error"} — it is retried automatically; the run&apos;s timeline has the alert.
          </span>
        )}
      </span>
      {/* Only the handler who decided can take it back or apply it early (the server refuses anyone else). */}
      {left > 0 && mine && (
        <span className="flex gap-2">
          <button
            type="button"
            className="rounded-md border border-amber-600 bg-white px-3 py-1 text-sm font-medium text-amber-900 disabled:opacity-50"
            disabled={busy}
            onClick={onUndo}
          >
            {undoPending ? "Undoing…" : `Undo (${left} s)`}
          </button>
          <button
            type="button"
            className="rounded-md border border-amber-600 px-3 py-1 text-sm font-medium text-amber-900 hover:bg-amber-100 disabled:opacity-50"
            disabled={busy}
            onClick={onApplyNow}
          >
            {applyNowPending ? "Applying…" : "Apply now"}
          </button>
        </span>
      )}
    </div>
  );
}
