"use client";

import { useSyncExternalStore } from "react";

/**
 * One Local/UTC setting for every absolute time in the app (one setting,
 * so two times on a page are never in different zones), remembered in localStorage under {@link TIME_ZONE_KEY}. Default UTC: the server,
 * the CLI and the logs speak UTC, and a page rendered on the server cannot know the reader's zone.
 */
export type TimeZoneSetting = "utc" | "local";
export const TIME_ZONE_KEY = "longhaul:time-zone";

const listeners = new Set<() => void>();

function read(): TimeZoneSetting {
  try {
    return window.localStorage.getItem(TIME_ZONE_KEY) === "local" ? "local" : "utc";
  } catch {
    return "utc";
  }
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (e: StorageEvent) => {
    if (e.key === TIME_ZONE_KEY) listener();
  };
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", onStorage);
  };
}

/** The reader's setting (UTC on the server and before hydration). */
export function useTimeZone(): TimeZoneSetting {
  return useSyncExternalStore(subscribe, read, () => "utc");
}

/** Stores the setting and re-renders every timestamp on the page (other tabs follow via the storage event). */
export function setTimeZone(zone: TimeZoneSetting): void {
  try {
    window.localStorage.setItem(TIME_ZONE_KEY, zone);
  } catch {
    // Private mode without storage: the setting lasts for this page only.
  }
  for (const l of listeners) l();
}

const two = (n: number) => String(n).padStart(2, "0");

/** "+01:00"-style offset of `date` in the reader's zone ("UTC" when zero). */
function localOffset(date: Date): string {
  const minutes = -date.getTimezoneOffset();
  if (minutes === 0) return "UTC";
  const sign = minutes > 0 ? "+" : "-";
  const abs = Math.abs(minutes);
  return `UTC${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}

/**
 * An unambiguous ISO-like absolute time, 24 h, always with its zone: UTC →
 * "2026-12-01 08:19:06 UTC"; local → "2026-12-01 09:19:06 UTC+01:00" (the reader's offset at
 * that instant, so a summer and a winter time both read right). "—" for no date.
 */
export function formatAbsolute(date: Date | null | undefined, zone: TimeZoneSetting): string {
  if (!date) return "—";
  if (zone === "utc") {
    return `${date.getUTCFullYear()}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())} ${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} UTC`;
  }
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())} ${localOffset(date)}`;
}

/** The exact time in both zones, for a hover title: "2026-12-01 08:19:06 UTC · 2026-12-01 09:19:06 UTC+01:00 (local)". */
export function exactTitle(date: Date): string {
  const utc = formatAbsolute(date, "utc");
  const local = formatAbsolute(date, "local");
  return utc === local ? utc : `${utc} · ${local} (local)`;
}

/** An absolute time in the reader's setting (see {@link formatAbsolute}); both zones on hover. */
export function Timestamp({ date, className }: { date: Date | null | undefined; className?: string }) {
  const zone = useTimeZone();
  if (!date) return <span className={className}>—</span>;
  return (
    <time dateTime={date.toISOString()} title={exactTitle(date)} className={className} suppressHydrationWarning>
      {formatAbsolute(date, zone)}
    </time>
  );
}

/** The Local/UTC switch (in the nav): two pressed-state buttons. */
export function TimeZoneSwitch({ className }: { className?: string }) {
  const zone = useTimeZone();
  const button = (value: TimeZoneSetting, label: string) => (
    <button
      type="button"
      aria-pressed={zone === value}
      className={`px-2 py-0.5 text-xs ${zone === value ? "bg-zinc-900 text-white" : "text-zinc-600 hover:bg-zinc-100"}`}
      onClick={() => setTimeZone(value)}
    >
      {label}
    </button>
  );
  return (
    <div role="group" aria-label="Time zone" className={`inline-flex overflow-hidden rounded border border-zinc-300 ${className ?? ""}`}>
      {button("utc", "UTC")}
      {button("local", "Local")}
    </div>
  );
}
