"use client";

import { useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";
import { useReplaceParams } from "@/components/ui/use-replace-params.ts";
import { calendarDayProblem } from "@/lib/contracts/dates.ts";
import { OUTCOMES, OUTCOME_STATUS, OUTCOME_TASK_OUTCOME, type Outcome } from "./cost-labels.ts";

/** /costs filters as the rollup takes them (launch days YYYY-MM-DD, UTC). */
export interface CostFilters {
  from?: string;
  to?: string;
  profile?: string;
  model?: string;
  outcome?: Outcome;
  bucket: "day" | "week";
}

/**
 * Why a launch-day range cannot be asked for, per field, or null when it can: a day that is not a
 * calendar day (lib/contracts/dates.ts), or `from` after `to` (the form refuses it rather than the
 * server: a Retry could only fail again).
 */
export function rangeProblem(from: string | undefined, to: string | undefined): { from?: string; to?: string } | null {
  const fromProblem = from ? calendarDayProblem(from) : null;
  const toProblem = to ? calendarDayProblem(to) : null;
  if (fromProblem || toProblem) return { ...(fromProblem ? { from: `From: ${fromProblem}` } : {}), ...(toProblem ? { to: `To: ${toProblem}` } : {}) };
  if (from && to && from > to) return { to: `To: ${to} is before From (${from}); pick a day on or after it` };
  return null;
}

/**
 * The filters of /costs, in the URL (`from`, `to`, `profile`, `model`, `outcome`, `bucket`):
 * `setFilter` sets or clears keys (replacing the URL), `tasksHref` links a figure to the tasks behind
 * it, `problem` says what is wrong with the range (then nothing is asked of the server).
 */
export function useCostFilters() {
  const search = useSearchParams();
  const filters = useMemo<CostFilters>(() => {
    const get = (k: string) => search.get(k) || undefined;
    const outcome = get("outcome");
    return {
      from: get("from"),
      to: get("to"),
      profile: get("profile"),
      model: get("model"),
      outcome: OUTCOMES.some(([k]) => k === outcome) ? (outcome as Outcome) : undefined,
      bucket: search.get("bucket") === "week" ? "week" : "day",
    };
  }, [search]);
  const problem = useMemo(() => rangeProblem(filters.from, filters.to), [filters.from, filters.to]);

  const setFilter = useReplaceParams();

  /**
   * /tasks?… for the tasks behind a figure: the page's filters plus `extra`. The task list filters
   * by task status, so a /costs outcome becomes `status` (waiting → waiting_for_human, running →
   * queued,running; completed with gaps → completed and the list's outcome completed_with_gaps); launch days (`from`, `to`, UTC) and `profile` carry over as they are.
   */
  const tasksHref = useCallback(
    (extra: Record<string, string | undefined> = {}) => {
      const params = new URLSearchParams();
      const all = { from: filters.from, to: filters.to, profile: filters.profile, model: filters.model, outcome: filters.outcome, ...extra };
      for (const [k, v] of Object.entries(all)) {
        if (!v) continue;
        if (k === "outcome") {
          params.set("status", OUTCOME_STATUS[v] ?? v);
          const taskOutcome = OUTCOME_TASK_OUTCOME[v];
          if (taskOutcome) params.set("outcome", taskOutcome);
        } else params.set(k, v);
      }
      const q = params.toString();
      return q ? `/tasks?${q}` : "/tasks";
    },
    [filters],
  );
  return { filters, problem, setFilter, tasksHref };
}

export type CostFilterState = ReturnType<typeof useCostFilters>;
