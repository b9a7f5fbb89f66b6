"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { cn } from "@/components/ui/cn.ts";

function messageText(content: unknown): string {
  if (content === null || content === undefined) return "";
  return typeof content === "string" ? content : JSON.stringify(content, null, 2);
}

/** The messages a model step was sent (loaded when opened), the checkpoint context marked. */
export function PromptView({ runId, stepId }: { runId: string; stepId: string }) {
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
