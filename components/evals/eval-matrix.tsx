"use client";

import Link from "next/link";
import type { EvalMatrixCell } from "@/server/features/evals/index.ts";
import { cn } from "@/components/ui/cn.ts";
import { JUDGE_UNAVAILABLE } from "@/lib/contracts/eval.ts";
import { FAILURE_CLASS_LABEL, usd4 } from "./format.ts";
import { SafeText } from "@/components/ui/safe-text.tsx";

const STATUS_LOOK: Record<string, string> = {
  passed: "border-emerald-300 bg-emerald-50 text-emerald-900",
  failed: "border-red-300 bg-red-50 text-red-900",
  cancelled: "border-zinc-300 bg-zinc-100 text-zinc-700",
  running: "border-sky-300 bg-sky-50 text-sky-900",
  pending: "border-zinc-200 bg-white text-zinc-500",
  not_judged: "border-amber-300 bg-amber-50 text-amber-950",
};

/**
 * The case × profile matrix: each repeat a small card — pass/fail in words, steps and cost, a link
 * to its task; a failing one opens to the moment it went wrong: its class and each failing check
 * with the values it saw. `only` (profile + failure class) dims every other cell.
 */
export function EvalMatrix({
  cases,
  profiles,
  cells,
  only,
}: {
  cases: string[];
  profiles: string[];
  cells: EvalMatrixCell[];
  only: { profile: string; failureClass: string } | null;
}) {
  return (
    <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white">
      <table className="w-full text-sm" aria-label="Case by profile matrix">
        <thead className="bg-zinc-50 text-left text-xs text-zinc-500">
          <tr>
            <th className="px-3 py-2 font-medium">Case</th>
            {profiles.map((p) => (
              <th key={p} className="px-3 py-2 font-medium">
                {p}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {cases.map((k) => (
            <tr key={k} className="border-t border-zinc-100 align-top">
              <td className="px-3 py-2 font-medium">{k}</td>
              {profiles.map((p) => (
                <td key={p} className="px-3 py-2">
                  <div className="flex flex-wrap gap-2">
                    {cells
                      .filter((c) => c.caseKey === k && c.profile === p)
                      .map((c) => (
                        <MatrixCell key={c.cellId} cell={c} dim={only !== null && !(only.profile === c.profile && only.failureClass === c.failureClass)} />
                      ))}
                  </div>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function MatrixCell({ cell, dim }: { cell: EvalMatrixCell; dim: boolean }) {
  const failing = cell.checkResults.filter((r) => !r.pass);
  // A cell whose judge could not answer is not a failure of the agent: shown apart, as "not judged".
  const status = cell.status === "failed" && cell.failureClass === JUDGE_UNAVAILABLE ? "not judged" : cell.status;
  return (
    <div
      className={cn(
        "min-w-36 rounded-md border px-2 py-1 text-xs",
        (status === "not judged" ? STATUS_LOOK.not_judged : STATUS_LOOK[cell.status]) ?? STATUS_LOOK.pending,
        dim && "opacity-30",
      )}
      data-testid={`cell-${cell.caseKey}-${cell.profile}-${cell.repeat}`}
    >
      <div className="flex items-center justify-between gap-2">
        <span className="font-semibold">
          #{cell.repeat + 1} {status}
        </span>
        {cell.taskId && (
          <Link className="underline" href={`/tasks/${cell.taskId}`}>
            task
          </Link>
        )}
      </div>
      {cell.steps !== null && (
        <div>
          {cell.steps} steps · {usd4(cell.costUsd)}
        </div>
      )}
      {cell.status === "failed" && (
        <details className="mt-1">
          <summary className="cursor-pointer">{FAILURE_CLASS_LABEL[cell.failureClass ?? ""] ?? cell.failureClass ?? "failed"}: why</summary>
          <ul className="mt-1 flex flex-col gap-1">
            {failing.map((r, i) => (
              <li key={i}>
                <span className="font-medium">{r.label}</span>: <SafeText text={r.detail} />
              </li>
            ))}
          </ul>
          {cell.taskId && cell.taskStatus === "waiting_for_human" && (
            <Link className="underline" href={`/tasks/${cell.taskId}`}>
              the escalation it stopped at
            </Link>
          )}
        </details>
      )}
    </div>
  );
}
