"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/components/trpc.tsx";
import { LoadError } from "@/components/ui/load-error.tsx";
import { Timestamp } from "@/components/ui/timestamp.tsx";
import { holdsAny, roleWords, useMe } from "@/components/auth/use-me.ts";
import { StartEvalForm } from "./start-eval-form.tsx";

/**
 * /evals: the suites (kept as code, applied with `npm run cli -- eval apply <file>`), their cases and
 * latest eval runs, and a form to start an eval run of a suite over chosen profiles — for an operator
 * (eval.start needs the operator role); anyone else reads the reports and is told who starts runs.
 */
export function EvalsPage() {
  const trpc = useTRPC();
  const me = useMe().data;
  const mayStart = holdsAny(me?.roles, ["operator"]);
  const suites = useQuery({ ...trpc.eval.list.queryOptions(), refetchInterval: 5_000 });
  return (
    <div className="p-4 lg:p-8">
      <h1 className="mb-1 text-2xl font-semibold tracking-tight">Evals</h1>
      <p className="mb-6 text-sm text-zinc-600">
        Your own tasks run to completion over several profiles: which model finishes them, at what cost per passing task.
      </p>
      {suites.isError && <LoadError what="eval suites" error={suites.error} onRetry={() => void suites.refetch()} />}
      {suites.data && suites.data.length === 0 && (
        <p className="rounded-md border border-dashed border-zinc-300 p-6 text-sm text-zinc-600">
          No suites yet. Apply one from a file: <code>npm run cli -- eval apply examples/evals/license-audit.yaml</code>
        </p>
      )}
      {suites.data && suites.data.length > 0 && (
        <>
          {mayStart ? (
            <StartEvalForm suites={suites.data.map((s) => s.name)} />
          ) : (
            me && (
              <p className="rounded-lg border border-zinc-200 bg-white p-4 text-sm text-zinc-600" data-testid="eval-start-refused">
                Starting an eval run needs {roleWords(["operator"])}; you can read every suite&apos;s runs and reports below.
              </p>
            )
          )}
          <ul className="mt-6 flex flex-col gap-4" aria-label="Eval suites">
            {suites.data.map((s) => (
              <li key={s.id} className="rounded-lg border border-zinc-200 bg-white p-4" data-testid={`suite-${s.name}`}>
                <h2 className="font-semibold">{s.name}</h2>
                {s.description && <p className="text-sm text-zinc-600">{s.description}</p>}
                <p className="mt-1 text-xs text-zinc-500">
                  {s.cases.length} cases: {s.cases.join(", ")}
                </p>
                {s.runs.length > 0 && (
                  <table className="mt-3 w-full text-sm">
                    <thead className="text-left text-xs text-zinc-500">
                      <tr>
                        <th className="py-1 font-medium">Eval run</th>
                        <th className="font-medium">Profiles</th>
                        <th className="font-medium">Repeats</th>
                        <th className="font-medium">Status</th>
                        <th className="font-medium">Started</th>
                      </tr>
                    </thead>
                    <tbody>
                      {s.runs.map((r) => (
                        <tr key={r.id} className="border-t border-zinc-100">
                          <td className="py-1">
                            <Link className="font-mono text-xs underline" href={`/evals/runs/${r.id}`}>
                              {r.id}
                            </Link>
                          </td>
                          <td>{r.profiles.join(", ")}</td>
                          <td>{r.repeats}</td>
                          <td>{r.status}</td>
                          <td>
                            <Timestamp date={new Date(r.createdAt)} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
