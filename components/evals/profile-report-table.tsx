"use client";

import { JUDGE_UNAVAILABLE, NOT_JUDGED_RULE } from "@/lib/contracts/eval.ts";
import type { EvalProfileReport } from "@/server/features/evals/index.ts";
import { FAILURE_CLASS_LABEL, pct, secs, usd4 } from "./format.ts";

/**
 * The deciding view of an eval run: one row per profile — pass rate with its 95 % interval, pass^k,
 * completion rate, cost per passing and per completed task, steps p50/p90, waste, escalations per
 * task, duration p50/p90 and the failures by class (each class filters the matrix to its cells).
 * Cells whose judge could not answer are shown apart ("not judged", a filter of their own) and the
 * table says under it how the pass rate treats them (NOT_JUDGED_RULE).
 */
export function ProfileReportTable({
  report,
  onFailureClass,
}: {
  report: EvalProfileReport[];
  onFailureClass: (profile: string, failureClass: string) => void;
}) {
  const notJudged = report.reduce((n, p) => n + p.notJudged, 0);
  return (
    <>
      <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white">
        <table className="w-full text-sm" aria-label="Report per profile">
          <thead className="bg-zinc-50 text-left text-xs text-zinc-500">
            <tr>
              {[
                "Profile",
                "Cells",
                "Pass rate (95% CI)",
                "pass^k",
                "Completed",
                "Cost / passing task",
                "Cost / completed task",
                "Steps p50 · p90",
                "Waste",
                "Escalations / task",
                "Duration p50 · p90",
                "Not judged",
                "Failures",
              ].map((h) => (
                <th key={h} className="px-3 py-2 font-medium">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {report.map((p) => (
              <tr key={p.profile} className="border-t border-zinc-100" data-testid={`report-${p.profile}`}>
                <td className="px-3 py-2 font-medium">{p.profile}</td>
                <td className="px-3 py-2">
                  {p.ended}/{p.cells}
                </td>
                <td className="px-3 py-2" data-testid="pass-rate">
                  {pct(p.passRate)}{" "}
                  <span className="text-xs text-zinc-500">
                    ({pct(p.passRateLow)}–{pct(p.passRateHigh)})
                  </span>
                </td>
                <td className="px-3 py-2" data-testid="pass-hat-k">
                  {pct(p.passHatK)}
                </td>
                <td className="px-3 py-2">{pct(p.completionRate)}</td>
                <td className="px-3 py-2" data-testid="cost-per-pass">
                  {usd4(p.costPerPassUsd)}
                </td>
                <td className="px-3 py-2">{usd4(p.costPerCompletedUsd)}</td>
                <td className="px-3 py-2">
                  {p.stepsP50 ?? "—"} · {p.stepsP90 ?? "—"}
                </td>
                <td className="px-3 py-2">{pct(p.wasteShare)}</td>
                <td className="px-3 py-2">{p.escalationsPerTask ?? "—"}</td>
                <td className="px-3 py-2">
                  {secs(p.durationP50Ms)} · {secs(p.durationP90Ms)}
                </td>
                <td className="px-3 py-2" data-testid="not-judged">
                  {p.notJudged === 0 ? (
                    "0"
                  ) : (
                    <button
                      type="button"
                      className="rounded bg-amber-100 px-1.5 font-medium text-amber-900 underline"
                      title="The judge could not answer (unreachable, an error, an unusable reply): these cells say nothing about the agent"
                      onClick={() => onFailureClass(p.profile, JUDGE_UNAVAILABLE)}
                    >
                      {p.notJudged} of {p.ended}
                    </button>
                  )}
                </td>
                <td className="px-3 py-2">
                  {Object.entries(p.failureClasses).length === 0
                    ? "none"
                    : Object.entries(p.failureClasses).map(([k, n]) => (
                        <button key={k} type="button" className="mr-2 underline" onClick={() => onFailureClass(p.profile, k)}>
                          {FAILURE_CLASS_LABEL[k] ?? k}: {n}
                        </button>
                      ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="mt-2 text-xs text-zinc-600" data-testid="pass-rate-rule">
        {notJudged > 0 ? (
          <span className="font-medium text-amber-900">
            {notJudged} cell{notJudged === 1 ? "" : "s"} not judged: the judge could not answer.{" "}
          </span>
        ) : null}
        Pass rate: {NOT_JUDGED_RULE}.
      </p>
    </>
  );
}
