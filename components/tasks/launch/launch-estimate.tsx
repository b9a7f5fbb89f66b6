"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc.tsx";
import { MAX_DEMO_PACKAGES } from "@/lib/contracts/limits.ts";
import { SimilarTaskFigures } from "../similar-task-figures.tsx";
import type { LaunchFormState } from "./use-launch-form.ts";

/**
 * What similar tasks cost, shown near the budgets before Launch for a launch that is not
 * from a template (a template shows its own history): a goal, from the profile's completed goal
 * tasks (median and p90 of dollars and steps); a demo, from the profile's completed tasks of that
 * demo scaled per package to the limit typed (task.estimateLaunch). Says "no history yet" when
 * there is none, and nothing while the limit is not a valid whole number.
 */
export function LaunchEstimate({ f }: { f: LaunchFormState }) {
  const trpc = useTRPC();
  const limit = f.v.limitNumber;
  const demoReady = f.mode === "demo" && Number.isInteger(limit) && limit >= 1 && limit <= MAX_DEMO_PACKAGES;
  const enabled = !f.fromTemplate && f.profile !== "" && (f.mode === "goal" || demoReady);
  const input = { profile: f.profile, ...(f.mode === "demo" && demoReady ? { demo: { kind: f.demo?.kind ?? f.demoKind, limit } } : {}) };
  const q = useQuery({ ...trpc.task.estimateLaunch.queryOptions(input), enabled, placeholderData: keepPreviousData });
  if (!enabled) return null;
  if (q.isError) return <p className="text-xs text-red-700">Estimate unavailable: {q.error.message}</p>;
  if (!q.data) return <p className="text-xs text-zinc-500">Reading what similar tasks cost…</p>;
  const d = q.data;
  return (
    <section aria-label="Estimated cost" data-testid="launch-estimate" className="rounded-md border border-zinc-200 bg-zinc-50 p-3 text-sm">
      <p className="font-medium text-zinc-800">
        {d.basis === "history" ? `Estimated cost, from ${d.samples} completed similar task${d.samples === 1 ? "" : "s"}` : "Estimated cost: no history yet"}
      </p>
      {d.basis === "history" && <SimilarTaskFigures figures={d} />}
      <p className="mt-2 text-xs text-zinc-600" data-testid="launch-estimate-note">
        {d.note}
      </p>
    </section>
  );
}
