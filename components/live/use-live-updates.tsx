"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { connectLive, type LiveState } from "./live-stream.ts";

export type { LiveState } from "./live-stream.ts";

/** The browser's page visibility (`document.hidden`, `visibilitychange`). */
const pageVisibility = {
  hidden: () => document.hidden,
  subscribe: (listener: () => void) => {
    document.addEventListener("visibilitychange", listener);
    return () => document.removeEventListener("visibilitychange", listener);
  },
};

/**
 * What a page follows: `task` — every change of the run state (any table), invalidating the task
 * queries (`task.*`); `escalation` — writes to escalation rows only (`/api/live?tables=escalation`),
 * invalidating the escalation queries (`escalation.*`: the inbox's list and its card).
 */
export type LiveScope = "task" | "escalation";

/**
 * Subscribes to `/api/live` (SSE over PostgreSQL LISTEN/NOTIFY) and invalidates the `scope`'s queries
 * (default `task`, {@link LiveScope}) when something changes — for one task when `taskId` is given — and, each time the stream opens,
 * those read before it opened, so a page opened, reconnected or left in the background converges
 * without waiting for a new event or a click (live-stream.ts connectLive: a hidden page keeps its
 * stream; one the browser gave up on is opened again, at once when the page is shown). While the
 * stream is down the state is "polling" and callers fall back to a 5 s refetch interval (live
 * over SSE, polling when the stream is down), at most every 30 s while the page is hidden (pollInterval).
 */
export function useLiveUpdates(taskId?: string, { scope = "task" }: { scope?: LiveScope } = {}): LiveState {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [state, setState] = useState<LiveState>("connecting");

  useEffect(() => {
    const query = new URLSearchParams([...(taskId ? [["taskId", taskId]] : []), ...(scope === "escalation" ? [["tables", "escalation"]] : [])]).toString();
    return connectLive({
      url: query ? `/api/live?${query}` : "/api/live",
      queryClient,
      filter: scope === "escalation" ? trpc.escalation.pathFilter() : trpc.task.pathFilter(),
      onState: setState,
      open: (url) => new EventSource(url),
      visibility: pageVisibility,
    });
  }, [taskId, scope, queryClient, trpc]);

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
