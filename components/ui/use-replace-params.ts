"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback } from "react";

/**
 * Returns `replace(next)`: sets each key of `next` in the page's query string (an empty string,
 * null or undefined deletes it) and replaces the URL — no history entry, no scroll — so filters and
 * selections live in the URL (a link or a reload shows the same view) without filling the Back button.
 */
export function useReplaceParams(): (next: Record<string, string | null | undefined>) => void {
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  return useCallback(
    (next) => {
      const params = new URLSearchParams(search.toString());
      for (const [k, v] of Object.entries(next)) {
        if (v) params.set(k, v);
        else params.delete(k);
      }
      const qs = params.toString();
      router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
    },
    [router, pathname, search],
  );
}
