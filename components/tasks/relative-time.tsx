"use client";

import { formatDistanceStrict } from "date-fns";
import { useSyncExternalStore } from "react";
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

/** The current time in ms, re-rendering every 5 s. */
export function useTickingNow(): number {
  return useSyncExternalStore(
    subscribe,
    () => now,
    () => now,
  );
}

/**
 * "4 minutes ago" / "in 12 minutes", re-rendered every 5 s; the exact time in UTC and local
 * ("2026-12-01 08:19:06 UTC · 2026-12-01 09:19:06 UTC+01:00 (local)") on hover, ISO in `dateTime`.
 */
export function RelativeTime({ date, className }: { date: Date | null | undefined; className?: string }) {
  const t = useTickingNow();
  if (!date) return <span className={className}>—</span>;
  const rel = formatDistanceStrict(date, Math.max(t, 0), { addSuffix: true });
  return (
    <time dateTime={date.toISOString()} title={exactTitle(date)} className={className} suppressHydrationWarning>
      {rel}
    </time>
  );
}
