import { FactChangeLine, factCountLabel } from "../fact-value.tsx";
import { ago } from "../format.ts";
import { ShowMore } from "@/components/ui/show-more.tsx";
import { changeCauseLabel, PAGE, runLabel, type ChangeGroup, type Run } from "./labels.ts";
import { StepButton } from "./step-button.tsx";
import type { WorkingSetState } from "./use-working-set.ts";

/** One group of the history: its run's heading when the run changes, the cause (step id or run start), the counts, age, and each change. */
function HistoryGroup({
  g,
  run,
  newRun,
  selectedKey,
  onSelectStep,
}: {
  g: ChangeGroup;
  run: Run | undefined;
  newRun: boolean;
  selectedKey: string | null;
  onSelectStep: (key: string) => void;
}) {
  const counts = { added: 0, changed: 0, removed: 0 };
  for (const c of g.changes) counts[c.kind] += 1;
  return (
    <li className="border-b border-zinc-100 last:border-b-0" data-testid="history-group" data-cause={g.first.cause} data-step-id={g.first.stepId ?? ""}>
      {newRun && (
        <div className="bg-zinc-100 px-2 py-0.5 text-xs font-medium text-zinc-600" data-testid="history-run">
          {runLabel(run)}
        </div>
      )}
      <div className="flex items-center gap-2 px-2 pt-1 text-xs text-zinc-500">
        {g.first.stepId ? (
          <StepButton
            runId={g.first.runId}
            stepId={g.first.stepId}
            selected={selectedKey === `${g.first.runId}:${g.first.stepId}`}
            onSelectStep={onSelectStep}
          />
        ) : null}
        <span className="min-w-0 flex-1 truncate">{changeCauseLabel(g.first, run)}</span>
        <span className="shrink-0">{factCountLabel(counts)}</span>
        <span className="w-24 shrink-0 text-right" title={g.first.at.toISOString()}>
          {ago(g.first.at)}
        </span>
      </div>
      <div className="py-0.5">
        {g.changes.map((c) => (
          <FactChangeLine key={`${c.key}:${c.kind}`} change={c} />
        ))}
      </div>
    </li>
  );
}

/**
 * "Working-set history", oldest first: every change across all runs grouped by the step that caused
 * it (+added, ~changed, −removed), a heading per run, and "show more" while the server has more pages.
 */
export function WorkingSetHistory({
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
  const { history, groups, runs, changes, totalChanges } = ws;
  return (
    <section aria-label="Working-set history">
      <div className="mb-1 text-xs font-medium uppercase tracking-wide text-zinc-500">History · oldest first, by the step that caused each change</div>
      {!history.data ? (
        <div className="h-32 animate-pulse rounded bg-zinc-200/60" aria-busy="true" />
      ) : groups.length === 0 ? (
        <p className="text-xs text-zinc-500">{keyFilter ? `No change to a key starting “${keyFilter}”.` : "No change yet: the working set is empty."}</p>
      ) : (
        <ol className="rounded border border-zinc-200" data-testid="working-set-history">
          {groups.map((g, i) => (
            <HistoryGroup
              key={g.id}
              g={g}
              run={runs.get(g.first.runId)}
              newRun={i === 0 || groups[i - 1]!.first.runId !== g.first.runId}
              selectedKey={selectedKey}
              onSelectStep={onSelectStep}
            />
          ))}
        </ol>
      )}
      <ShowMore shown={changes.length} total={totalChanges} page={PAGE} noun="changes" query={history} />
    </section>
  );
}
