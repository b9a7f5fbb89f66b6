"use client";

import type * as RadixDialog from "@radix-ui/react-dialog";
import { createContext, type ReactNode } from "react";

// What the dialog (dialog.tsx) and its lazily loaded frame (dialog-frame.tsx) share. Type imports
// of Radix only: this module adds no dialog library to a page.

/** What a `Dialog` is given. */
export type DialogProps = {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description?: string;
  children: ReactNode;
};

/** Radix's Close part, given by the loaded dialog frame to everything inside a dialog; null outside one. */
export const DialogCloseContext = createContext<typeof RadixDialog.Close | null>(null);
