"use client";

import { ago } from "@/components/tasks/format.ts";
import { useState } from "react";
import { ConfirmDialog } from "@/components/ui/confirm-dialog.tsx";
import { Timestamp } from "@/components/ui/timestamp.tsx";
import { SafeText } from "@/components/ui/safe-text.tsx";

/** "<name> is on this": claim, take over (confirmed in the app's dialog, which names who holds the claim), release; the button says so while the request is in flight. */
export function ClaimLine({
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
  const since = claimedAt ? (
    <span>
      {" "}
      (since <Timestamp date={claimedAt} />, {ago(claimedAt)})
    </span>
  ) : null;
  const [askTakeOver, setAskTakeOver] = useState<string | null>(null);
  const button = "rounded-md border border-zinc-300 px-3 py-1 text-sm disabled:opacity-50";
  return (
    <div
      className="flex flex-wrap items-center justify-between gap-3 rounded-md border border-zinc-200 px-3 py-2 text-sm"
      data-testid="claim"
      aria-busy={pending}
    >
      {claimedBy === null ? (
        <span className="text-zinc-600">Nobody is on this yet.</span>
      ) : (
        <span className="min-w-0 [overflow-wrap:anywhere]">
          <span className="font-medium">
            <SafeText text={claimedBy} /> is on this
          </span>
          {claimedBy === me ? " (you)" : ""}
          {since}
          {claimedBy !== me && !closed ? <span className="text-zinc-500"> — you can still decide; the card shows who is on it.</span> : null}
        </span>
      )}
      {!closed &&
        (claimedBy === null ? (
          <button type="button" className={button} disabled={pending} onClick={onClaim}>
            {pending ? "Claiming…" : "I’m on this"}
          </button>
        ) : claimedBy === me ? (
          <button type="button" className={button} disabled={pending} onClick={onRelease}>
            {pending ? "Releasing…" : "Release"}
          </button>
        ) : (
          <button type="button" className={button} disabled={pending} onClick={() => setAskTakeOver(claimedBy)}>
            {pending ? "Taking over…" : "Take over"}
          </button>
        ))}
      <ConfirmDialog
        open={askTakeOver !== null}
        title={`Take over from ${askTakeOver ?? ""}?`}
        description={`${askTakeOver ?? ""} is on this. Taking over puts your name on it instead; they can still see the card.`}
        confirmLabel="Take over"
        onConfirm={() => {
          if (askTakeOver !== null) onTakeOver(askTakeOver);
          setAskTakeOver(null);
        }}
        onCancel={() => setAskTakeOver(null)}
      />
    </div>
  );
}
