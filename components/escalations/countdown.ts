"use client";

import { useEffect, useState } from "react";

/** Date.now(), re-read every `intervalMs` while `active` (for countdowns); stops ticking otherwise. */
export function useNow(active: boolean, intervalMs = 250): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), intervalMs);
    return () => window.clearInterval(timer);
  }, [active, intervalMs]);
  return now;
}

/**
 * Whole seconds left of an undo window: the server's `applyInMs` (database clock) counted from when
 * the data arrived (`receivedAt`, ms), so the browser's clock offset does not matter. 0 when over.
 */
export function secondsLeft(applyInMs: number, receivedAt: number, now: number): number {
  return Math.max(0, Math.ceil((receivedAt + applyInMs - now) / 1000));
}

/** Past tense of a decision for banners: "Resumed", "Approved", … */
export const DECIDED_VERB: Record<string, string> = {
  resume: "Resumed",
  approve: "Approved",
  reject: "Rejected",
  dead_end: "Marked a dead end",
  cancel: "Cancelled",
};
