"use client";

import type * as RadixDialog from "@radix-ui/react-dialog";
import dynamic from "next/dynamic";
import { use, useEffect, useState, type ComponentProps } from "react";
import { DialogCloseContext, type DialogProps } from "./dialog-parts.ts";

export type { DialogProps } from "./dialog-parts.ts";

const loadFrame = () => import("./dialog-frame.tsx");
const DialogFrame = dynamic(() => loadFrame().then((m) => m.DialogFrame), { ssr: false });

/**
 * A modal dialog (Radix: focus trap, Escape closes, focus returns to the trigger): title,
 * description, body (a form) — calm, centred, above a dimmed page.
 *
 * The dialog library (Radix, ~50 kB of script) is not part of a page's first load: every script a
 * page loads at first is compiled and run before its first rows can be painted, and no dialog is
 * open then. The frame is fetched once the page is idle after it started (so a click does not wait
 * for it) and rendered from the first time `open` is true; until then a closed dialog renders
 * nothing, as Radix's closed dialog does.
 */
export function Dialog(props: DialogProps) {
  const [wanted, setWanted] = useState(props.open);
  if (props.open && !wanted) setWanted(true);
  useEffect(() => {
    if (wanted) return;
    const load = () => void loadFrame();
    if (typeof requestIdleCallback === "function") {
      const id = requestIdleCallback(load);
      return () => cancelIdleCallback(id);
    }
    const id = setTimeout(load, 0);
    return () => clearTimeout(id);
  }, [wanted]);
  return wanted ? <DialogFrame {...props} /> : null;
}

/**
 * Radix's Close part for a dialog's own buttons (`<DialogClose asChild><button …/></DialogClose>`):
 * closes the dialog it is in. Only inside a {@link Dialog}'s body (it renders nothing elsewhere).
 */
export function DialogClose(props: ComponentProps<typeof RadixDialog.Close>) {
  const Close = use(DialogCloseContext);
  return Close ? <Close {...props} /> : null;
}
