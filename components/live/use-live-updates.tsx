"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { catchUp } from "./catch-up.ts";

export type LiveState = "connecting" | "live" | "polling";

/** After the stream opens, when to catch up once more (ms): longer than a page's first queries take to be served. */
const SECOND_LOOK_MS = 2_000;

/**
 * Subscribes to `/api/live` (SSE over PostgreSQL LISTEN/NOTIFY) and invalidates the task queries
 * when something changes — for one task when `taskId` is given — and, each time the stream opens,
 * those read before it opened (catch-up.ts), so a page opened, reconnected or left in the
 * background converges without waiting for a new event. While the stream is down the state
 * is "polling" and callers fall back to a 5 s refetch interval (UI.md: live over SSE with a
 * polling fallback).
 */
export function useLiveUpdates(taskId?: string): LiveState {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [state, setState] = useState<LiveState>("connecting");

  useEffect(() => {
    const source = new EventSource(taskId ? `/api/live?taskId=${encodeURIComponent(taskId)}` : "/api/live");
    let stopCatchUp = () => {};
    let secondLook: ReturnType<typeof setTimeout> | undefined;
    // Every (re)connect catches up on what was written before the stream was subscribed: the first
    // read of the page, and anything during an outage, may predate it (catch-up.ts). A snapshot
    // served after the stream opened can predate it too — the step list the page preloads while its
    // scripts load is read from the browser's preload cache when the query first runs — so it looks
    // once more, SECOND_LOOK_MS later, at everything read until then.
    source.onopen = () => {
      setState("live");
      stopCatchUp();
      stopCatchUp = catchUp(queryClient, trpc.task.pathFilter(), Date.now());
      clearTimeout(secondLook);
      secondLook = setTimeout(() => {
        stopCatchUp();
        stopCatchUp = catchUp(queryClient, trpc.task.pathFilter(), Date.now());
      }, SECOND_LOOK_MS);
    };
    source.onerror = () => setState("polling");
    source.onmessage = () => {
      void queryClient.invalidateQueries(trpc.task.pathFilter());
    };
    return () => {
      source.close();
      clearTimeout(secondLook);
      stopCatchUp();
    };
  }, [taskId, queryClient, trpc]);

  return state;
}

/** The Live / Polling pill shown in page headers. */
export function LivePill({ state }: { state: LiveState }) {
  const label = state === "live" ? "Live" : state === "polling" ? "Polling every 5 s" : "Connecting…";
  return (
    <span
      role="status"
      aria-live="polite"
      className={
        "inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium " +
        (state === "live" ? "bg-emerald-50 text-emerald-800" : "bg-zinc-100 text-zinc-600")
      }
    >
      <span aria-hidden className={"h-1.5 w-1.5 rounded-full " + (state === "live" ? "bg-emerald-500" : "bg-zinc-400")} />
      {label}
    </span>
  );
}
