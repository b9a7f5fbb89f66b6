"use client";

import { useEffect } from "react";

/** True when a key press is typing (an input, a select, an editable element) or a shortcut with a modifier. */
export function isTypingOrModified(e: KeyboardEvent): boolean {
  const target = e.target as HTMLElement | null;
  if (target && (["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName) || target.isContentEditable)) return true;
  return e.metaKey || e.ctrlKey || e.altKey;
}

/**
 * j / k move through `keys` (the visible steps) from `selectedKey`: from no selection (or one the
 * filter hides) both open the first. Ignored while typing and with a modifier, so
 * it never steals a key from a field or a browser shortcut.
 */
export function useStepKeys(keys: readonly string[], selectedKey: string | null, onSelect: (key: string) => void) {
  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      if (isTypingOrModified(e)) return;
      if (e.key !== "j" && e.key !== "k") return;
      if (keys.length === 0) return;
      const pos = selectedKey ? keys.indexOf(selectedKey) : -1;
      const next = pos < 0 ? 0 : e.key === "j" ? Math.min(keys.length - 1, pos + 1) : Math.max(0, pos - 1);
      const key = keys[next];
      if (key) onSelect(key);
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [keys, selectedKey, onSelect]);
}
