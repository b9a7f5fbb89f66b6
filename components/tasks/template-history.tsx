"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc.tsx";
import { countFigure, SimilarTaskFigures, usdFigure } from "./similar-task-figures.tsx";

/**
 * What the completed tasks of a launch template took before this launch (template.history: median and
 * p90 of steps and dollars, SimilarTaskFigures) and the budgets suggested from them (p90 × 1.25, at least 3 completed
 * tasks). `applied`: the budget fields hold the suggestion (the launch form puts it there), so
 * the panel says the launch uses it; otherwise a button puts it back. Without history it says the
 * default applies.
 */
export function TemplateHistory({
  template,
  applied,
  onUse,
}: {
  template: string;
  applied: boolean;
  onUse: (b: { stepBudget: number | null; tokenBudget: number | null; costBudgetUsd: number | null }) => void;
}) {
  const trpc = useTRPC();
  const h = useQuery(trpc.template.history.queryOptions({ template }));
  if (h.isError) return <p className="text-xs text-red-700">{h.error.message}</p>;
  if (!h.data) return <p className="text-xs text-zinc-500">Loading history…</p>;
  const d = h.data;
  return (
    <div data-testid="template-history" className="mt-3 rounded-md border border-zinc-200 bg-zinc-50 p-3 text-sm">
      <p className="font-medium text-zinc-800">Similar tasks: {d.samples} completed from this template</p>
      <SimilarTaskFigures figures={d} />
      <p className="mt-2 text-xs text-zinc-600" data-testid="history-note">
        {d.note}
      </p>
      {d.basis === "history" && applied && (
        <p className="mt-2 text-xs font-medium text-zinc-800" data-testid="budget-source">
          This launch uses the suggested budgets: {countFigure(d.stepBudget)} steps · {countFigure(d.tokenBudget)} tokens · {usdFigure(d.costBudgetUsd)} —
          change a budget below to choose your own.
        </p>
      )}
      {d.basis === "default" && (
        <p className="mt-2 text-xs font-medium text-zinc-800" data-testid="budget-source">
          No suggestion yet: this launch uses the template&apos;s budgets (or its profile&apos;s default).
        </p>
      )}
      {d.basis === "history" && !applied && (
        <button
          type="button"
          onClick={() => onUse({ stepBudget: d.stepBudget, tokenBudget: d.tokenBudget, costBudgetUsd: d.costBudgetUsd })}
          className="mt-2 rounded-md border border-zinc-300 bg-white px-3 py-1 text-xs font-medium hover:bg-zinc-100"
        >
          Use suggested budgets: {countFigure(d.stepBudget)} steps · {countFigure(d.tokenBudget)} tokens · {usdFigure(d.costBudgetUsd)}
        </button>
      )}
    </div>
  );
}
