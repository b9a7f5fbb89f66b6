"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";
import type { PanelTab } from "../detail-panel.tsx";
import { parseStepFilter, writeStepFilter, type StepFilter } from "../step-filter.ts";

/** A change to the run page's URL state: `null` clears a key, `undefined` leaves it. */
export interface RunParamsChange {
  step?: string | null;
  tab?: PanelTab;
  keys?: string;
  run?: string | null;
  wf?: boolean;
  filter?: StepFilter;
}

/**
 * The run page's view state, all in the URL so a link opens the same view: the selected step
 * (`step=<runId>:<stepId>`), the panel tab (`tab`), the working-set key filter (`keys`), the run shown
 * (`run`), the waterfall toggle (`wf=1` shows it; it is folded away by default, so the step list
 * stays above the fold of a 900 px tall window) and the step filter (step-filter.ts). `setParams`
 * replaces the URL (no history entry, no scroll).
 */
export function useRunParams() {
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const filter = useMemo(() => parseStepFilter(new URLSearchParams(search.toString())), [search]);
  const setParams = useCallback(
    (next: RunParamsChange) => {
      let params = new URLSearchParams(search.toString());
      if (next.filter) params = writeStepFilter(params, next.filter);
      const setOrDelete = (key: string, value: string | null | undefined) => {
        if (value === undefined) return;
        if (value) params.set(key, value);
        else params.delete(key);
      };
      setOrDelete("step", next.step);
      setOrDelete("keys", next.keys);
      setOrDelete("run", next.run);
      if (next.wf !== undefined) {
        if (next.wf) params.set("wf", "1");
        else params.delete("wf");
      }
      if (next.tab) params.set("tab", next.tab);
      router.replace(`${pathname}?${params.toString()}`, { scroll: false });
    },
    [router, pathname, search],
  );
  return {
    selectedKey: search.get("step"),
    tab: (search.get("tab") as PanelTab | null) ?? "step",
    keyFilter: search.get("keys") ?? "",
    runParam: search.get("run"),
    showWaterfall: search.get("wf") === "1",
    filter,
    setParams,
  };
}

export type RunParams = ReturnType<typeof useRunParams>;
