"use client";

import Link from "next/link";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root.ts";
import { money } from "./cost-labels.ts";
import { SafeText } from "@/components/ui/safe-text.tsx";

type Group = inferRouterOutputs<AppRouter>["cost"]["rollup"]["byProfile"][number];

const COLUMNS = ["Tasks", "Completed", "Spend", "Productive · overhead · waste", "Cost / completed task (mean)", "Price table"] as const;

/** A breakdown table: tasks, completed, spend, productive / overhead / waste side by side, mean cost per completed task, price tables. */
export function BreakdownTable({
  title,
  groups,
  label,
  href,
  testId,
  empty,
}: {
  title: string;
  groups: Group[];
  label: (k: string) => string;
  href: (k: string) => string;
  testId: string;
  empty?: string;
}) {
  return (
    <section aria-label={title} className="min-w-0 rounded-lg border border-zinc-200 bg-white">
      <h2 className="border-b border-zinc-200 px-4 py-3 text-sm font-semibold">{title}</h2>
      {groups.length === 0 ? (
        <p className="px-4 py-3 text-sm text-zinc-500">{empty ?? "Nothing in scope."}</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-sm" data-testid={testId}>
            <thead className="bg-zinc-50 text-left text-xs text-zinc-600">
              <tr>
                <th scope="col" className="px-3 py-2 font-medium" />
                {COLUMNS.map((c) => (
                  <th key={c} scope="col" className="px-3 py-2 font-medium">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {groups.map((g) => {
                const est = g.estimatedUsd > 0;
                const share = (x: number) => (g.usd > 0 ? `${(100 * x) / g.usd}%` : "0%");
                return (
                  <tr key={g.key} className="border-t border-zinc-100" data-key={g.key}>
                    <th scope="row" className="min-w-60 px-3 py-2 text-left font-medium [overflow-wrap:anywhere]" data-col="name">
                      <Link className="text-blue-700 underline-offset-2 hover:underline" href={href(g.key)}>
                        <SafeText text={label(g.key)} />
                      </Link>
                    </th>
                    <td className="px-3 py-2 tabular-nums">{g.tasks}</td>
                    <td className="px-3 py-2 tabular-nums">{g.completed}</td>
                    <td className="px-3 py-2 tabular-nums" data-col="spend">
                      {money(g.usd, est)}
                    </td>
                    <td className="px-3 py-2">
                      <div className="flex h-2 w-32 overflow-hidden rounded bg-zinc-100" aria-hidden>
                        <div className="bg-emerald-600" style={{ width: share(g.productiveUsd) }} />
                        <div className="bg-blue-600" style={{ width: share(g.overheadUsd) }} />
                        <div className="bg-red-600" style={{ width: share(g.wasteUsd) }} />
                      </div>
                      <div className="mt-1 text-xs text-zinc-600 tabular-nums">
                        {money(g.productiveUsd)} · {money(g.overheadUsd)} · {money(g.wasteUsd)}
                      </div>
                    </td>
                    <td className="px-3 py-2 tabular-nums" data-col="cpc">
                      {money(g.costPerCompletedUsd, est)}
                    </td>
                    <td className={"px-3 py-2 text-xs " + (g.priceVersions.length > 1 ? "text-amber-800" : "text-zinc-500")} data-col="prices">
                      {g.priceVersions.length > 0 ? g.priceVersions.join(" + ") : "—"}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
