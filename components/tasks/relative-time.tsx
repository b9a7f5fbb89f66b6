"use client";

import { formatDistanceStrict } from "date-fns";
import { useEffect, useState, useSyncExternalStore } from "react";
import { exactTitle } from "@/components/ui/timestamp.tsx";

/** One shared 5 s clock for every relative time on the page (so "4 m ago" keeps ticking). */
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | null = null;
let now = Date.now();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (!timer) {
    now = Date.now();
    timer = setInterval(() => {
      now = Date.now();
      for (const l of listeners) l();
    }, 5_000);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
}

/**
 * The clock a server render reads: the time of the render (the module's `now` there is only the
 * time the module loaded). The browser hydrates with its own clock's `now`; the texts made from it
 * carry `suppressHydrationWarning` and are corrected by the render right after hydration.
 */
const serverNow = () => (typeof window === "undefined" ? Date.now() : now);

/** The current time in ms, re-rendering every 5 s. */
export function useTickingNow(): number {
  return useSyncExternalStore(subscribe, () => now, serverNow);
}

/**
 * The current time in ms, re-rendering every second while `enabled` (the run header's duration
 * while it runs or waits), else every 5 s with {@link useTickingNow}.
 */
export function useSecondClock(enabled: boolean): number {
  const slow = useTickingNow();
  const [fast, setFast] = useState(() => Date.now());
  useEffect(() => {
    if (!enabled) return;
    const timer = setInterval(() => setFast(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [enabled]);
  return enabled ? Math.max(fast, slow) : slow;
}

/**
 * "4 minutes ago" / "in 12 minutes", re-rendered every 5 s; the exact time in UTC and local
 * ("2026-12-01 08:19:06 UTC · 2026-12-01 09:19:06 UTC+01:00 (local)") on hover, ISO in `dateTime`.
 * With `past`, a time after the browser's now (a server clock ahead of the browser's, or a clock
 * tick not yet taken) reads as "0 seconds ago", never "in 3 seconds".
 */
export function RelativeTime({ date, className, past = false }: { date: Date | null | undefined; className?: string; past?: boolean }) {
  const t = useTickingNow();
  if (!date) return <span className={className}>—</span>;
  const base = Math.max(t, 0);
  const rel = formatDistanceStrict(past && date.getTime() > base ? base : date, base, { addSuffix: true });
  return (
    <time dateTime={date.toISOString()} title={exactTitle(date)} className={className} suppressHydrationWarning>
      {rel}
    </time>
  );
}
