"use client";

import * as RadixDialog from "@radix-ui/react-dialog";
import { DialogCloseContext, type DialogProps } from "./dialog-parts.ts";

/**
 * The {@link Dialog}'s frame on Radix (focus trap, Escape closes, focus returns to the trigger):
 * title, description, body (a form) — calm, centred, above a dimmed page. Loaded by `Dialog` only
 * when a dialog is about to be needed (components/ui/dialog.tsx); it hands Radix's Close part to
 * `DialogClose` through {@link DialogCloseContext}.
 */
export function DialogFrame({ open, onOpenChange, title, description, children }: DialogProps) {
  return (
    <RadixDialog.Root open={open} onOpenChange={onOpenChange}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="fixed inset-0 z-40 bg-zinc-900/30" />
        <RadixDialog.Content className="fixed top-1/2 left-1/2 z-50 w-[min(32rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 rounded-lg border border-zinc-200 bg-white p-6 shadow-xl focus:outline-none">
          <RadixDialog.Title className="text-base font-semibold text-zinc-900">{title}</RadixDialog.Title>
          {description ? (
            <RadixDialog.Description className="mt-1 text-sm text-zinc-600">{description}</RadixDialog.Description>
          ) : (
            <RadixDialog.Description className="sr-only">{title}</RadixDialog.Description>
          )}
          <DialogCloseContext value={RadixDialog.Close}>
            <div className="mt-4">{children}</div>
          </DialogCloseContext>
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}
