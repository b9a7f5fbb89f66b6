"use client";

import Link from "next/link";
import type { RunTask } from "./run/use-run-queries.ts";

const statusWord = (s: string) => s.replaceAll("_", " ");

/**
 * The task's fork links both ways (a fork is a new task, a branch of the one it came
 * from), one line under the run page's header: "Forked from <task> at checkpoint #n" when this task
 * is a fork, and "Forks: <task> (status), …" for the tasks forked from it (task.get's `forks`,
 * oldest first, at most 200). Each task is a link to its run page. Nothing when neither applies.
 */
export function TaskForks({ forkedFrom, forks }: { forkedFrom: RunTask["forkedFrom"]; forks: RunTask["forks"] }) {
  if (!forkedFrom && forks.length === 0) return null;
  return (
    <p className="mt-1 text-xs text-zinc-600 [overflow-wrap:anywhere]" data-testid="task-forks">
      {forkedFrom && (
        <span data-testid="task-forked-from">
          Forked from{" "}
          <Link className="font-mono font-medium underline" href={`/tasks/${forkedFrom.taskId}`}>
            {forkedFrom.taskId}
          </Link>
          {forkedFrom.checkpointSeq !== null && ` at checkpoint #${forkedFrom.checkpointSeq}`}
        </span>
      )}
      {forkedFrom && forks.length > 0 && " · "}
      {forks.length > 0 && (
        <span data-testid="task-fork-list">
          Forks:{" "}
          {forks.map((f, i) => (
            <span key={f.taskId}>
              {i > 0 && ", "}
              <Link
                className="font-mono font-medium underline"
                href={`/tasks/${f.taskId}`}
                title={f.checkpointSeq !== null ? `forked at checkpoint #${f.checkpointSeq}` : undefined}
              >
                {f.taskId}
              </Link>{" "}
              ({statusWord(f.status)}
              {f.checkpointSeq !== null ? `, from #${f.checkpointSeq}` : ""})
            </span>
          ))}
        </span>
      )}
    </p>
  );
}
