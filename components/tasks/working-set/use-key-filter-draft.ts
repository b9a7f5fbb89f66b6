"use client";

import { useCallback, useEffect, useRef, useState } from "react";

/**
 * The key filter's text box state: `draft` is what is typed, applied (`onKeyFilter`, which keeps it
 * in the URL) 250 ms after typing stops, or at once with `apply`; a filter changed in the URL from
 * elsewhere (`keyFilter`: back button, a link) replaces the draft.
 */
export function useKeyFilterDraft(keyFilter: string, onKeyFilter: (prefix: string) => void) {
  const [draft, setDraft] = useState(keyFilter);
  const applied = useRef(keyFilter);
  const apply = useCallback(
    (prefix: string) => {
      applied.current = prefix;
      onKeyFilter(prefix);
    },
    [onKeyFilter],
  );
  useEffect(() => {
    if (keyFilter === applied.current) return;
    applied.current = keyFilter;
    setDraft(keyFilter);
  }, [keyFilter]);
  useEffect(() => {
    if (draft === applied.current) return;
    const t = setTimeout(() => apply(draft), 250);
    return () => clearTimeout(t);
  }, [draft, apply]);
  return { draft, setDraft, apply };
}
