"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc.tsx";

const usd = (x: number | null) => (x === null ? "—" : `$${x.toFixed(x < 0.01 ? 6 : 4)}`);
const num = (x: number | null) => (x === null ? "—" : x.toLocaleString("en-US"));

/**
 * What the completed tasks of a launch template took before this launch (template.history: p50 /
 * p90 of steps and dollars) and the budgets suggested from them (p90 × 1.25, at least 3 completed
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
      <dl className="mt-1 grid grid-cols-4 gap-2 text-xs text-zinc-600">
        <div>
          <dt>Steps p50</dt>
          <dd className="tabular-nums text-zinc-900">{num(d.stepsP50)}</dd>
        </div>
        <div>
          <dt>Steps p90</dt>
          <dd className="tabular-nums text-zinc-900">{num(d.stepsP90)}</dd>
        </div>
        <div>
          <dt>Cost p50</dt>
          <dd className="tabular-nums text-zinc-900">{usd(d.costP50Usd)}</dd>
        </div>
        <div>
          <dt>Cost p90</dt>
          <dd className="tabular-nums text-zinc-900">{usd(d.costP90Usd)}</dd>
        </div>
      </dl>
      <p className="mt-2 text-xs text-zinc-600" data-testid="history-note">
        {d.note}
      </p>
      {d.basis === "history" && applied && (
        <p className="mt-2 text-xs font-medium text-zinc-800" data-testid="budget-source">
          This launch uses the suggested budgets: {num(d.stepBudget)} steps · {num(d.tokenBudget)} tokens · {usd(d.costBudgetUsd)} — change a budget below to
          choose your own.
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
          Use suggested budgets: {num(d.stepBudget)} steps · {num(d.tokenBudget)} tokens · {usd(d.costBudgetUsd)}
        </button>
      )}
    </div>
  );
}
