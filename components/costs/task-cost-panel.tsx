"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { useTRPC } from "@/components/trpc.tsx";

const money = (usd: number, estimated = false) => `$${usd.toFixed(4)}${estimated ? "*" : ""}`;
const WASTE = ["retry", "replay", "restart", "discarded"] as const;

/** The header's cost figures (task.get `usage`, USD), read together so they add up. */
export interface HeaderCost {
  costUsd: number;
  productiveUsd: number;
  checkpointUsd: number;
  wastedUsd: number;
}

/** Whether two USD figures are the same to the micro-dollar (the ledger's Decimal(14, 8) read as floats). */
const sameUsd = (a: number, b: number) => Math.abs(a - b) < 5e-7;

/**
 * The task page's cost split per run: productive, overhead (checkpoints, compaction) and
 * waste by cause, tokens, unbilled attempts, price table; figures counted from estimated tokens end
 * in "*" with a note. The task's total is the sum of its runs (both from `cost.task`). Given the
 * header's figures (`header`), the summary line shows those — so the header's cost and this split
 * agree while the run is live — and the per-run table is fetched again as soon as they move, marked
 * "updating" until it has caught up with them.
 */
export function TaskCostPanel({ taskId, header }: { taskId: string; header?: HeaderCost }) {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.cost.task.queryOptions({ taskId }), refetchInterval: 5_000 });
  const headerUsd = header?.costUsd;
  const { refetch } = q;
  const seenUsd = useRef(headerUsd);
  useEffect(() => {
    if (headerUsd === undefined || seenUsd.current === headerUsd) return;
    seenUsd.current = headerUsd;
    void refetch();
  }, [headerUsd, refetch]);
  if (!q.data) return null;
  const { runs, totals } = q.data;
  const est = totals.estimatedUsd > 0;
  const shown = header ? { usd: header.costUsd, productiveUsd: header.productiveUsd, overheadUsd: header.checkpointUsd, wasteUsd: header.wastedUsd } : totals;
  const behind = header !== undefined && !sameUsd(totals.usd, header.costUsd);
  return (
    <details className="mt-3 text-sm" data-testid="task-cost-panel">
      <summary className="cursor-pointer text-xs font-medium text-zinc-600">
        Cost split: {money(shown.usd, est)} over {runs.length} run{runs.length === 1 ? "" : "s"} · productive {money(shown.productiveUsd)} · overhead{" "}
        {money(shown.overheadUsd)} · waste {money(shown.wasteUsd)}
        {behind ? <span data-testid="task-cost-updating"> · per-run table updating…</span> : null}
      </summary>
      <table className="mt-2 w-full max-w-4xl text-xs" aria-busy={behind}>
        <thead className="text-left text-zinc-500">
          <tr>
            <th className="py-1 pr-3 font-medium">Run</th>
            <th className="py-1 pr-3 font-medium">Calls</th>
            <th className="py-1 pr-3 font-medium">Tokens in (cached) / out</th>
            <th className="py-1 pr-3 font-medium">Productive</th>
            <th className="py-1 pr-3 font-medium">Overhead</th>
            <th className="py-1 pr-3 font-medium">Waste by cause</th>
            <th className="py-1 pr-3 font-medium">Total</th>
            <th className="py-1 pr-3 font-medium">Price table</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r, i) => {
            const e = r.estimatedUsd > 0 || r.estimatedCalls > 0;
            const waste = WASTE.filter((c) => r.byCause[c] > 0);
            return (
              <tr key={r.runId} className="border-t border-zinc-100" data-run={r.runId}>
                <td className="py-1 pr-3">
                  #{i + 1} {r.runCause} · {r.status}
                </td>
                <td className="py-1 pr-3 tabular-nums">
                  {r.calls}
                  {r.unbilledCalls > 0 ? ` (${r.unbilledCalls} unbilled)` : ""}
                  {r.estimatedCalls > 0 ? <span className="text-amber-800" data-col="estimated">{` · ${r.estimatedCalls} estimated*`}</span> : null}
                </td>
                <td className="py-1 pr-3 tabular-nums">
                  {r.promptTokens} ({r.cachedTokens}
                  {r.cacheWriteTokens > 0 ? `, ${r.cacheWriteTokens} written` : ""}) / {r.completionTokens}
                  {r.reasoningTokens > 0 ? ` (${r.reasoningTokens} reasoning)` : ""}
                </td>
                <td className="py-1 pr-3 tabular-nums">{money(r.byCause.productive)}</td>
                <td className="py-1 pr-3 tabular-nums">{money(r.byCause.checkpoint + r.byCause.compaction)}</td>
                <td className="py-1 pr-3 tabular-nums">{waste.length ? waste.map((c) => `${c} ${money(r.byCause[c])}`).join(" · ") : "—"}</td>
                <td className="py-1 pr-3 tabular-nums" data-col="total">
                  {money(r.usd, e)}
                </td>
                <td className="py-1 pr-3 text-zinc-500" data-col="prices">
                  {r.priceVersions.length ? r.priceVersions.join(" + ") : "—"}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {totals.estimatedCalls > 0 && (
        <p className="mt-1 text-xs text-amber-800" data-testid="task-cost-estimated">
          * {totals.estimatedCalls} model call{totals.estimatedCalls === 1 ? "" : "s"} without provider usage: tokens counted with gpt-tokenizer (estimated).
        </p>
      )}
      <p className="mt-1 text-xs text-zinc-500" data-testid="task-cost-prices">
        Price table{totals.priceVersions.length > 1 ? "s (mixed: this task's calls were priced from different tables)" : ""}:{" "}
        {totals.priceVersions.join(", ") || "—"}
      </p>
    </details>
  );
}
