"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { groupByStep, PAGE } from "./labels.ts";

/**
 * The Working set tab's server state for keys starting with `keyFilter`: the current facts
 * (`workingSet.current`) and the history of changes (`workingSet.history`), each paged by the server
 * ({@link PAGE} a page, the previous answer kept while a new filter loads), with the history grouped
 * by the step that caused each change, the runs by id, and both totals.
 */
export function useWorkingSet(taskId: string, keyFilter: string) {
  const trpc = useTRPC();
  const history = useInfiniteQuery({
    ...trpc.workingSet.history.infiniteQueryOptions({ taskId, keyPrefix: keyFilter, limit: PAGE }, { getNextPageParam: (last) => last.nextCursor }),
    placeholderData: keepPreviousData,
  });
  const current = useInfiniteQuery({
    ...trpc.workingSet.current.infiniteQueryOptions({ taskId, keyPrefix: keyFilter, limit: PAGE }, { getNextPageParam: (last) => last.nextCursor }),
    placeholderData: keepPreviousData,
  });
  const changes = useMemo(() => history.data?.pages.flatMap((p) => p.changes) ?? [], [history.data]);
  const groups = useMemo(() => groupByStep(changes), [changes]);
  const runs = useMemo(() => new Map((history.data?.pages.at(-1)?.runs ?? []).map((r) => [r.id, r])), [history.data]);
  const facts = current.data?.pages.flatMap((p) => p.facts) ?? [];
  return {
    history,
    current,
    changes,
    groups,
    runs,
    facts,
    totalChanges: history.data?.pages.at(-1)?.total ?? 0,
    totalFacts: current.data?.pages.at(-1)?.total ?? 0,
    error: history.error ?? current.error,
  };
}

/** What {@link useWorkingSet} returns. */
export type WorkingSetState = ReturnType<typeof useWorkingSet>;
