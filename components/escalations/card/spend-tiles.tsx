"use client";

import { compactNumber, usd } from "@/components/tasks/format.ts";
import { cn } from "@/components/ui/cn.ts";
import { describeCeilingUsage as describeCeiling } from "@/lib/contracts/ceiling.ts";
import { wasteWords } from "@/lib/contracts/waste.ts";
import type { EscalationCard } from "./use-decision-form.ts";

/** The ceiling a budget stop hit (with "raise it below" while open), and the spend tiles: dollars, steps, tokens, checkpoint. */
export function SpendTiles({ e, open }: { e: EscalationCard; open: boolean }) {
  const ceiling = e.ceiling;
  const tile = (kind: string | null) => cn("min-w-0 rounded border p-3", ceiling?.kind === kind ? "border-amber-400" : "border-zinc-200");
  return (
    <>
      {ceiling && (
        <p className="rounded-md border border-amber-300 bg-amber-50/40 px-3 py-2 text-sm" data-testid="ceiling">
          Stopped at the <strong>{describeCeiling(ceiling)}</strong>.{open ? " Raise it below to go on." : ""}
        </p>
      )}
      {/* Four tiles in a row where they fit, two (or one) per row on a narrow card. */}
      <div className="grid grid-cols-[repeat(auto-fit,minmax(9rem,1fr))] gap-3 text-sm" data-testid="spend">
        <div className={tile("cost")}>
          <div className="text-xs text-zinc-500">Dollars</div>
          <div className="font-semibold">
            {usd(e.spend.usd)}
            {e.spend.costBudgetUsd !== null ? ` / ${usd(e.spend.costBudgetUsd)}` : ""}
          </div>
          {e.spend.costBudgetUsd === null && <div className="text-xs text-zinc-500">no dollar budget</div>}
          {e.spend.wastedUsd > 0 && <div className="text-xs text-zinc-500">{wasteWords(e.spend.waste, usd)}</div>}
        </div>
        <div className={tile("steps")}>
          <div className="text-xs text-zinc-500">Steps</div>
          <div className="font-semibold">
            {e.spend.steps} / {e.spend.stepBudget}
          </div>
        </div>
        <div className={tile("tokens")}>
          <div className="text-xs text-zinc-500">Tokens</div>
          <div
            className="font-semibold"
            title={`${e.spend.tokens.toLocaleString("en-US")}${e.spend.tokenBudget !== null ? ` of ${e.spend.tokenBudget.toLocaleString("en-US")}` : ""}`}
          >
            {compactNumber(e.spend.tokens)}
            {e.spend.tokenBudget !== null ? ` / ${compactNumber(e.spend.tokenBudget)}` : ""}
          </div>
          {e.spend.tokenBudget === null && <div className="text-xs text-zinc-500">no token budget</div>}
        </div>
        <div className={tile(null)}>
          <div className="text-xs text-zinc-500">Checkpoint</div>
          <div className="font-semibold">{e.checkpoint ? `#${e.checkpoint.seq}` : "none (from the start)"}</div>
        </div>
      </div>
    </>
  );
}
