"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { Dialog, DialogClose } from "@/components/ui/dialog.tsx";

/** What to confirm: a resume or a fork of `taskId` from `checkpointId` (undefined: the latest good checkpoint). */
export interface ResumeRequest {
  action: "resume" | "fork";
  taskId: string;
  checkpointId?: string;
}

const primary = "rounded-md bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-800 disabled:opacity-50";
const secondary = "rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium text-zinc-800 hover:bg-zinc-50";

/**
 * The one confirmation of Resume and Fork (header buttons and the Checkpoints tab): which state the
 * new run starts from, what it keeps (facts) and what it will redo (facts the task holds now that it
 * does not start with, the steps after the checkpoint) — from task.resumePreview — then optional
 * guidance and Confirm. A fork opens the new task's page.
 */
export function ResumeDialog({ request, onClose }: { request: ResumeRequest; onClose: () => void }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [guidance, setGuidance] = useState("");
  const preview = useQuery({
    ...trpc.task.resumePreview.queryOptions({ taskId: request.taskId, ...(request.checkpointId ? { checkpointId: request.checkpointId } : {}) }),
    staleTime: 0,
  });
  const done = () => {
    void queryClient.invalidateQueries(trpc.task.pathFilter());
    onClose();
  };
  const resume = useMutation(trpc.task.resume.mutationOptions({ onSuccess: done }));
  const fork = useMutation(
    trpc.task.fork.mutationOptions({
      onSuccess: (r) => {
        done();
        router.push(`/tasks/${r.taskId}`);
      },
    }),
  );
  const p = preview.data;
  const verb = request.action === "resume" ? "Resume" : "Fork";
  const pending = resume.isPending || fork.isPending;
  const error = resume.error ?? fork.error;
  const confirm = () => {
    const g = guidance.trim() ? { guidance } : {};
    if (request.action === "resume") resume.mutate({ taskId: request.taskId, ...(p?.checkpoint ? { checkpointId: p.checkpoint.id } : {}), ...g });
    else if (p?.checkpoint) fork.mutate({ taskId: request.taskId, checkpointId: p.checkpoint.id, ...g });
  };
  const title = p?.checkpoint ? `${verb} from checkpoint #${p.checkpoint.seq}` : `${verb} from the beginning`;

  return (
    <Dialog open onOpenChange={(o) => !o && onClose()} title={preview.isPending ? verb : title}>
      <div className="space-y-3 text-sm text-zinc-700" data-testid="resume-dialog">
        {preview.isPending && <p aria-busy="true">Reading what the checkpoint holds…</p>}
        {preview.isError && (
          <p role="alert" className="text-red-700">
            {preview.error.message}
          </p>
        )}
        {p && (
          <>
            <p data-testid="resume-kept">
              Kept: {p.keptFacts} fact{p.keptFacts === 1 ? "" : "s"}
              {p.checkpoint
                ? ` (the checkpoint after ${p.checkpoint.afterStepId}${p.carriedFacts ? `, plus ${p.carriedFacts} recorded after it` : ""})`
                : " (no checkpoint: every fact)"}
              .
            </p>
            {p.redoFacts > 0 ? (
              <p data-testid="resume-redo" className="rounded border border-amber-300 bg-amber-50 px-2 py-1 text-amber-900">
                Redone: this is an older state than the latest. {p.redoFacts} fact{p.redoFacts === 1 ? "" : "s"} the task holds now will be established again (
                {p.redoFactKeys.join(", ")}
                {p.redoFacts > p.redoFactKeys.length ? ", …" : ""}), and the {p.stepsAfter} step{p.stepsAfter === 1 ? "" : "s"} after this checkpoint are not
                carried over. Side effects already committed are not repeated.
              </p>
            ) : (
              <p data-testid="resume-redo">Nothing is redone: every fact the task holds now is kept.</p>
            )}
            {request.action === "fork" && (
              <p className="text-zinc-600">A fork is a new task linked to this one; this task keeps its status, result, steps and cost.</p>
            )}
            {request.action === "fork" && !p.checkpoint && <p role="alert">A fork needs a checkpoint; this task has none yet.</p>}
            <label htmlFor="resume-guidance" className="block text-xs font-medium text-zinc-700">
              Guidance for the {request.action === "resume" ? "resumed" : "forked"} agent (optional)
            </label>
            <textarea
              id="resume-guidance"
              rows={2}
              className="w-full rounded border border-zinc-300 px-2 py-1 text-sm"
              value={guidance}
              onChange={(e) => setGuidance(e.target.value)}
            />
            {error && (
              <p role="alert" className="text-red-700">
                {error.message}
              </p>
            )}
            <div className="flex justify-end gap-2">
              <DialogClose className={secondary}>Back</DialogClose>
              <button type="button" className={primary} disabled={pending || (request.action === "fork" && !p.checkpoint)} onClick={confirm}>
                {pending ? "Starting…" : `Confirm ${verb.toLowerCase()}`}
              </button>
            </div>
          </>
        )}
      </div>
    </Dialog>
  );
}
