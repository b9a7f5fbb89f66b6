"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { cn } from "@/components/ui/cn.ts";
import type { AppRouter } from "@/server/api/root.ts";
import { FactChangeLine, FactValue, factCountLabel } from "./fact-value.tsx";
import { ago } from "./format.ts";

type History = inferRouterOutputs<AppRouter>["workingSet"]["history"];
type Change = History["changes"][number];
type Run = History["runs"][number];

const PAGE = 200;

function runLabel(run: Run | undefined): string {
  if (!run) return "run";
  const from = run.fromCheckpointSeq !== null ? ` from checkpoint #${run.fromCheckpointSeq}` : run.ordinal > 1 ? " from the beginning" : "";
  return `Run ${run.ordinal} · ${run.cause.replace("_", " ")}${from}`;
}

/** What a group of changes was caused by, in words (beside its step id, if any). */
function causeLabel(c: Change, run: Run | undefined): string {
  if (c.cause === "record_fact") return "record_fact";
  if (c.cause === "human_edit") return "edited by a handler";
  if (c.cause === "input") return "launch input";
  return `run start: the working set of checkpoint #${run?.fromCheckpointSeq ?? "?"} (${run?.cause.replace("_", " ") ?? "resume"})`;
}

/** Consecutive changes of one cause (a step, or a run's start) in one group. */
function groupByStep(changes: Change[]): { id: string; first: Change; changes: Change[] }[] {
  const groups: { id: string; first: Change; changes: Change[] }[] = [];
  for (const c of changes) {
    const id = `${c.runId}:${c.stepId ?? `start:${c.cause}`}:${c.stepIndex}`;
    const last = groups.at(-1);
    if (last && last.id === id) last.changes.push(c);
    else groups.push({ id, first: c, changes: [c] });
  }
  return groups;
}

function StepButton({ runId, stepId, selected, onSelectStep }: { runId: string; stepId: string; selected: boolean; onSelectStep: (key: string) => void }) {
  return (
    <button
      type="button"
      data-testid="blame-step"
      data-step-id={stepId}
      aria-current={selected ? "true" : undefined}
      title="Select this step on the timeline"
      className={cn(
        "shrink-0 rounded px-1 font-mono text-xs underline decoration-dotted hover:bg-zinc-100 hover:text-zinc-900",
        selected ? "bg-blue-50 text-blue-900" : "text-zinc-600",
      )}
      onClick={() => onSelectStep(`${runId}:${stepId}`)}
    >
      {stepId}
    </button>
  );
}

/**
 * The Working set tab of the run page: the working set the latest run works with (each fact with
 * the step that set it) and, as its history, every change across all runs grouped by the step that
 * caused it — +added, ~changed (before → after), −removed — with the run it belongs to. Filter by
 * key prefix (kept in the URL as `keys`); both lists are paged by the server (200 a page). A step id
 * selects that step on the timeline.
 */
