"use client";

import Link from "next/link";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root.ts";
import { money, pct } from "./cost-labels.ts";

type Headline = inferRouterOutputs<AppRouter>["cost"]["rollup"]["headline"];

/** One headline figure, linking to the tasks behind it. */
function Card({ label, value, detail, href, testId }: { label: string; value: string; detail: React.ReactNode; href: string; testId: string }) {
  return (
    <Link href={href} data-testid={testId} className="block min-w-0 rounded-lg border border-zinc-200 bg-white p-4 hover:border-zinc-400">
      <div className="text-xs font-medium text-zinc-600">{label}</div>
      <div className="mt-1 text-2xl font-semibold break-words text-zinc-900 tabular-nums">{value}</div>
      <div className="mt-1 text-xs [overflow-wrap:anywhere] text-zinc-500">{detail}</div>
    </Link>
  );
}

/**
 * The headline: cost per completed task (a mean: all spend ÷ completed tasks), completion rate,
 * steps per completed task (median, with p90), waste share, resume savings, total spend; then the
 * note on estimated usage when part of it was counted locally.
 */
export function CostHeadline({ h, tasksHref }: { h: Headline; tasksHref: (extra?: Record<string, string | undefined>) => string }) {
  const est = h.estimatedUsd > 0;
  return (
    <>
      <section aria-label="Headline" className="mb-6 grid grid-cols-[repeat(auto-fill,minmax(12rem,1fr))] gap-4">
        <Card
          testId="headline-cpc"
          label="Cost per completed task (mean)"
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
          label="Steps per completed task (median)"
          value={h.stepsMedian === null ? "—" : h.stepsMedian.toFixed(0)}
          href={tasksHref({ outcome: "completed" })}
          detail={h.stepsP90 === null ? "no completed task" : `budget steps (model + tool) · 90th percentile ${h.stepsP90.toFixed(1)}`}
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
          detail={`${h.resume.tasks} resumed tasks: restarting each from scratch would have redone ${money(h.resume.restartCostUsd)} of work; resuming redid ${money(h.resume.resumeCostUsd)}`}
        />
        <Card
          testId="headline-spend"
          label="Total spend"
          value={money(h.usd, est)}
          href={tasksHref()}
          detail={
            <>
              {`${h.calls} model calls (${h.unbilledCalls} unbilled) · productive ${money(h.productiveUsd)} · overhead ${money(h.overheadUsd)} · waste ${money(h.wasteUsd)}`}
              <span className="block" data-testid="headline-eval-split">
                {h.evalCells.tasks > 0
                  ? `Production ${money(h.usd - h.evalCells.usd)} on ${h.tasks - h.evalCells.tasks} tasks · eval cells ${money(h.evalCells.usd)} on ${h.evalCells.tasks} (group by eval case for the suites)`
                  : "All production: no eval cells in scope"}
              </span>
            </>
          }
        />
      </section>
      {est && (
        <p data-testid="estimated-note" className="mb-6 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          * Includes {money(h.estimatedUsd)} on {h.estimatedCalls} model calls whose provider reported no usage: those tokens were counted with gpt-tokenizer
          (estimated).
        </p>
      )}
    </>
  );
}
