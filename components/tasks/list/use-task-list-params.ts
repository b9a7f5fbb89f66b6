"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useState } from "react";
import { useReplaceParams } from "@/components/ui/use-replace-params.ts";
import { taskListView } from "./task-list-input.ts";

export { OUTCOME_OPTIONS, STATUS_OPTIONS, dayStart, utcInputInstant, utcInputValue } from "./task-list-input.ts";

/**
 * The task list's filters, in the URL (`status`, `profile`, `outcome`, `model`, `failure`, `from`,
 * `to`, `since`, `q`, `sort`; unknown values are ignored, except `since` — an ISO instant, "launched
 * at or after" — which goes to the server as written, so a bad one is refused naming the field): the values, `input` for `task.list` (launch days
 * as UTC instants, `to` inclusive), `setParam` (null clears), `clear` (keeps the sort), and the
 * search box's draft, written to the URL 300 ms after typing stops.
 */
export function useTaskListParams() {
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const { status, profile, outcome, model, failure, fromDay, toDay, since, q, sort, filtered, input } = taskListView(search);

  const setParam = useReplaceParams();
  const clear = useCallback(
    (keepSort: boolean) => router.replace(keepSort && sort === "oldest" ? `${pathname}?sort=oldest` : pathname, { scroll: false }),
    [router, pathname, sort],
  );

  // The search box updates the URL 300 ms after typing stops.
  const [qDraft, setQDraft] = useState(q);
  useEffect(() => setQDraft(q), [q]);
  useEffect(() => {
    if (qDraft === q) return;
    const t = setTimeout(() => setParam({ q: qDraft.trim() || null }), 300);
    return () => clearTimeout(t);
  }, [qDraft, q, setParam]);

  return { status, profile, outcome, model, failure, fromDay, toDay, since, sort, filtered, input, setParam, clear, qDraft, setQDraft };
}

export type TaskListParams = ReturnType<typeof useTaskListParams>;
