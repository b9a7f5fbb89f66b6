"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { inferRouterOutputs } from "@trpc/server";
import { useTaskActions } from "@/components/auth/use-me.ts";
import { useTRPC } from "@/components/trpc.tsx";
import { cn } from "@/components/ui/cn.ts";
import { JsonView } from "@/components/ui/json-view.tsx";
import type { AppRouter } from "@/server/api/root.ts";
import { CheckpointsPanel } from "./checkpoints-panel.tsx";
import { FactChangeLine, factCountLabel } from "./fact-value.tsx";
import { Dialog, DialogClose } from "@/components/ui/dialog.tsx";
import { compactNumber, durationMs, usd } from "./format.ts";
import { Timestamp } from "@/components/ui/timestamp.tsx";
import { RelativeTime } from "./relative-time.tsx";
import { WorkingSetPanel } from "./working-set-panel.tsx";

type TaskDetail = inferRouterOutputs<AppRouter>["task"]["get"];

/** An MCP call's latest progress notification (Step.progress: {progress, total?, message?}) in words, or null. */
function progressText(value: unknown): string | null {
  if (!value || typeof value !== "object") return null;
  const p = value as { progress?: unknown; total?: unknown; message?: unknown };
  if (typeof p.progress !== "number") return null;
  return `Progress: ${p.progress}${typeof p.total === "number" ? ` of ${p.total}` : ""}${typeof p.message === "string" && p.message ? ` — ${p.message}` : ""}`;
}
export type PanelTab = "step" | "facts" | "checkpoints" | "artifacts" | "outbox" | "result";

