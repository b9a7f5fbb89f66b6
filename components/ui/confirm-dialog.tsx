"use client";

import { Dialog, DialogClose } from "./dialog.tsx";

/**
 * "Are you sure?" on the shared {@link Dialog}: `title` says the action in words ("Give Ada the
 * admin role?"), `description` what follows from it; Cancel (focused first, Escape) or the
 * `confirmLabel` button, which calls `onConfirm` and closes. `open` false renders nothing.
 */
export function ConfirmDialog({
  open,
  title,
  description,
  confirmLabel,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  description?: string;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <Dialog open={open} onOpenChange={(next) => !next && onCancel()} title={title} description={description}>
      <div className="flex justify-end gap-2">
        <DialogClose asChild>
          <button type="button" className="rounded border border-zinc-300 px-3 py-1.5 text-sm" autoFocus>
            Cancel
          </button>
        </DialogClose>
        <button type="button" className="rounded bg-zinc-900 px-3 py-1.5 text-sm text-white" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}
