"use client";

import { useState } from "react";
import { Dialog, DialogClose } from "@/components/ui/dialog.tsx";
import type { ActionLine } from "@/components/ui/action-status.ts";
import { StatusLine } from "@/components/ui/use-action-status.tsx";

/** Why an operator escalates by hand; the handler reads the label first. */
export const ESCALATE_REASONS = ["Needs a human decision", "Looks stuck or looping", "Spending too much", "Going in the wrong direction", "Other"] as const;

/**
 * The run page's "Escalate" dialog: a reason (required) and an optional note for the handler;
 * `onSubmit` gets the message the escalation carries ("<reason>: <note>", or the note alone for
 * "Other", or the reason alone without a note).
 */
export function EscalateDialog({
  open,
  onOpenChange,
  onSubmit,
  pending,
  line = null,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onSubmit: (note: string) => void;
  pending: boolean;
  /** The page's last action line: a refusal of this escalation shows in the dialog, where the person is. */
  line?: ActionLine | null;
}) {
  const [reason, setReason] = useState<string>(ESCALATE_REASONS[0]);
  const [note, setNote] = useState("");
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title="Escalate to a human"
      description="The run checkpoints after the turn in flight and waits for a handler's decision in the Escalations inbox."
    >
      <form
        className="space-y-4"
        onSubmit={(e) => {
          e.preventDefault();
          const text = note.trim();
          onSubmit(reason === "Other" ? text || "Other" : text ? `${reason}: ${text}` : reason);
        }}
      >
        <label className="block text-sm">
          <span className="font-medium text-zinc-800">Reason</span>
          <select className="mt-1 block w-full rounded-md border border-zinc-300 px-2 py-1.5" value={reason} onChange={(e) => setReason(e.target.value)}>
            {ESCALATE_REASONS.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <label className="block text-sm">
          <span className="font-medium text-zinc-800">Note for the handler (optional)</span>
          <textarea
            className="mt-1 block w-full rounded-md border border-zinc-300 px-2 py-1.5"
            rows={3}
            maxLength={4000}
            value={note}
            onChange={(e) => setNote(e.target.value)}
          />
        </label>
        <StatusLine line={line?.kind === "error" ? line : null} />
        <div className="flex justify-end gap-2">
          <DialogClose asChild>
            <button type="button" className="rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium hover:bg-zinc-50">
              Cancel
            </button>
          </DialogClose>
          <button
            type="submit"
            disabled={pending}
            className="rounded-md bg-amber-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-amber-700 disabled:opacity-50"
          >
            Escalate
          </button>
        </div>
      </form>
    </Dialog>
  );
}
