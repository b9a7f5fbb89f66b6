"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc.tsx";
import type { LiveState } from "@/components/live/use-live-updates.tsx";
import { CardContext } from "./card/card-context.tsx";
import { CardHeading } from "./card/card-heading.tsx";
import { ClaimLine } from "./card/claim-line.tsx";
import { DecidedNote } from "./card/decided-note.tsx";
import { DecisionFields } from "./card/decision-fields.tsx";
import { SpendTiles } from "./card/spend-tiles.tsx";
import { UndoBanner } from "./card/undo-banner.tsx";
import { useDecisionForm } from "./card/use-decision-form.ts";
import { ProposedCall, UnresolvedEffect } from "./card/verdict-evidence.tsx";
import { secondsLeft, useNow } from "./countdown.ts";
import { LoadError } from "@/components/ui/load-error.tsx";
import { StatusLine } from "@/components/ui/use-action-status.tsx";

export { REASONS, REASON_SHORT } from "./card/reasons.ts";
export { parseExtra, UI_UNDO_SECONDS } from "./card/use-decision-form.ts";

/**
 * The context card of one escalation: what stopped the run and why (evidence, the proposed call of a
 * risky action, open question, last steps, fact diff, alerts, spend), who is on it (claim / take
 * over / release), the decision buttons, and once decided the undo banner with its countdown. When
 * the escalation is no longer open the buttons are disabled and the card says who decided what, when.
 * The form's state and the mutations live in {@link useDecisionForm}; the panels in ./card/.
 */
export function ContextCard({ escalationId, me, live }: { escalationId: string; me: string; live: LiveState }) {
  const trpc = useTRPC();
  const card = useQuery({
    ...trpc.escalation.get.queryOptions({ escalationId }),
    // The inbox's live stream refreshes it when the escalation changes (a claim, a take-over, a
    // decision or undo made elsewhere), so an open one is polled every 30 s while the stream is up and
    // every 5 s while it is down; a decision waiting out its window or being applied every second.
    refetchInterval: (q) => (q.state.data?.status === "applied" ? 30_000 : q.state.data?.status === "open" ? (live === "live" ? 30_000 : 5_000) : 1_000),
  });
  const e = card.data;
  const form = useDecisionForm(escalationId, e);
  const waiting = e?.status === "decided" && e.applyInMs > 0;
  const now = useNow(waiting);

  if (card.isError) return <LoadError what="the escalation" error={card.error} onRetry={() => void card.refetch()} className="m-6" />;
  if (!e) return <div className="m-6 h-64 animate-pulse rounded bg-zinc-200/60" aria-busy="true" />;
  const open = e.status === "open";
  const left = waiting ? secondsLeft(e.applyInMs, card.dataUpdatedAt, now) : 0;
  const mine = e.decidedBy === me;
  const { claim, release, undo, applyNow, decide } = form.mutations;

  return (
    <div className="min-w-0 space-y-5 p-4 lg:p-6" data-testid="context-card">
      {e.status === "decided" && (
        <UndoBanner
          e={e}
          who={mine ? "you" : (e.decidedBy ?? "someone")}
          mine={mine}
          left={left}
          undoPending={undo.isPending}
          onUndo={() => undo.mutate({ escalationId })}
          applyNowPending={applyNow.isPending}
          onApplyNow={() => applyNow.mutate({ escalationId })}
          deciding={decide.isPending}
        />
      )}
      <CardHeading e={e} />
      <ClaimLine
        claimedBy={e.claimedBy}
        claimedAt={e.claimedAt}
        me={me}
        closed={e.status === "applied"}
        pending={claim.isPending || release.isPending}
        onClaim={() => claim.mutate({ escalationId })}
        onTakeOver={(from) => claim.mutate({ escalationId, takeOverFrom: from })}
        onRelease={() => release.mutate({ escalationId })}
      />
      {e.proposedCall && <ProposedCall call={e.proposedCall} />}
      {e.reason === "unresolved_effect" && <UnresolvedEffect effect={e.unresolvedEffect} />}
      <SpendTiles e={e} open={open} />
      <CardContext e={e} />
      {!open && <DecidedNote e={e} mine={mine} waiting={waiting} left={left} />}
      <DecisionFields e={e} form={form} open={open} />
      <StatusLine line={form.line} testId="decision" />
    </div>
  );
}
