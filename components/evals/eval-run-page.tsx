"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { holdsAny, useMe } from "@/components/auth/use-me.ts";
import { ConfirmDialog } from "@/components/ui/confirm-dialog.tsx";
import { Field } from "@/components/ui/field.tsx";
import { LoadError } from "@/components/ui/load-error.tsx";
import { Select } from "@/components/ui/select.tsx";
import { EvalMatrix } from "./eval-matrix.tsx";
import { ProfileReportTable } from "./profile-report-table.tsx";

/**
 * /evals/runs/[id]: an eval run's report (per profile), its case × profile matrix, CSV/JSON export,
 * Cancel while running (for an operator, as eval.cancel; confirmed in the app's dialog), and the comparison with an earlier run (`?compareTo=`). Refreshed every 2 s
 * while the run is going.
 */
export function EvalRunPage({ evalRunId, compareTo }: { evalRunId: string; compareTo?: string }) {
  const trpc = useTRPC();
  const report = useQuery({
    ...trpc.eval.report.queryOptions({ evalRunId, ...(compareTo ? { compareTo } : {}) }),
    refetchInterval: (q) => (q.state.data?.status === "running" ? 2_000 : false),
  });
  const router = useRouter();
  const suites = useQuery(trpc.eval.list.queryOptions());
  const others = suites.data?.find((s) => s.name === report.data?.suite)?.runs.filter((x) => x.id !== evalRunId) ?? [];
  const cancel = useMutation(trpc.eval.cancel.mutationOptions({ onSuccess: () => void report.refetch() }));
  const mayCancel = holdsAny(useMe().data?.roles, ["operator"]);
  const [asking, setAsking] = useState(false);
  const [only, setOnly] = useState<{ profile: string; failureClass: string } | null>(null);
  const r = report.data;
  const exportCsv = useQuery({ ...trpc.eval.export.queryOptions({ evalRunId, format: "csv" }), enabled: false });
  const exportJson = useQuery({ ...trpc.eval.export.queryOptions({ evalRunId, format: "json" }), enabled: false });
  async function download(format: "csv" | "json") {
    const out = (await (format === "csv" ? exportCsv : exportJson).refetch()).data ?? { content: "" };
    const blob = new Blob([out.content], { type: format === "csv" ? "text/csv" : "application/json" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = `${evalRunId}.${format}`;
    a.click();
    URL.revokeObjectURL(a.href);
  }
  return (
    <div className="p-4 lg:p-8">
      <p className="mb-2 text-sm">
        <Link href="/evals" className="underline">
          Evals
        </Link>
      </p>
      {report.isError && <LoadError what="the eval report" error={report.error} onRetry={() => void report.refetch()} />}
      {!r && !report.isError && <div className="h-40 animate-pulse rounded bg-zinc-200/60" />}
      {r && (
        <>
          <div className="mb-4 flex flex-wrap items-center justify-between gap-3">
            <div>
              <h1 className="text-2xl font-semibold tracking-tight">
                {r.suite} <span className="text-base font-normal text-zinc-500">· eval run</span>
              </h1>
              <p className="text-sm text-zinc-600" data-testid="eval-status">
                {r.status} · {r.profiles.length} profiles × {r.cases.length} cases × {r.repeats} repeats · concurrency {r.concurrency} · escalations{" "}
                {r.onEscalation === "fail" ? "fail the cell" : "wait for a human"}
              </p>
            </div>
            <div className="flex gap-2">
              <button type="button" className="rounded-md border border-zinc-300 px-3 py-1.5 text-sm" onClick={() => void download("csv")}>
                Export CSV
              </button>
              <button type="button" className="rounded-md border border-zinc-300 px-3 py-1.5 text-sm" onClick={() => void download("json")}>
                Export JSON
              </button>
              {r.status === "running" && mayCancel && (
                <button
                  type="button"
                  className="rounded-md border border-red-300 px-3 py-1.5 text-sm text-red-800"
                  disabled={cancel.isPending}
                  onClick={() => setAsking(true)}
                >
                  Cancel eval run
                </button>
              )}
              <ConfirmDialog
                open={asking}
                title="Cancel this eval run?"
                description="Cells not yet finished are cancelled with their tasks; finished cells and their report stay."
                confirmLabel="Cancel eval run"
                onCancel={() => setAsking(false)}
                onConfirm={() => {
                  setAsking(false);
                  cancel.mutate({ evalRunId });
                }}
              />
            </div>
          </div>
          {others.length > 0 && (
            <Field label="Compare with an earlier run" className="mb-4 w-fit max-w-full">
              <Select
                value={compareTo ?? ""}
                onChange={(e) => router.push(`/evals/runs/${evalRunId}${e.target.value ? `?compareTo=${e.target.value}` : ""}`)}
                placeholder="—"
                options={others.map((o) => [o.id, `${o.id} (${o.profiles.join(", ")})`] as const)}
              />
            </Field>
          )}
          <h2 className="mb-2 font-semibold">Which profile finishes these tasks</h2>
          <ProfileReportTable
            report={r.report}
            onFailureClass={(profile, failureClass) =>
              setOnly((o) => (o?.profile === profile && o.failureClass === failureClass ? null : { profile, failureClass }))
            }
          />
          <div className="mt-6 mb-2 flex items-center gap-3">
            <h2 className="font-semibold">Cases × profiles</h2>
            {only && (
              <button type="button" className="text-sm underline" onClick={() => setOnly(null)}>
                Show all cells (showing {only.profile}: {only.failureClass})
              </button>
            )}
          </div>
          <EvalMatrix cases={r.cases} profiles={r.profiles} cells={r.cells} only={only} />
          <section className="mt-6" aria-label="Budgets from history">
            <h2 className="mb-2 font-semibold">Budgets from history</h2>
            <table className="w-full rounded-lg border border-zinc-200 bg-white text-sm">
              <thead className="bg-zinc-50 text-left text-xs text-zinc-500">
                <tr>
                  <th className="px-3 py-2 font-medium">Case</th>
                  <th className="px-3 py-2 font-medium">Profile</th>
                  <th className="px-3 py-2 font-medium">Suggested step budget</th>
                  <th className="px-3 py-2 font-medium">Basis</th>
                </tr>
              </thead>
              <tbody>
                {r.budgets.map((b) => (
                  <tr key={`${b.caseKey}-${b.profile}`} className="border-t border-zinc-100" data-testid={`budget-${b.caseKey}-${b.profile}`}>
                    <td className="px-3 py-2">{b.caseKey}</td>
                    <td className="px-3 py-2">{b.profile}</td>
                    <td className="px-3 py-2">{b.stepBudget ?? "—"}</td>
                    <td className="px-3 py-2 text-zinc-600">{b.note}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          {r.diff && (
            <section className="mt-6" aria-label="Compared with an earlier run">
              <h2 className="mb-2 font-semibold">Compared with {compareTo}</h2>
              {r.diff.every((d) => d.change === "same") && <p className="text-sm text-zinc-600">No case × profile passed more or less often.</p>}
              <ul className="text-sm" data-testid="eval-diff">
                {r.diff
                  .filter((d) => d.change !== "same")
                  .map((d) => (
                    <li key={`${d.caseKey}-${d.profile}`}>
                      {d.caseKey} × {d.profile}: <strong>{d.change}</strong> ({d.base ?? "—"} → {d.current ?? "—"})
                    </li>
                  ))}
              </ul>
            </section>
          )}
        </>
      )}
    </div>
  );
}