export function WorkingSetPanel({
  taskId,
  keyFilter,
  onKeyFilter,
  selectedKey,
  onSelectStep,
}: {
  taskId: string;
  keyFilter: string;
  onKeyFilter: (prefix: string) => void;
  selectedKey: string | null;
  onSelectStep: (key: string) => void;
}) {
  const trpc = useTRPC();
  const [draft, setDraft] = useState(keyFilter);
  const [showCurrent, setShowCurrent] = useState(true);

  // Typing filters after a short pause; the URL keeps the applied filter, and a filter changed in the
  // URL from elsewhere (back button, a link) replaces the draft.
  const applied = useRef(keyFilter);
  const apply = useCallback(
    (prefix: string) => {
      applied.current = prefix;
      onKeyFilter(prefix);
    },
    [onKeyFilter],
  );
  useEffect(() => {
    if (keyFilter === applied.current) return;
    applied.current = keyFilter;
    setDraft(keyFilter);
  }, [keyFilter]);
  useEffect(() => {
    if (draft === applied.current) return;
    const t = setTimeout(() => apply(draft), 250);
    return () => clearTimeout(t);
  }, [draft, apply]);

  const history = useInfiniteQuery({
    ...trpc.workingSet.history.infiniteQueryOptions({ taskId, keyPrefix: keyFilter, limit: PAGE }, { getNextPageParam: (last) => last.nextCursor }),
    placeholderData: keepPreviousData,
  });
  const current = useInfiniteQuery({
    ...trpc.workingSet.current.infiniteQueryOptions({ taskId, keyPrefix: keyFilter, limit: PAGE }, { getNextPageParam: (last) => last.nextCursor }),
    placeholderData: keepPreviousData,
  });

  const changes = useMemo(() => history.data?.pages.flatMap((p) => p.changes) ?? [], [history.data]);
  const groups = useMemo(() => groupByStep(changes), [changes]);
  const runs = useMemo(() => new Map((history.data?.pages.at(-1)?.runs ?? []).map((r) => [r.id, r])), [history.data]);
  const facts = current.data?.pages.flatMap((p) => p.facts) ?? [];
  const totalChanges = history.data?.pages.at(-1)?.total ?? 0;
  const totalFacts = current.data?.pages.at(-1)?.total ?? 0;
  const error = history.error ?? current.error;

  return (
    <div className="space-y-4 text-sm" data-testid="working-set-panel">
      <div className="flex flex-wrap items-center gap-2">
        <label htmlFor="ws-filter" className="text-xs font-medium text-zinc-700">
          Filter by key
        </label>
        <input
          id="ws-filter"
          type="search"
          placeholder="key prefix, e.g. license:"
          className="w-56 rounded border border-zinc-300 px-2 py-1 font-mono text-xs"
          value={draft}
          maxLength={200}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") apply(draft);
            if (e.key === "Escape") {
              setDraft("");
              apply("");
            }
          }}
        />
        <span className="text-xs text-zinc-500" aria-live="polite">
          {history.data && current.data
            ? `${totalFacts.toLocaleString("en-US")} fact${totalFacts === 1 ? "" : "s"} now · ${totalChanges.toLocaleString("en-US")} change${totalChanges === 1 ? "" : "s"}${keyFilter ? ` for keys starting “${keyFilter}”` : ""}`
            : ""}
          {(history.isFetching || current.isFetching) && history.data ? " · updating" : ""}
        </span>
      </div>

      {error && (
        <p role="alert" className="rounded border border-red-200 bg-red-50 px-3 py-2 text-red-800">
          Could not load the working set: {error.message}{" "}
          <button
            type="button"
            className="underline"
            onClick={() => {
              void history.refetch();
              void current.refetch();
            }}
          >
            Retry
          </button>
        </p>
      )}

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
                      <td className="py-1 pr-3 font-mono [overflow-wrap:anywhere]">{f.key}</td>
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
                          <span className="text-zinc-500" title={causeLabel(f.change, runs.get(f.change.runId))}>
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
        {current.hasNextPage && (
          <button
            type="button"
            className="mt-1 text-xs font-medium text-zinc-700 underline"
            disabled={current.isFetchingNextPage}
            onClick={() => void current.fetchNextPage()}
          >
            Showing {facts.length.toLocaleString("en-US")} of {totalFacts.toLocaleString("en-US")} facts · show {Math.min(PAGE, totalFacts - facts.length)} more
          </button>
        )}
      </section>

      <section aria-label="Working-set history">
        <div className="mb-1 text-xs font-medium uppercase tracking-wide text-zinc-500">History · oldest first, by the step that caused each change</div>
        {!history.data ? (
          <div className="h-32 animate-pulse rounded bg-zinc-200/60" aria-busy="true" />
        ) : groups.length === 0 ? (
          <p className="text-xs text-zinc-500">{keyFilter ? `No change to a key starting “${keyFilter}”.` : "No change yet: the working set is empty."}</p>
        ) : (
          <ol className="rounded border border-zinc-200" data-testid="working-set-history">
            {groups.map((g, i) => {
              const run = runs.get(g.first.runId);
              const newRun = i === 0 || groups[i - 1]!.first.runId !== g.first.runId;
              const counts = { added: 0, changed: 0, removed: 0 };
              for (const c of g.changes) counts[c.kind] += 1;
              return (
                <li
                  key={g.id}
                  className="border-b border-zinc-100 last:border-b-0"
                  data-testid="history-group"
                  data-cause={g.first.cause}
                  data-step-id={g.first.stepId ?? ""}
                >
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
                    <span className="min-w-0 flex-1 truncate">{causeLabel(g.first, run)}</span>
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
            })}
          </ol>
        )}
        {history.hasNextPage && (
          <button
            type="button"
            className="mt-1 text-xs font-medium text-zinc-700 underline"
            disabled={history.isFetchingNextPage}
            onClick={() => void history.fetchNextPage()}
          >
            Showing {changes.length.toLocaleString("en-US")} of {totalChanges.toLocaleString("en-US")} changes · show{" "}
            {Math.min(PAGE, totalChanges - changes.length)} more
          </button>
        )}
      </section>
    </div>
  );
}
