"use client";

import { LoadError } from "@/components/ui/load-error.tsx";
import { useQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";
import { Bar, BarChart, CartesianGrid, LabelList, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { LivePill } from "@/components/live/use-live-updates.tsx";
import { useTRPC } from "@/components/trpc.tsx";
import type { AppRouter } from "@/server/api/root.ts";
import { useCostLive } from "./use-cost-live.ts";

type Rollup = inferRouterOutputs<AppRouter>["cost"]["rollup"];
type Group = Rollup["byProfile"][number];

const OUTCOMES = [
  ["completed", "Completed"],
  ["dead_end", "Dead end"],
  ["failed", "Failed"],
  ["cancelled", "Cancelled"],
  ["waiting", "Waiting"],
  ["running", "Running"],
] as const;
const OUTCOME_LABEL: Record<string, string> = Object.fromEntries(OUTCOMES);
/** A /costs outcome as the task list's `status` filter (Task.status values, comma-separated). */
const OUTCOME_STATUS: Record<string, string> = {
  completed: "completed",
  dead_end: "dead_end",
  failed: "failed",
  cancelled: "cancelled",
  waiting: "waiting_for_human",
  running: "queued,running",
};
const FAILURE_LABEL: Record<string, string> = {
  transient: "Transient",
  saturation: "Saturation",
  drift: "Drift",
  dead_end: "Dead end",
  budget: "Budget",
  loop: "Loop",
  stall: "Stall",
  error: "Error",
};
/** Causes in the stacked chart: productive, overhead (checkpoint, compaction), waste (the rest). */
const CAUSES = [
  { key: "productive", label: "Productive", color: "#059669" },
  { key: "checkpoint", label: "Checkpoint", color: "#2563eb" },
  { key: "compaction", label: "Compaction", color: "#60a5fa" },
  { key: "retry", label: "Retry", color: "#f59e0b" },
  { key: "replay", label: "Replay", color: "#fb923c" },
  { key: "restart", label: "Restart", color: "#ef4444" },
  { key: "discarded", label: "Discarded", color: "#b91c1c" },
] as const;

/** USD as the cost tables show it (4 decimals; "*" when part of it is estimated). */
function money(usd: number | null | undefined, estimated = false): string {
  if (usd === null || usd === undefined) return "—";
  return `$${usd.toFixed(4)}${estimated ? "*" : ""}`;
}
const pct = (x: number | null | undefined) => (x === null || x === undefined ? "—" : `${Math.round(x * 100)}%`);

/** End of the bucket starting at `key` (YYYY-MM-DD): the same day, or six days later for a week. */
function bucketEnd(key: string, bucket: "day" | "week"): string {
  if (bucket === "day") return key;
  const d = new Date(`${key}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 6);
  return d.toISOString().slice(0, 10);
}

/**
 * The managers' page (issue 9): cost per completed task and what the rest of the money bought.
 * Filters live in the URL (`from`, `to`, `profile`, `model`, `outcome`, `bucket`); every figure
 * links to the tasks behind it (/tasks with `profile`, `status`, `from`, `to`); the outcomes table
 * downloads as CSV with the same cells; refreshed from the change feed when tasks end.
 */
export function CostsPage() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const live = useCostLive();
  const filters = useMemo(() => {
    const get = (k: string) => search.get(k) || undefined;
    const outcome = get("outcome");
    return {
      from: get("from"),
      to: get("to"),
      profile: get("profile"),
      model: get("model"),
      outcome: OUTCOMES.some(([k]) => k === outcome) ? (outcome as (typeof OUTCOMES)[number][0]) : undefined,
      bucket: search.get("bucket") === "week" ? ("week" as const) : ("day" as const),
    };
  }, [search]);
  const rollup = useQuery({ ...trpc.cost.rollup.queryOptions(filters), refetchInterval: live === "live" ? false : 5_000, placeholderData: (prev) => prev });
  const profiles = useQuery(trpc.profile.list.queryOptions());

  const setFilter = useCallback(
    (next: Record<string, string | undefined>) => {
      const params = new URLSearchParams(search.toString());
      for (const [k, v] of Object.entries(next)) {
        if (v) params.set(k, v);
        else params.delete(k);
      }
      router.replace(`${pathname}?${params.toString()}`, { scroll: false });
    },
    [pathname, router, search],
  );

  /**
   * /tasks?… for the tasks behind a figure: the page's filters plus `extra`. The task list filters
   * by task status, so a /costs outcome becomes `status` (waiting → waiting_for_human, running →
   * queued,running); launch days (`from`, `to`, UTC) and `profile` carry over as they are.
   */
  const tasksHref = useCallback(
    (extra: Record<string, string | undefined> = {}) => {
      const params = new URLSearchParams();
      const all = { from: filters.from, to: filters.to, profile: filters.profile, model: filters.model, outcome: filters.outcome, ...extra };
      for (const [k, v] of Object.entries(all)) {
        if (!v) continue;
        if (k === "outcome") params.set("status", OUTCOME_STATUS[v] ?? v);
        else params.set(k, v);
      }
      const q = params.toString();
      return q ? `/tasks?${q}` : "/tasks";
    },
    [filters],
  );

  const r = rollup.data;
  const h = r?.headline;
  const est = (h?.estimatedUsd ?? 0) > 0;
  const models = [...new Set([...(r?.byModel.map((g) => g.key) ?? []), ...(filters.model ? [filters.model] : [])])].sort();
  const periods = (r?.byPeriod ?? []).map((g) => ({
    key: g.key,
    costPerCompleted: g.costPerCompletedUsd,
    label: money(g.costPerCompletedUsd),
    ...Object.fromEntries(CAUSES.map((c) => [c.key, Number((g.byCause[c.key] ?? 0).toFixed(6))])),
  }));

  const download = () => {
    if (!r) return;
    const blob = new Blob([r.outcomeCsv], { type: "text/csv;charset=utf-8" });
    const url = URL.createObjectURL(blob);
    const a = document.createElement("a");
    a.href = url;
    // Named after the launch-day range it covers (the dates on /costs are launch days, UTC).
    a.download = `longhaul-costs-launched${filters.from ? `-from-${filters.from}` : ""}${filters.to ? `-to-${filters.to}` : ""}.csv`;
    a.click();
    URL.revokeObjectURL(url);
  };

  return (
    <div className="p-8">
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
      {h && h.priceVersions.length > 1 && (
        <p role="note" data-testid="mixed-prices" className="mb-6 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          Mixed price tables: the figures in scope were priced from {h.priceVersions.length} different price tables ({h.priceVersions.join(", ")}), so totals
          add dollars from different tables. The Price table column says which rows use which.
        </p>
      )}

      <form
        aria-label="Filters"
        className="mb-6 flex flex-wrap items-end gap-3 rounded-lg border border-zinc-200 bg-white p-4 text-sm"
        onSubmit={(e) => e.preventDefault()}
      >
        <label className="flex flex-col gap-1">
          <span className="text-xs font-medium text-zinc-600">From</span>
          <input
            type="date"
            name="from"
            value={filters.from ?? ""}
            onChange={(e) => setFilter({ from: e.target.value })}
            className="rounded border border-zinc-300 px-2 py-1"
          />
        </label>
        <label className="flex flex-col gap-1">
          <span className="text-xs font-medium text-zinc-600">To</span>
          <input
            type="date"
            name="to"
            value={filters.to ?? ""}
            onChange={(e) => setFilter({ to: e.target.value })}
            className="rounded border border-zinc-300 px-2 py-1"
          />
        </label>
        <label className="flex flex-col gap-1">
          <span className="text-xs font-medium text-zinc-600">Profile</span>
          <select
            name="profile"
            value={filters.profile ?? ""}
            onChange={(e) => setFilter({ profile: e.target.value })}
            className="rounded border border-zinc-300 px-2 py-1"
          >
            <option value="">All profiles</option>
            {(profiles.data ?? []).map((p) => (
              <option key={p.id} value={p.name}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1">
          <span className="text-xs font-medium text-zinc-600">Model</span>
          <select
            name="model"
            value={filters.model ?? ""}
            onChange={(e) => setFilter({ model: e.target.value })}
            className="rounded border border-zinc-300 px-2 py-1"
          >
            <option value="">All models</option>
            {models.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1">
          <span className="text-xs font-medium text-zinc-600">Outcome</span>
          <select
            name="outcome"
            value={filters.outcome ?? ""}
            onChange={(e) => setFilter({ outcome: e.target.value })}
            className="rounded border border-zinc-300 px-2 py-1"
          >
            <option value="">All outcomes</option>
            {OUTCOMES.map(([k, label]) => (
              <option key={k} value={k}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <fieldset className="flex flex-col gap-1">
          <legend className="text-xs font-medium text-zinc-600">Group by</legend>
          <div className="flex overflow-hidden rounded border border-zinc-300">
            {(["day", "week"] as const).map((b) => (
              <button
                key={b}
                type="button"
                aria-pressed={filters.bucket === b}
                onClick={() => setFilter({ bucket: b === "day" ? undefined : b })}
                className={"px-3 py-1 " + (filters.bucket === b ? "bg-zinc-900 text-white" : "bg-white text-zinc-700 hover:bg-zinc-100")}
              >
                {b === "day" ? "Day" : "Week"}
              </button>
            ))}
          </div>
        </fieldset>
        {(filters.from || filters.to || filters.profile || filters.model || filters.outcome) && (
          <button
            type="button"
            onClick={() => setFilter({ from: undefined, to: undefined, profile: undefined, model: undefined, outcome: undefined })}
            className="px-2 py-1 text-zinc-600 underline"
          >
            Clear filters
          </button>
        )}
      </form>

      {rollup.isError && <LoadError what="costs" message={rollup.error.message} onRetry={() => void rollup.refetch()} className="mb-4" />}
      {!r ? (
        <div className="h-40 animate-pulse rounded-lg bg-zinc-100" aria-busy="true" aria-label="Loading costs" />
      ) : h && h.tasks === 0 ? (
        <p className="rounded-lg border border-dashed border-zinc-300 p-10 text-center text-sm text-zinc-600">
          No tasks were launched in this period with these filters.
        </p>
      ) : (
        h && (
          <>
            <section aria-label="Headline" className="mb-6 grid grid-cols-2 gap-4 lg:grid-cols-3 xl:grid-cols-6">
              <Card
                testId="headline-cpc"
                label="Cost per completed task"
                value={money(h.costPerCompletedUsd, est)}
                href={tasksHref({ outcome: "completed" })}
                detail={`${money(h.usd, est)} spent on ${h.tasks} tasks ÷ ${h.completed} completed`}
              />
              <Card
                testId="headline-completion"
                label="Completion rate"
                value={pct(h.completionRate)}
                href={tasksHref()}
                detail={`${h.completed} of ${h.tasks} tasks`}
              />
              <Card
                testId="headline-steps"
                label="Steps per completed task"
                value={h.stepsMedian === null ? "—" : `${h.stepsMedian.toFixed(0)} median`}
                href={tasksHref({ outcome: "completed" })}
                detail={h.stepsP90 === null ? "no completed task" : `p90 ${h.stepsP90.toFixed(1)}`}
              />
              <Card
                testId="headline-waste"
                label="Waste share"
                value={pct(h.wasteShare)}
                href={tasksHref()}
                detail={`${money(h.wasteUsd, est)} on retries, replays, restarts, discarded work`}
              />
              <Card
                testId="headline-resume"
                label="Resume savings"
                value={money(h.resume.savedUsd)}
                href={tasksHref()}
                detail={`${h.resume.tasks} resumed tasks: restarting from scratch ${money(h.resume.restartCostUsd)} vs resuming ${money(h.resume.resumeCostUsd)}`}
              />
              <Card
                testId="headline-spend"
                label="Total spend"
                value={money(h.usd, est)}
                href={tasksHref()}
                detail={`${h.calls} model calls (${h.unbilledCalls} unbilled) · productive ${money(h.productiveUsd)} · overhead ${money(h.overheadUsd)} · waste ${money(h.wasteUsd)}`}
              />
            </section>
            {est && (
              <p data-testid="estimated-note" className="mb-6 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
                * Includes {money(h.estimatedUsd)} on {h.estimatedCalls} model calls whose provider reported no usage: those tokens were counted with
                gpt-tokenizer (estimated).
              </p>
            )}

            <div className="mb-6 grid gap-6 xl:grid-cols-2">
              <section aria-label="Cost per completed task over time" className="rounded-lg border border-zinc-200 bg-white p-4">
                <h2 className="mb-2 text-sm font-semibold">Cost per completed task, by launch {filters.bucket}</h2>
                <div className="h-64" data-testid="chart-cpc">
                  <ResponsiveContainer width="100%" height="100%">
                    <LineChart data={periods} margin={{ top: 20, right: 24, left: 8, bottom: 0 }}>
                      <CartesianGrid strokeDasharray="3 3" stroke="#e4e4e7" />
                      <XAxis dataKey="key" tick={{ fontSize: 11 }} />
                      <YAxis tick={{ fontSize: 11 }} tickFormatter={(v: number) => `$${v.toFixed(3)}`} width={64} />
                      <Tooltip formatter={(v) => money(typeof v === "number" ? v : null)} />
                      <Line
                        type="monotone"
                        dataKey="costPerCompleted"
                        name="Cost per completed task"
                        stroke="#18181b"
                        strokeWidth={2}
                        isAnimationActive={false}
                        connectNulls
                      >
                        <LabelList dataKey="label" position="top" className="cpc-label" style={{ fontSize: 10, fill: "#3f3f46" }} />
                      </Line>
                    </LineChart>
                  </ResponsiveContainer>
                </div>
              </section>
              <section aria-label="Spend by cause" className="rounded-lg border border-zinc-200 bg-white p-4">
                <h2 className="mb-2 text-sm font-semibold">
                  Spend by cause, by launch {filters.bucket} <span className="font-normal text-zinc-500">(click a bar to filter)</span>
                </h2>
                <div className="h-64" data-testid="chart-causes">
                  <ResponsiveContainer width="100%" height="100%">
                    <BarChart
                      data={periods}
                      margin={{ top: 8, right: 8, left: 8, bottom: 0 }}
                      onClick={(state) => {
                        const key = typeof state?.activeLabel === "string" ? state.activeLabel : null;
                        if (key) setFilter({ from: key, to: bucketEnd(key, filters.bucket) });
                      }}
                    >
                      <CartesianGrid strokeDasharray="3 3" stroke="#e4e4e7" />
                      <XAxis dataKey="key" tick={{ fontSize: 11 }} />
                      <YAxis tick={{ fontSize: 11 }} tickFormatter={(v: number) => `$${v.toFixed(3)}`} width={64} />
                      <Tooltip formatter={(v) => money(typeof v === "number" ? v : null)} />
                      <Legend wrapperStyle={{ fontSize: 11 }} />
                      {CAUSES.map((c) => (
                        <Bar key={c.key} dataKey={c.key} name={c.label} stackId="spend" fill={c.color} isAnimationActive={false} />
                      ))}
                    </BarChart>
                  </ResponsiveContainer>
                </div>
              </section>
            </div>

            <section aria-label="By period" className="mb-6">
              <Breakdown
                title={filters.bucket === "week" ? "By launch week (starting Monday, UTC)" : "By launch day (UTC)"}
                testId="by-period"
                groups={r.byPeriod}
                label={(k) => k}
                href={(k) => tasksHref({ from: k, to: bucketEnd(k, filters.bucket) })}
              />
            </section>

            <section aria-label="Outcomes by profile and model" className="mb-6 rounded-lg border border-zinc-200 bg-white">
              <div className="flex items-center justify-between border-b border-zinc-200 px-4 py-3">
                <h2 className="text-sm font-semibold">Outcomes by profile and model</h2>
                <button type="button" onClick={download} className="rounded-md border border-zinc-300 px-3 py-1 text-sm font-medium hover:bg-zinc-100">
                  Download CSV
                </button>
              </div>
              <div className="overflow-x-auto">
                <table className="w-full text-sm" data-testid="outcomes-table">
                  <thead className="bg-zinc-50 text-left text-xs text-zinc-600">
                    <tr>
                      {r.outcomeTable.header.map((col) => (
                        <th key={col} scope="col" className="px-3 py-2 font-medium">
                          {col}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {r.outcomeTable.rows.map((cells, i) => {
                      const row = r.outcomes[i]!;
                      const href = tasksHref({ profile: row.profile, model: row.model });
                      return (
                        <tr key={`${row.profile}/${row.model}`} className="border-t border-zinc-100">
                          {cells.map((cell, j) => (
                            <td key={j} className={"px-3 py-2 " + (j >= 2 ? "tabular-nums" : "")}>
                              {j === 2 || j === 3 || j === 8 ? (
                                <Link
                                  className="text-blue-700 underline-offset-2 hover:underline"
                                  href={j === 2 ? href : tasksHref({ profile: row.profile, model: row.model, outcome: "completed" })}
                                >
                                  {cell}
                                </Link>
                              ) : (
                                cell
                              )}
                            </td>
                          ))}
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
            </section>

            <div className="grid gap-6 xl:grid-cols-2">
              <Breakdown title="By profile" testId="by-profile" groups={r.byProfile} label={(k) => k} href={(k) => tasksHref({ profile: k })} />
              <Breakdown title="By model" testId="by-model" groups={r.byModel} label={(k) => k} href={(k) => tasksHref({ model: k })} />
              <Breakdown
                title="By outcome"
                testId="by-outcome"
                groups={r.byOutcome}
                label={(k) => OUTCOME_LABEL[k] ?? k}
                href={(k) => tasksHref({ outcome: k })}
              />
              <Breakdown
                title="By failure class"
                testId="by-failure"
                groups={r.byFailureClass}
                label={(k) => FAILURE_LABEL[k] ?? k}
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

function Card({ label, value, detail, href, testId }: { label: string; value: string; detail: string; href: string; testId: string }) {
  return (
    <Link href={href} data-testid={testId} className="block rounded-lg border border-zinc-200 bg-white p-4 hover:border-zinc-400">
      <div className="text-xs font-medium text-zinc-600">{label}</div>
      <div className="mt-1 text-2xl font-semibold tabular-nums text-zinc-900">{value}</div>
      <div className="mt-1 text-xs text-zinc-500">{detail}</div>
    </Link>
  );
}

/** A breakdown table: tasks, completed, spend, productive / overhead / waste side by side, cost per completed task. */
function Breakdown({
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
    <section aria-label={title} className="rounded-lg border border-zinc-200 bg-white">
      <h2 className="border-b border-zinc-200 px-4 py-3 text-sm font-semibold">{title}</h2>
      {groups.length === 0 ? (
        <p className="px-4 py-3 text-sm text-zinc-500">{empty ?? "Nothing in scope."}</p>
      ) : (
        <table className="w-full text-sm" data-testid={testId}>
          <thead className="bg-zinc-50 text-left text-xs text-zinc-600">
            <tr>
              <th scope="col" className="px-3 py-2 font-medium" />
              <th scope="col" className="px-3 py-2 font-medium">
                Tasks
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Completed
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Spend
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Productive · overhead · waste
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Cost / completed task
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Price table
              </th>
            </tr>
          </thead>
          <tbody>
            {groups.map((g) => {
              const est = g.estimatedUsd > 0;
              const share = (x: number) => (g.usd > 0 ? `${(100 * x) / g.usd}%` : "0%");
              return (
                <tr key={g.key} className="border-t border-zinc-100" data-key={g.key}>
                  <th scope="row" className="px-3 py-2 text-left font-medium">
                    <Link className="text-blue-700 underline-offset-2 hover:underline" href={href(g.key)}>
                      {label(g.key)}
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
                    <div className="mt-1 text-xs tabular-nums text-zinc-600">
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
      )}
    </section>
  );
}
