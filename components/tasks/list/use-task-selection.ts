"use client";

import { useCallback, useEffect, useState } from "react";

/**
 * The task list's selection for batch actions: tasks ticked one by one (`ids`), or every task the
 * current filter matches (`allMatching`, which the server resolves, so it is not limited to the
 * loaded rows). Changing the filter (`filterKey`) clears it, so a batch never takes tasks the page
 * no longer shows.
 */
export function useTaskSelection(filterKey: string) {
  const [ids, setIds] = useState<ReadonlySet<string>>(new Set());
  const [allMatching, setAllMatching] = useState(false);
  useEffect(() => {
    setIds(new Set());
    setAllMatching(false);
  }, [filterKey]);
  const toggle = useCallback((id: string) => {
    setAllMatching(false);
    setIds((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }, []);
  const setMany = useCallback((rowIds: readonly string[], on: boolean) => {
    setAllMatching(false);
    setIds((prev) => {
      const next = new Set(prev);
      for (const id of rowIds) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  }, []);
  const clear = useCallback(() => {
    setIds(new Set());
    setAllMatching(false);
  }, []);
  return { ids, allMatching, setAllMatching, toggle, setMany, clear };
}

export type TaskSelection = ReturnType<typeof useTaskSelection>;
