import { useState } from "react";
import { FactValue } from "../fact-value.tsx";
import { ShowMore } from "@/components/ui/show-more.tsx";
import { changeCauseLabel, PAGE } from "./labels.ts";
import { StepButton } from "./step-button.tsx";
import type { WorkingSetState } from "./use-working-set.ts";
import { SafeText } from "@/components/ui/safe-text.tsx";

/**
 * "Current working set", foldable: each current fact (key, value) with the step that set it (or
 * "launch input" / "run N start"), and "show more" while the server has more pages.
 */
export function CurrentFacts({
  ws,
  keyFilter,
  selectedKey,
  onSelectStep,
}: {
  ws: WorkingSetState;
  keyFilter: string;
  selectedKey: string | null;
  onSelectStep: (key: string) => void;
}) {
  const [showCurrent, setShowCurrent] = useState(true);
  const { current, facts, runs, totalFacts } = ws;
  return (
    <section aria-label="Current working set">
      <button
        type="button"
        className="mb-1 flex items-center gap-1 text-xs font-medium uppercase tracking-wide text-zinc-500"
        aria-expanded={showCurrent}
        onClick={() => setShowCurrent(!showCurrent)}
      >
        {showCurrent ? "▾" : "▸"} Current working set
      </button>
      {showCurrent &&
        (!current.data ? (
          <div className="h-16 animate-pulse rounded bg-zinc-200/60" aria-busy="true" />
        ) : facts.length === 0 ? (
          <p className="text-xs text-zinc-500">{keyFilter ? `No current fact has a key starting “${keyFilter}”.` : "No facts established yet."}</p>
        ) : (
          <div className="max-h-96 overflow-auto rounded border border-zinc-200 px-2">
            <table className="w-full text-xs" data-testid="current-facts">
              <thead className="sticky top-0 bg-white text-left text-zinc-500">
                <tr>
                  <th className="py-1 font-medium">Key</th>
                  <th className="font-medium">Value</th>
                  <th className="text-right font-medium">Set by</th>
                </tr>
              </thead>
              <tbody>
                {facts.map((f) => (
                  <tr key={f.key} className="border-t border-zinc-100 align-top" data-key={f.key}>
                    <td className="py-1 pr-3 font-mono [overflow-wrap:anywhere]">
                      <SafeText text={f.key} />
                    </td>
                    <td className="py-1 pr-3">
                      <FactValue value={f.value} className="text-zinc-700" />
                    </td>
                    <td className="py-1 text-right whitespace-nowrap">
                      {f.change.stepId ? (
                        <StepButton
                          runId={f.change.runId}
                          stepId={f.change.stepId}
                          selected={selectedKey === `${f.change.runId}:${f.change.stepId}`}
                          onSelectStep={onSelectStep}
                        />
                      ) : (
                        <span className="text-zinc-500" title={changeCauseLabel(f.change, runs.get(f.change.runId))}>
                          {f.change.cause === "input" ? "launch input" : `run ${runs.get(f.change.runId)?.ordinal ?? "?"} start`}
                        </span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      <ShowMore shown={facts.length} total={totalFacts} page={PAGE} noun="facts" query={current} />
    </section>
  );
}