/** The working-set changes the selected step caused (same query as the Working set tab's history). */
function StepFactChanges({ taskId, runId, stepId, onShowAll }: { taskId: string; runId: string; stepId: string; onShowAll: () => void }) {
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

/** The checkpoint a fork of the selected step would start from. */
export interface ForkPoint {
  id: string;
  seq: number;
  reason: string;
}

/**
 * "Fork from checkpoint #n" beside a step: a dialog with optional guidance, then a new run of the
 * task (cause fork). Only for who may act on the task (its operator, an admin); others read why.
 */
function ForkButton({ taskId, createdBy, forkFrom }: { taskId: string; createdBy: string; forkFrom: ForkPoint | null }) {
  const trpc = useTRPC();
  const actions = useTaskActions(createdBy);
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [guidance, setGuidance] = useState("");
  const fork = useMutation(
    trpc.task.fork.mutationOptions({
      onSuccess: () => {
        setOpen(false);
        void queryClient.invalidateQueries(trpc.task.pathFilter());
      },
    }),
  );
  if (!actions.allowed)
    return actions.why ? (
      <span className="text-xs text-zinc-500" data-testid="fork-refused">
        {actions.why}
      </span>
    ) : null;
  if (!forkFrom)
    return (
      <span className="text-xs text-zinc-500" data-testid="fork-none">
        No checkpoint at or before this step to fork from.
      </span>
    );
  return (
    <>
      <button
        type="button"
        className="rounded-md border border-zinc-300 px-2.5 py-1 text-xs font-medium hover:bg-zinc-50"
        title="Start a new run of this task from the checkpoint at or before this step"
        onClick={() => setOpen(true)}
        data-testid="fork-step"
      >
        Fork from checkpoint #{forkFrom.seq}
      </button>
      {fork.isSuccess && <span className="text-xs text-emerald-800">Forked: a new run started (see the run switcher).</span>}
      <Dialog
        open={open}
        onOpenChange={setOpen}
        title={`Fork from checkpoint #${forkFrom.seq}`}
        description={`A new run of this task starts from checkpoint #${forkFrom.seq} (${forkFrom.reason.replace("_", " ")}); the runs so far stay as they are.`}
      >
        <form
          className="space-y-4"
          onSubmit={(e) => {
            e.preventDefault();
            fork.mutate({ taskId, checkpointId: forkFrom.id, guidance: guidance.trim() || undefined });
          }}
        >
          <label className="block text-sm">
            <span className="font-medium text-zinc-800">Guidance for the new run (optional)</span>
            <textarea
              className="mt-1 block w-full rounded-md border border-zinc-300 px-2 py-1.5"
              rows={3}
              maxLength={10000}
              value={guidance}
              onChange={(e) => setGuidance(e.target.value)}
            />
          </label>
          {fork.error && (
            <p role="alert" className="text-sm text-red-800">
              {fork.error.message}
            </p>
          )}
          <div className="flex justify-end gap-2">
            <DialogClose asChild>
              <button type="button" className="rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium hover:bg-zinc-50">
                Cancel
              </button>
            </DialogClose>
            <button
              type="submit"
              disabled={fork.isPending}
              className="rounded-md bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-800 disabled:opacity-50"
            >
              Fork
            </button>
          </div>
        </form>
      </Dialog>
    </>
  );
}

function messageText(content: unknown): string {
  if (content === null || content === undefined) return "";
  return typeof content === "string" ? content : JSON.stringify(content, null, 2);
}

/** The messages a model step was sent (loaded when opened), the checkpoint context marked. */
function PromptView({ runId, stepId }: { runId: string; stepId: string }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const prompt = useQuery({ ...trpc.task.stepPrompt.queryOptions({ runId, stepId }), enabled: open });
  return (
    <details className="rounded-md border border-zinc-200" onToggle={(e) => setOpen(e.currentTarget.open)} data-testid="prompt">
      <summary className="cursor-pointer px-3 py-2 text-xs font-medium tracking-wide text-zinc-600 uppercase">
        Prompt sent{prompt.data ? ` · ${prompt.data.messages.length} messages` : ""}
      </summary>
      <div className="space-y-2 border-t border-zinc-200 p-3">
        {prompt.isError && <p className="text-xs text-red-700">Could not rebuild the prompt: {prompt.error.message}</p>}
        {open && !prompt.data && !prompt.isError && <div className="h-16 animate-pulse rounded bg-zinc-200/60" />}
        {prompt.data && (
          <>
            <p className="text-xs text-zinc-500">
              Rebuilt from the stored steps with the run&apos;s own context builder (the prompt itself is not stored). The first {prompt.data.contextMessages}{" "}
              messages are the segment&apos;s opening context
              {prompt.data.fromCheckpoint
                ? `, built from checkpoint #${prompt.data.fromCheckpoint.seq} (${prompt.data.fromCheckpoint.reason.replace("_", " ")})`
                : ", built from the task's start"}
              .
            </p>
            {prompt.data.messages.map((m, i) => {
              const context = i < prompt.data.contextMessages;
              const calls = "tool_calls" in m && m.tool_calls ? m.tool_calls : [];
              return (
                <div
                  key={i}
                  className={cn("rounded border px-2 py-1.5", context ? "border-amber-300 bg-amber-50/60" : "border-zinc-200")}
                  data-testid="prompt-message"
                  data-context={context ? "checkpoint" : undefined}
                >
                  <div className="mb-1 flex items-center gap-2 text-[11px] font-medium tracking-wide text-zinc-500 uppercase">
                    {m.role}
                    {context && (
                      <span className="rounded bg-amber-200 px-1 text-amber-950 normal-case">
                        {prompt.data.fromCheckpoint ? `checkpoint #${prompt.data.fromCheckpoint.seq} context` : "start context"}
                      </span>
                    )}
                  </div>
                  {messageText(m.content) && (
                    <pre className="max-h-64 overflow-auto font-mono text-xs break-words whitespace-pre-wrap text-zinc-800">{messageText(m.content)}</pre>
                  )}
                  {calls.map((c) => (
                    <pre key={c.id} className="font-mono text-xs break-words whitespace-pre-wrap text-zinc-700">
                      → {c.function.name}({c.function.arguments})
                    </pre>
                  ))}
                </div>
              );
            })}
          </>
        )}
      </div>
    </details>
  );
}

function StepDetail({
  taskId,
  createdBy,
  selectedKey,
  onShowWorkingSet,
  forkFrom,
}: {
  taskId: string;
  createdBy: string;
  selectedKey: string | null;
  onShowWorkingSet: () => void;
  forkFrom: ForkPoint | null;
}) {
  const trpc = useTRPC();
  const [runId, stepId] = selectedKey ? [selectedKey.slice(0, selectedKey.indexOf(":")), selectedKey.slice(selectedKey.indexOf(":") + 1)] : ["", ""];
  const step = useQuery({ ...trpc.task.step.queryOptions({ runId, stepId }), enabled: !!selectedKey });
  if (!selectedKey) return <p className="text-sm text-zinc-500">Select a step on the timeline to see its arguments, output, tokens and attempts.</p>;
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

function Artifacts({ task }: { task: TaskDetail }) {
  if (task.artifacts.length === 0) return <p className="text-sm text-zinc-500">No artifacts yet.</p>;
  return (
    <ul className="space-y-2">
      {task.artifacts.map((a) => (
        <li key={a.id} className="flex items-center justify-between rounded-md border border-zinc-200 px-3 py-2 text-sm">
          <span>
            <span className="font-medium">{a.name}</span>{" "}
            <span className="text-xs text-zinc-500">
              {a.mime} · {a.bytes.toLocaleString("en-US")} bytes ·{" "}
              {task.runs.length > 1
                ? `run ${task.runs.findIndex((r) => r.id === a.runId) + 1} (${task.runs.find((r) => r.id === a.runId)?.cause ?? "?"}) · `
                : ""}
              {a.stepId}
            </span>
          </span>
          <span className="flex gap-3">
            <a className="text-zinc-700 underline" href={`/api/artifacts/${a.id}?inline=1`} target="_blank" rel="noreferrer">
              View
            </a>
            <a className="font-medium text-zinc-900 underline" href={`/api/artifacts/${a.id}`} download={a.name}>
              Download
            </a>
          </span>
        </li>
      ))}
    </ul>
  );
}

function Outbox({ task }: { task: TaskDetail }) {
  if (task.outbox.length === 0) return <p className="text-sm text-zinc-500">No messages sent.</p>;
  return (
    <ul className="space-y-3">
      {task.outbox.map((m) => (
        <li key={m.id} className="rounded-md border border-zinc-200 p-3 text-sm" data-message-id={m.messageId}>
          <div className="font-medium">{m.subject}</div>
          <div className="text-xs text-zinc-500">
            to {m.to} · message id <span className="font-mono">{m.messageId}</span> · {m.stepId}
          </div>
          <pre className="mt-2 max-h-60 overflow-auto font-sans text-sm whitespace-pre-wrap text-zinc-700">{m.body}</pre>
        </li>
      ))}
    </ul>
  );
}

function Result({ task }: { task: TaskDetail }) {
  if (task.status === "dead_end")
    return (
      <div className="rounded-md border border-violet-200 bg-violet-50 p-4 text-sm text-violet-900">
        <div className="font-medium">Dead end — the agent showed the task cannot be done</div>
        <p className="mt-1">{task.deadEndReason}</p>
      </div>
    );
  if (task.result) return <JsonView label="Result" value={task.result} />;
  if (task.error) return <div className="rounded-md border border-red-200 bg-red-50 p-4 text-sm text-red-900">{task.error}</div>;
  return <p className="text-sm text-zinc-500">No result yet.</p>;
}

/**
 * The right-hand panel of the run page: the selected step (with the working-set changes it caused),
 * the working set (current facts and their step-by-step history, filtered by `keyFilter`),
 * checkpoints, artifacts, outbox, result. `factsNow` is the size of the current working set (the
 * tab's count; the task's fact rows until it is known).
 */
export function DetailPanel({
  task,
  selectedKey,
  tab,
  onTab,
  onSelectStep,
  keyFilter,
  onKeyFilter,
  factsNow,
  forkFrom,
}: {
  task: TaskDetail;
  selectedKey: string | null;
  tab: PanelTab;
  onTab: (tab: PanelTab) => void;
  onSelectStep: (key: string) => void;
  keyFilter: string;
  onKeyFilter: (prefix: string) => void;
  factsNow: number | undefined;
  /** The checkpoint at or before the selected step (Fork beside the step); null when none. */
  forkFrom: ForkPoint | null;
}) {
  const tabs: { id: PanelTab; label: string }[] = [
    { id: "step", label: "Step" },
    { id: "facts", label: `Working set (${factsNow ?? task.facts.length})` },
    { id: "checkpoints", label: `Checkpoints (${task.checkpointCount})` },
    { id: "artifacts", label: `Artifacts (${task.artifacts.length})` },
    { id: "outbox", label: `Outbox (${task.outbox.length})` },
    { id: "result", label: "Result" },
  ];
  return (
    <>
      <div role="tablist" aria-label="Details" className="flex shrink-0 gap-1 overflow-x-auto border-b border-zinc-200 px-3 pt-2">
        {tabs.map((t) => (
          <button
            key={t.id}
            role="tab"
            type="button"
            aria-selected={tab === t.id}
            onClick={() => onTab(t.id)}
            className={cn(
              "shrink-0 rounded-t-md px-3 py-2 text-sm whitespace-nowrap",
              tab === t.id ? "border border-b-white border-zinc-200 bg-white font-medium text-zinc-900" : "text-zinc-600 hover:text-zinc-900",
            )}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" className="min-h-0 flex-1 overflow-auto p-4">
        {tab === "step" && (
          <StepDetail taskId={task.id} createdBy={task.createdBy} selectedKey={selectedKey} onShowWorkingSet={() => onTab("facts")} forkFrom={forkFrom} />
        )}
        {tab === "facts" && (
          <WorkingSetPanel taskId={task.id} keyFilter={keyFilter} onKeyFilter={onKeyFilter} selectedKey={selectedKey} onSelectStep={onSelectStep} />
        )}
        {tab === "checkpoints" && <CheckpointsPanel taskId={task.id} createdBy={task.createdBy} status={task.status} onSelectStep={onSelectStep} />}
        {tab === "artifacts" && <Artifacts task={task} />}
        {tab === "outbox" && <Outbox task={task} />}
        {tab === "result" && <Result task={task} />}
      </div>
    </>
  );
}
