"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { useLiveUpdates } from "@/components/live/use-live-updates.tsx";
import { pollInterval } from "@/components/live/live-stream.ts";
import { useTRPC } from "@/components/trpc.tsx";
import { FIRST_STEPS } from "./first-steps.ts";

/**
 * Live updates invalidate the `task` queries (components/live); the working-set queries follow them:
 * whenever the task or its steps come back with a new data object (a live change, or the polling
 * fallback), the `workingSet` queries are invalidated too.
 */
function useRefreshWorkingSetWith(task: unknown, steps: unknown) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const previous = useRef<{ task: unknown; steps: unknown } | null>(null);
  useEffect(() => {
    const before = previous.current;
    previous.current = { task, steps };
    const changed = (now: unknown, then: unknown) => now !== undefined && then !== undefined && now !== then;
    if (before && (changed(task, before.task) || changed(steps, before.steps))) void queryClient.invalidateQueries(trpc.workingSet.pathFilter());
  }, [task, steps, queryClient, trpc]);
}

/**
 * The run page's server state: the task, its step rows, the fact-change summary and the checkpoints,
 * kept fresh by the change feed (`live`) with polling as the fallback (every 30 s while live, 5 s
 * otherwise, 30 s at most while the page is hidden — a background tab keeps converging). `steps` is
 * the full list once it is in, and until then the newest {@link FIRST_STEPS} (asked for only then).
 */
export function useRunQueries(taskId: string) {
  const trpc = useTRPC();
  const live = useLiveUpdates(taskId);
  const poll = { refetchInterval: () => pollInterval(live === "live" ? 30_000 : 5_000), refetchIntervalInBackground: true };
  const task = useQuery({ ...trpc.task.get.queryOptions({ taskId }), ...poll });
  // A step list the page no longer shows (the user went elsewhere in the app) is given up, and the
  // server then stops its query (server/db/cancellable-query.ts): the full list is up to 10,000 rows.
  const abandonable = { trpc: { abortOnUnmount: true } };
  const allSteps = useQuery({ ...trpc.task.steps.queryOptions({ taskId }, abandonable), ...poll });
  const firstSteps = useQuery({
    ...trpc.task.steps.queryOptions({ taskId, limit: FIRST_STEPS }, abandonable),
    enabled: allSteps.data === undefined,
  });
  const steps = allSteps.data === undefined && firstSteps.data !== undefined ? firstSteps : allSteps;
  const factSummary = useQuery({ ...trpc.workingSet.summary.queryOptions({ taskId }), ...poll });
  const checkpoints = useQuery({ ...trpc.task.checkpoints.queryOptions({ taskId }), ...poll });
  useRefreshWorkingSetWith(task.data, steps.data);
  /** Showing the first steps while the full list loads. */
  const moreComing = steps === firstSteps;
  return { live, task, steps, moreComing, factSummary, checkpoints };
}

export type RunQueries = ReturnType<typeof useRunQueries>;
export type RunTask = NonNullable<RunQueries["task"]["data"]>;
