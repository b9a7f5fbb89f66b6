"use client";

import type { inferRouterOutputs } from "@trpc/server";
import { JsonView } from "@/components/ui/json-view.tsx";
import type { AppRouter } from "@/server/api/root.ts";
import { SafeText } from "@/components/ui/safe-text.tsx";

type TaskDetail = inferRouterOutputs<AppRouter>["task"]["get"];

/** The Artifacts tab: the files the task produced, with download links. */
export function Artifacts({ task }: { task: TaskDetail }) {
  if (task.artifacts.length === 0) return <p className="text-sm text-zinc-500">No artifacts yet.</p>;
  return (
    <ul className="space-y-2">
      {task.artifacts.map((a) => (
        <li key={a.id} className="flex items-center justify-between rounded-md border border-zinc-200 px-3 py-2 text-sm">
          <span>
            <SafeText className="font-medium" text={a.name} />{" "}
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

/** The Outbox tab: the side effects the task queued and their delivery state. */
export function Outbox({ task }: { task: TaskDetail }) {
  if (task.outbox.length === 0) return <p className="text-sm text-zinc-500">No messages sent.</p>;
  return (
    <ul className="space-y-3">
      {task.outbox.map((m) => (
        <li key={m.id} className="rounded-md border border-zinc-200 p-3 text-sm" data-message-id={m.messageId}>
          <div className="font-medium">
            <SafeText text={m.subject} />
          </div>
          <div className="text-xs text-zinc-500">
            to <SafeText text={m.to} /> · message id <span className="font-mono">{m.messageId}</span> · {m.stepId}
          </div>
          <pre className="mt-2 max-h-60 overflow-auto font-sans text-sm whitespace-pre-wrap text-zinc-700">
            <SafeText text={m.body} multiline />
          </pre>
        </li>
      ))}
    </ul>
  );
}

/** The Result tab: the task's final result or error. */
export function Result({ task }: { task: TaskDetail }) {
  if (task.status === "dead_end")
    return (
      <div className="rounded-md border border-violet-200 bg-violet-50 p-4 text-sm text-violet-900">
        <div className="font-medium">Dead end — the agent showed the task cannot be done</div>
        <p className="mt-1" data-testid="dead-end-reason">
          <SafeText text={task.deadEndReason ?? ""} multiline />
        </p>
      </div>
    );
  if (task.result) return <JsonView label="Result" value={task.result} />;
  if (task.error)
    return (
      <div className="rounded-md border border-red-200 bg-red-50 p-4 text-sm text-red-900">
        <SafeText text={task.error} multiline />
      </div>
    );
  return <p className="text-sm text-zinc-500">No result yet.</p>;
}
