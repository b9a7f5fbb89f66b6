"use client";

import { useQuery } from "@tanstack/react-query";
import { LivePill } from "@/components/live/use-live-updates.tsx";
import { useTRPC } from "@/components/trpc.tsx";
import { LoadError } from "@/components/ui/load-error.tsx";
import { FAILURE_LABELS, type FailureClass } from "@/lib/contracts/failure.ts";
import { BreakdownTable } from "./breakdown-table.tsx";
import { CostCharts, type PeriodPoint } from "./cost-charts.tsx";
import { CostFiltersForm } from "./cost-filters.tsx";
import { CostGroupBy } from "./cost-group-by.tsx";
import { CostHeadline } from "./cost-headline.tsx";
import { bucketEnd, CAUSES, money, OUTCOME_LABEL } from "./cost-labels.ts";
import { OutcomesTable } from "./outcomes-table.tsx";
import { useCostFilters } from "./use-cost-filters.ts";
import { useCostLive } from "./use-cost-live.ts";

/**
 * The managers' page: cost per completed task and what the rest of the money bought.
 * Filters live in the URL (`from`, `to`, `profile`, `model`, `outcome`, `bucket`; use-cost-filters.ts);
 * every figure links to the tasks behind it (/tasks with `profile`, `status`, `from`, `to`); the
 * outcomes table downloads as CSV with the same cells; refreshed from the change feed when tasks end.
 */
export function CostsPage() {
  const trpc = useTRPC();
  const live = useCostLive();
  const state = useCostFilters();
  const { filters, problem, setFilter, tasksHref } = state;
  const rollup = useQuery({
    ...trpc.cost.rollup.queryOptions(filters),
    // A range the form refuses is not asked of the server (it could only answer an error).
    enabled: problem === null,
    refetchInterval: live === "live" ? false : 5_000,
    placeholderData: (prev) => prev,
  });
  const profiles = useQuery(trpc.profile.list.queryOptions());

  const r = rollup.data;
  const h = r?.headline;
  const models = [...new Set([...(r?.byModel.map((g) => g.key) ?? []), ...(filters.model ? [filters.model] : [])])].sort();
  const periods: PeriodPoint[] = (r?.byPeriod ?? []).map((g) => ({
    key: g.key,
    costPerCompleted: g.costPerCompletedUsd,
    label: money(g.costPerCompletedUsd),
    ...Object.fromEntries(CAUSES.map((c) => [c.key, Number((g.byCause[c.key] ?? 0).toFixed(6))])),
  }));
  // Named after the launch-day range it covers (the dates on /costs are launch days, UTC).
  const csvName = `longhaul-costs-launched${filters.from ? `-from-${filters.from}` : ""}${filters.to ? `-to-${filters.to}` : ""}.csv`;

  return (
    <div className="p-4 lg:p-8">
      <div className="mb-6 flex flex-wrap items-center justify-between gap-3">
        <div className="flex items-center gap-3">
          <h1 className="text-2xl font-semibold tracking-tight">Costs</h1>
          <LivePill state={live} />
        </div>
        <p className="text-xs text-zinc-500" data-testid="price-tables">
          Dates: each task on its {r?.dateBasis ?? "launch day (UTC)"}, with its whole spend. Price table
          {(h?.priceVersions.length ?? 0) > 1 ? "s" : ""}: {h?.priceVersions.join(", ") || "—"}
        </p>
      </div>
      {h?.mixedPrices && (
        // Honest but small: one line that says it, the explanation on demand.
        <details role="note" data-testid="mixed-prices" className="mb-4 text-xs text-amber-900">
          <summary className="inline-flex cursor-pointer items-center gap-1 rounded border border-amber-200 bg-amber-50 px-2 py-0.5">
            Totals mix {h.priceVersions.length} price tables
          </summary>
          <p className="mt-1 max-w-3xl rounded border border-amber-200 bg-amber-50 px-3 py-2">
            The figures in scope were priced from {h.priceVersions.length} price tables whose prices differ ({h.priceVersions.join(", ")}), so totals add
            dollars from different tables. The Price table column of each breakdown says which rows use which.
          </p>
        </details>
      )}

      <CostFiltersForm state={state} profiles={(profiles.data ?? []).map((p) => p.name)} models={models} />

      {rollup.isError && <LoadError what="costs" error={rollup.error} onRetry={() => void rollup.refetch()} className="mb-4" />}
      {problem ? null : !r ? (
        <div className="h-40 animate-pulse rounded-lg bg-zinc-100" aria-busy="true" aria-label="Loading costs" />
      ) : h && h.tasks === 0 ? (
        <p className="rounded-lg border border-dashed border-zinc-300 p-10 text-center text-sm text-zinc-600">
          No tasks were launched in this period with these filters.
        </p>
      ) : (
        h && (
          <>
            <CostHeadline h={h} tasksHref={tasksHref} />
            <CostCharts periods={periods} bucket={filters.bucket} onBucket={(key) => setFilter({ from: key, to: bucketEnd(key, filters.bucket) })} />
            <section aria-label="By period" className="mb-6">
              <BreakdownTable
                title={filters.bucket === "week" ? "By launch week (starting Monday, UTC)" : "By launch day (UTC)"}
                testId="by-period"
                groups={r.byPeriod}
                label={(k) => k}
                href={(k) => tasksHref({ from: k, to: bucketEnd(k, filters.bucket) })}
              />
            </section>
            <OutcomesTable r={r} tasksHref={tasksHref} csvName={csvName} />
            <CostGroupBy r={r} filters={filters} tasksHref={tasksHref} />
            {/* One table a row: side by side, seven columns each left the name a letter or two a line and cut off Price table. */}
            <div className="grid gap-6">
              <BreakdownTable title="By profile" testId="by-profile" groups={r.byProfile} label={(k) => k} href={(k) => tasksHref({ profile: k })} />
              <BreakdownTable title="By model" testId="by-model" groups={r.byModel} label={(k) => k} href={(k) => tasksHref({ model: k })} />
              <BreakdownTable
                title="By outcome"
                testId="by-outcome"
                groups={r.byOutcome}
                label={(k) => OUTCOME_LABEL[k] ?? k}
                href={(k) => tasksHref({ outcome: k })}
              />
              <BreakdownTable
                title="By failure class"
                testId="by-failure"
                groups={r.byFailureClass}
                label={(k) => FAILURE_LABELS[k as FailureClass] ?? k}
                href={(k) => tasksHref({ failure: k })}
                empty="No failed, dead-end or waiting tasks in scope."
              />
            </div>
          </>
        )
      )}
    </div>
  );
}
