"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc.tsx";
import { JsonView } from "@/components/ui/json-view.tsx";
import { compactNumber, durationMs, usd } from "../format.ts";
import { Timestamp } from "@/components/ui/timestamp.tsx";
import { RelativeTime } from "../relative-time.tsx";
import { StepFactChanges } from "./step-fact-changes.tsx";
import { ForkButton, type ForkPoint } from "./fork-button.tsx";
import { PromptView } from "./prompt-view.tsx";

/** An MCP call's latest progress notification (Step.progress: {progress, total?, message?}) in words, or null. */
function progressText(value: unknown): string | null {
  if (!value || typeof value !== "object") return null;
  const p = value as { progress?: unknown; total?: unknown; message?: unknown };
  if (typeof p.progress !== "number") return null;
  return `Progress: ${p.progress}${typeof p.total === "number" ? ` of ${p.total}` : ""}${typeof p.message === "string" && p.message ? ` — ${p.message}` : ""}`;
}

/** The selected step of the Step tab: its call, result, timing, cost, working-set changes, prompt and fork button. */
export function StepDetail({
  taskId,
  createdBy,
  selectedKey,
  onShowWorkingSet,
  forkFrom,
  follow,
}: {
  taskId: string;
  createdBy: string;
  selectedKey: string | null;
  onShowWorkingSet: () => void;
  forkFrom: ForkPoint | null;
  /**
   * While the run is live: `following` — the pane shows the run's latest step (`selectedKey`), not
   * one the user picked; `onFollow` — go back to following (after the user picked a step).
   */
  follow?: { following: boolean; onFollow: () => void };
}) {
  const trpc = useTRPC();
  const [runId, stepId] = selectedKey ? [selectedKey.slice(0, selectedKey.indexOf(":")), selectedKey.slice(selectedKey.indexOf(":") + 1)] : ["", ""];
  const following = follow?.following ?? false;
  const step = useQuery({
    ...trpc.task.step.queryOptions({ runId, stepId }),
    enabled: !!selectedKey,
    // Following a live run, the pane keeps the previous step until the next one is in (no flash of a skeleton per step).
    placeholderData: following ? keepPreviousData : undefined,
  });
  const followLine = follow ? (
    following ? (
      <p className="rounded border border-sky-200 bg-sky-50 px-2 py-1 text-xs text-sky-900" role="status" data-testid="step-following">
        Following the live step: this pane shows each new step as the run takes it. Pick a step on the timeline to stop.
      </p>
    ) : (
      <button type="button" className="text-xs font-medium text-sky-800 underline" data-testid="follow-live-step" onClick={follow.onFollow}>
        Follow the live step
      </button>
    )
  ) : null;
  if (!selectedKey)
    return (
      <div className="space-y-2">
        {followLine}
        <p className="text-sm text-zinc-500">
          {following ? "Waiting for the run's first step." : "Select a step on the timeline to see its arguments, output, tokens and attempts."}
        </p>
      </div>
    );
  if (step.isError)
    return (
      <p role="alert" className="text-sm text-red-800">
        Could not load the step: {step.error.message}{" "}
        <button className="underline" onClick={() => void step.refetch()}>
          Retry
        </button>
      </p>
    );
  if (!step.data) return <div className="h-40 animate-pulse rounded bg-zinc-200/60" aria-busy="true" />;
  const s = step.data;
  const costUsd = s.modelCalls.reduce((sum, m) => sum + m.costUsd, 0);
  return (
    <div className="space-y-4" data-testid="step-detail">
      {followLine}
      <div className="flex flex-wrap items-baseline gap-x-4 gap-y-1 text-sm">
        <span className="font-mono font-medium">{s.stepId}</span>
        <span className="text-zinc-600">
          {s.kind}
          {s.tool ? ` · ${s.tool}` : ""}
        </span>
        <span className="text-zinc-600">{s.status}</span>
        <span className="text-zinc-600">
          {s.attempts} attempt{s.attempts === 1 ? "" : "s"}
        </span>
        <span className="text-zinc-600">{durationMs(s.durationMs)}</span>
      </div>
      {s.status === "running" && progressText(s.progress) && (
        <p className="text-sm text-zinc-700" data-testid="step-progress">
          {progressText(s.progress)}
        </p>
      )}
      <div className="text-xs text-zinc-600">
        started <Timestamp className="font-mono" date={s.startedAt} /> (<RelativeTime date={s.startedAt} />)
        {s.endedAt && (
          <>
            {" "}
            · ended <Timestamp className="font-mono" date={s.endedAt} />
          </>
        )}
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <ForkButton taskId={taskId} createdBy={createdBy} forkFrom={forkFrom} />
      </div>
      {s.redactedSecrets > 0 && (
        <p className="rounded border border-zinc-200 bg-zinc-50 px-2 py-1 text-xs text-zinc-700" data-testid="step-redacted">
          {s.redactedSecrets} secret{s.redactedSecrets === 1 ? "" : "s"} in this step shown as [redacted: …]: the stored step keeps the exact values (an
          approval needs the exact call); the browser never gets them.
        </p>
      )}
      {s.error && (
        <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 font-mono text-xs whitespace-pre-wrap text-red-900">
          {s.error}
        </div>
      )}
      {(s.kind === "model" || costUsd > 0) && (
        <div className="text-sm text-zinc-700" data-testid="step-usage">
          Tokens: {compactNumber(s.promptTokens)} in ({compactNumber(s.cachedTokens)} cached) · {compactNumber(s.completionTokens)} out ·{" "}
          <span className="font-medium tabular-nums">{usd(costUsd)}</span>
          {s.modelCalls.length > 1 ? ` over ${s.modelCalls.length} model calls` : ""}
        </div>
      )}
      {s.kind === "model" && <PromptView runId={s.runId} stepId={s.stepId} />}
      <StepFactChanges taskId={taskId} runId={s.runId} stepId={s.stepId} onShowAll={onShowWorkingSet} />
      {s.arguments !== null && <JsonView label="Arguments" value={s.arguments} />}
      {s.output !== null && <JsonView label="Output" value={s.output} />}
      {s.modelCalls.length > 0 && (
        <div>
          <div className="mb-1 text-xs font-medium uppercase tracking-wide text-zinc-500">Model calls (one per HTTP attempt)</div>
          <table className="w-full text-xs">
            <thead className="text-left text-zinc-500">
              <tr>
                <th className="py-1">#</th>
                <th>Status</th>
                <th>Cause</th>
                <th className="text-right">Tokens</th>
                <th className="text-right">Cost</th>
                <th className="text-right">Latency</th>
              </tr>
            </thead>
            <tbody>
              {s.modelCalls.map((m) => (
                <tr key={m.id} className="border-t border-zinc-100">
                  <td className="py-1">{m.attempt}</td>
                  <td className={m.status === "ok" ? "text-emerald-700" : "text-red-700"}>
                    {m.status}
                    {m.httpStatus ? ` ${m.httpStatus}` : ""}
                    {m.error ? ` — ${m.error.slice(0, 60)}` : ""}
                  </td>
                  <td>
                    {m.cause}
                    {m.billed ? "" : " (not billed)"}
                  </td>
                  <td className="text-right tabular-nums">{compactNumber(m.promptTokens + m.completionTokens)}</td>
                  <td className="text-right tabular-nums">{usd(m.costUsd)}</td>
                  <td className="text-right tabular-nums">{durationMs(m.latencyMs)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
