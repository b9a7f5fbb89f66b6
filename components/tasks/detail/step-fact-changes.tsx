"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc.tsx";
import { FactChangeLine, factCountLabel } from "../fact-value.tsx";

/** The working-set changes the selected step caused (same query as the Working set tab's history). */
export function StepFactChanges({ taskId, runId, stepId, onShowAll }: { taskId: string; runId: string; stepId: string; onShowAll: () => void }) {
  const trpc = useTRPC();
  const changes = useQuery(trpc.workingSet.step.queryOptions({ taskId, runId, stepId }));
  if (changes.isError) return <p className="text-xs text-red-700">Could not load this step's working-set changes: {changes.error.message}</p>;
  if (!changes.data || changes.data.length === 0) return null;
  const counts = { added: 0, changed: 0, removed: 0 };
  for (const c of changes.data) counts[c.kind] += 1;
  return (
    <div data-testid="step-fact-changes">
      <div className="mb-1 flex items-baseline justify-between">
        <span className="text-xs font-medium uppercase tracking-wide text-zinc-500">Working set · {factCountLabel(counts)}</span>
        <button type="button" className="text-xs text-zinc-500 underline hover:text-zinc-900" onClick={onShowAll}>
          Whole history
        </button>
      </div>
      <div className="rounded border border-zinc-200">
        {changes.data.map((c) => (
          <FactChangeLine key={`${c.key}:${c.kind}`} change={c} />
        ))}
      </div>
    </div>
  );
}
