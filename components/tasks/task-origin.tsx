"use client";

import Link from "next/link";
import type { RunTask } from "./run/use-run-queries.ts";
import { SafeText } from "@/components/ui/safe-text.tsx";

/**
 * Where the task came from, one line under the run page's header: the launch template it
 * was launched from (a link to the launch form started from it; an archived template is named
 * without a link, as it can no longer launch) and/or the eval run cell it is (a link to the eval
 * run's report, with the suite, case, profile and repeat). Nothing for a task launched directly.
 */
export function TaskOrigin({ origin }: { origin: RunTask["origin"] }) {
  const { template, evalCell } = origin;
  if (!template && !evalCell) return null;
  return (
    <p className="mt-1 text-xs text-zinc-600 [overflow-wrap:anywhere]" data-testid="task-origin">
      {template && (
        <span data-testid="task-origin-template">
          From launch template{" "}
          {template.archived ? (
            <>
              <SafeText className="font-medium" text={template.name} /> (archived)
            </>
          ) : (
            <Link className="font-medium underline" href={`/tasks/new?template=${encodeURIComponent(template.name)}`} title="Launch again from this template">
              <SafeText text={template.name} />
            </Link>
          )}
        </span>
      )}
      {template && evalCell && " · "}
      {evalCell && (
        <span data-testid="task-origin-eval">
          Eval cell of{" "}
          <Link className="font-medium underline" href={`/evals/runs/${evalCell.evalRunId}`}>
            eval run <SafeText text={evalCell.suite} />
          </Link>
          : case <SafeText className="font-medium" text={evalCell.caseKey} /> · profile <SafeText text={evalCell.profile} /> · repeat {evalCell.repeat + 1}
        </span>
      )}
    </p>
  );
}
