"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { LiveState } from "@/components/live/use-live-updates.tsx";
import { catchUp } from "@/components/live/catch-up.ts";
import { useTRPC } from "@/components/trpc.tsx";

/** Table names in the change feed whose writes can move a cost figure's task (status, end reason, new runs). */
const COST_TABLES = new Set(["task", "run", "reconnect"]);

/**
 * Keeps the cost queries fresh from the change feed (`/api/live`, PostgreSQL LISTEN/NOTIFY): a task
 * or run change — a task ending, a resume — refetches them, at most once every `throttleMs`, so a
 * busy system does not re-run the rollups on every model call. While the stream is down the state is
 * "polling" and callers fall back to a refetch interval.
 */
export function useCostLive(throttleMs = 2_000): LiveState {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [state, setState] = useState<LiveState>("connecting");
  useEffect(() => {
    const source = new EventSource("/api/live");
    let timer: ReturnType<typeof setTimeout> | null = null;
    let stopCatchUp = () => {};
    source.onopen = () => {
      setState("live");
      stopCatchUp();
      stopCatchUp = catchUp(queryClient, trpc.cost.pathFilter(), Date.now());
    };
    source.onerror = () => setState("polling");
    source.onmessage = (message: MessageEvent<string>) => {
      let table = "";
      try {
        table = (JSON.parse(message.data) as { t?: string }).t ?? "";
      } catch {
        return;
      }
      if (!COST_TABLES.has(table) || timer) return;
      timer = setTimeout(() => {
        timer = null;
        // Not cancelling a fetch in flight: a rollup slower than the throttle would otherwise never answer.
        void queryClient.invalidateQueries(trpc.cost.pathFilter(), { cancelRefetch: false });
      }, throttleMs);
    };
    return () => {
      source.close();
      stopCatchUp();
      if (timer) clearTimeout(timer);
    };
  }, [queryClient, trpc, throttleMs]);
  return state;
}
