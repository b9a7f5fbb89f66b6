"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTaskActions } from "@/components/auth/use-me.ts";
import { useTRPC } from "@/components/trpc.tsx";
import { cn } from "@/components/ui/cn.ts";
import { Timestamp } from "@/components/ui/timestamp.tsx";
import { compactNumber, usd } from "./format.ts";
import { ResumeDialog, type ResumeRequest } from "./resume-dialog.tsx";
import { SafeText } from "@/components/ui/safe-text.tsx";

const RESUMABLE = new Set(["failed", "waiting_for_human", "cancelled"]);

function FactDiff({ taskId, fromId, toId, onBlame }: { taskId: string; fromId: string | null; toId: string; onBlame: (key: string) => void }) {
  const trpc = useTRPC();
  const diff = useQuery(trpc.task.diff.queryOptions({ taskId, fromId, toId }));
  if (diff.isError) return <p className="text-xs text-red-700">Could not load the diff: {diff.error.message}</p>;
  if (!diff.data) return <div className="h-10 animate-pulse rounded bg-zinc-200/60" />;
  if (diff.data.length === 0) return <p className="text-xs text-zinc-500">No fact changed.</p>;
  const counts = { added: 0, changed: 0, removed: 0 };
  for (const c of diff.data) counts[c.kind] += 1;
  return (
    <div>
      <p className="mb-1 text-xs text-zinc-600">
        <span className="text-emerald-700">+{counts.added} added</span> · <span className="text-amber-700">~{counts.changed} changed</span> ·{" "}
        <span className="text-red-700">−{counts.removed} removed</span>
      </p>
      <ul className="max-h-64 overflow-auto rounded border border-zinc-200 font-mono text-xs" data-testid="fact-diff">
        {diff.data.map((c) => (
          <li
            key={c.key}
            className={cn(
              "flex gap-2 border-b border-zinc-100 px-2 py-1",
              c.kind === "added" ? "bg-emerald-50" : c.kind === "removed" ? "bg-red-50" : "bg-amber-50",
            )}
          >
            <span className="w-3 shrink-0">{c.kind === "added" ? "+" : c.kind === "removed" ? "−" : "~"}</span>
            <span className="min-w-0 flex-1 break-all">
              <SafeText
                text={`${c.key}: ${c.kind === "changed" ? `${JSON.stringify(c.before).slice(0, 80)} → ` : ""}${JSON.stringify(c.kind === "removed" ? c.before : c.after).slice(0, 160)}`}
              />
            </span>
            {c.sourceStepId && c.runId && (
              <button
                type="button"
                className="shrink-0 text-zinc-500 underline"
                onClick={() => onBlame(`${c.runId}:${c.sourceStepId}`)}
                title="Open the step that established this value"
              >
                {c.sourceStepId}
              </button>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * The checkpoints of a task: what each holds (reason, facts, open question), what resuming from it
 * costs in prompt tokens beside the transcript it replaces, the working-set diff from the previous
 * one (or any other), and Resume / Fork from it with optional guidance.
 */
export function CheckpointsPanel({
  taskId,
  createdBy,
  status,
  onSelectStep,
}: {
  taskId: string;
  /** The task's launcher: Resume / Fork are shown to them (holding operator) and to admins, as the API allows. */
  createdBy: string;
  status: string;
  onSelectStep: (key: string) => void;
}) {
  const trpc = useTRPC();
  const actions = useTaskActions(createdBy);
  const checkpoints = useQuery(trpc.task.checkpoints.queryOptions({ taskId }));
  const [open, setOpen] = useState<string | null>(null);
  const [compareWith, setCompareWith] = useState<Record<string, string>>({});
  const [request, setRequest] = useState<ResumeRequest | null>(null);

  if (checkpoints.isError) return <p className="text-sm text-red-700">Could not load checkpoints: {checkpoints.error.message}</p>;
  if (!checkpoints.data) return <div className="h-24 animate-pulse rounded bg-zinc-200/60" />;
  if (checkpoints.data.length === 0)
    return (
      <p className="text-sm text-zinc-500">
        No checkpoint yet. The run takes one at phase ends, after expensive steps, every few dozen steps, when its context fills up, and on request.
      </p>
    );

  const list = [...checkpoints.data].reverse();
  return (
    <div className="space-y-3">
      {request && <ResumeDialog request={request} onClose={() => setRequest(null)} />}
      {list.map((cp) => {
        const previous = checkpoints.data.find((c) => c.seq === cp.seq - 1);
        const fromId = compareWith[cp.id] ?? previous?.id ?? "start";
        const isOpen = open === cp.id;
        const saving = cp.transcriptTokens > 0 ? 1 - cp.contextTokens / cp.transcriptTokens : 0;
        return (
          <div key={cp.id} className="rounded-md border border-zinc-200 p-3 text-sm" data-checkpoint-seq={cp.seq}>
            <button
              type="button"
              className="flex w-full items-baseline justify-between text-left"
              onClick={() => setOpen(isOpen ? null : cp.id)}
              aria-expanded={isOpen}
            >
              <span>
                <span className="font-medium">Checkpoint #{cp.seq}</span>{" "}
                <span className="text-zinc-500">
                  · {cp.reason.replace("_", " ")} · after {cp.afterStepId} · {cp.facts} facts
                </span>
              </span>
              <Timestamp className="font-mono text-xs text-zinc-500" date={cp.createdAt} />
            </button>
            {cp.openQuestion && (
              <p className="mt-1 text-zinc-700">
                Open question: <SafeText text={cp.openQuestion} multiline />
              </p>
            )}
            <p className="mt-1 text-xs text-zinc-600" data-testid="resume-cost">
              Resuming here sends {compactNumber(cp.contextTokens)} prompt tokens; the transcript it replaces is {compactNumber(cp.transcriptTokens)}
              {saving > 0 ? ` (${Math.round(saving * 100)}% less)` : ""}. Spent so far: {cp.budgetsUsed.steps} steps, {usd(cp.budgetsUsed.costUsd)}.
            </p>
            {isOpen && (
              <div className="mt-3 space-y-3">
                <p className="text-zinc-700">
                  <SafeText text={cp.summary} multiline />
                </p>
                <div className="flex items-center gap-2 text-xs">
                  <label htmlFor={`cmp-${cp.id}`}>Facts changed since</label>
                  <select
                    id={`cmp-${cp.id}`}
                    className="rounded border border-zinc-300 px-1 py-0.5"
                    value={fromId}
                    onChange={(e) => setCompareWith({ ...compareWith, [cp.id]: e.target.value })}
                  >
                    <option value="start">the start</option>
                    {checkpoints.data
                      .filter((c) => c.seq < cp.seq)
                      .map((c) => (
                        <option key={c.id} value={c.id}>
                          checkpoint #{c.seq}
                        </option>
                      ))}
                  </select>
                </div>
                <FactDiff taskId={taskId} fromId={fromId === "start" ? null : fromId} toId={cp.id} onBlame={onSelectStep} />
                {!actions.allowed ? (
                  <p className="border-t border-zinc-100 pt-3 text-xs text-zinc-500" data-testid="checkpoint-actions-refused">
                    {actions.why ?? "Checking what you may do…"}
                  </p>
                ) : (
                  <div className="space-y-2 border-t border-zinc-100 pt-3">
                    <div className="flex gap-2">
                      <button
                        type="button"
                        disabled={!RESUMABLE.has(status)}
                        title={
                          RESUMABLE.has(status)
                            ? "A new run from this checkpoint, with the guidance"
                            : `Only a failed, cancelled or waiting task can be resumed (this one is ${status})`
                        }
                        className="rounded-md bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white disabled:opacity-40"
                        onClick={() => setRequest({ action: "resume", taskId, checkpointId: cp.id })}
                      >
                        Resume from here
                      </button>
                      <button
                        type="button"
                        disabled={status === "running" || status === "queued"}
                        title="A new run from this checkpoint, leaving the earlier runs as they are"
                        className="rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium disabled:opacity-40"
                        onClick={() => setRequest({ action: "fork", taskId, checkpointId: cp.id })}
                      >
                        Fork from here
                      </button>
                    </div>
                    <p className="text-xs text-zinc-500">
                      Resume continues a stopped task (failed, cancelled or waiting for a human) from this checkpoint; an open escalation is answered by it.
                      Fork starts a new task from here, linked to this one — also after it finished — e.g. to try other guidance; this task stays as it is. Both
                      first show what is kept and what will be redone.
                    </p>
                  </div>
                )}
              </div>
            )}
          </div>
        );
      })}
    </div>
  );
}
