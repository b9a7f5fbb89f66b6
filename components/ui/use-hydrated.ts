"use client";

import { useSyncExternalStore } from "react";

const never = () => () => {};

/**
 * False while the page is rendered on the server and while the browser hydrates that HTML, true
 * from the render after (and at once on pages the browser renders itself). For parts that render
 * differently once they can measure the window — a virtual list — so the server's HTML and the
 * browser's first render agree.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}
