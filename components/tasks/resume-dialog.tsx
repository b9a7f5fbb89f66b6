"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { Dialog, DialogClose } from "@/components/ui/dialog.tsx";
import { labelledMessage } from "@/components/ui/field-labels.ts";
import { useIdempotencyKey } from "@/components/ui/use-idempotency-key.ts";

/** The dialog's fields as the API names them, in the dialog's words (ids say nothing to a person). */
const RESUME_LABELS = { guidance: "Guidance", taskId: null, checkpointId: null, idempotencyKey: null, "redoEffects.*": null } as const;

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
  // One key per opening of the dialog: a double click on Confirm is one resume or one fork.
  const [idempotencyKey] = useIdempotencyKey();
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
  // Fork: what the branch does with each side effect the original committed after the checkpoint —
  // keys to do again (a new key, sent again); the others reuse their recorded results (the default).
  const [redo, setRedo] = useState<ReadonlySet<string>>(new Set());
  const effects = request.action === "fork" ? (p?.effectsAfter ?? []) : [];
  const redone = effects.filter((e) => redo.has(e.idempotencyKey));
  const setChoice = (key: string, again: boolean) =>
    setRedo((r) => {
      const next = new Set(r);
      if (again) next.add(key);
      else next.delete(key);
      return next;
    });
  const verb = request.action === "resume" ? "Resume" : "Fork";
  const pending = resume.isPending || fork.isPending;
  const error = resume.error ?? fork.error;
  const confirm = () => {
    const g = guidance.trim() ? { guidance } : {};
    if (request.action === "resume")
      resume.mutate({ taskId: request.taskId, ...(p?.checkpoint ? { checkpointId: p.checkpoint.id } : {}), ...g, idempotencyKey });
    else if (p?.checkpoint)
      fork.mutate({ taskId: request.taskId, checkpointId: p.checkpoint.id, ...g, redoEffects: redone.map((e) => e.idempotencyKey), idempotencyKey });
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
                carried over.{" "}
                {redone.length > 0
                  ? `${redone.length} side effect${redone.length === 1 ? "" : "s"} the original committed will be done again (below).`
                  : "Side effects already committed are not repeated."}
              </p>
            ) : redone.length > 0 ? (
              <p data-testid="resume-redo" className="rounded border border-amber-300 bg-amber-50 px-2 py-1 text-amber-900">
                Done again: {redone.length} side effect{redone.length === 1 ? "" : "s"} the original committed after this checkpoint, under new keys (below).
                Every fact the task holds now is kept.
              </p>
            ) : (
              <p data-testid="resume-redo">Nothing is redone: every fact the task holds now is kept.</p>
            )}
            {effects.length > 0 && (
              <fieldset className="rounded border border-zinc-200 px-3 py-2" data-testid="fork-effects">
                <legend className="px-1 text-xs font-medium text-zinc-700">Side effects the original committed after this checkpoint ({effects.length})</legend>
                <p className="text-xs text-zinc-600">
                  When the fork repeats one (same tool and arguments), Reuse gives it the recorded result, marked deduplicated, and sends nothing; Do again
                  sends it once more under a new key.
                </p>
                <div className="mt-1 flex gap-2 text-xs">
                  <button type="button" className="underline" onClick={() => setRedo(new Set())}>
                    Reuse all
                  </button>
                  <button type="button" className="underline" onClick={() => setRedo(new Set(effects.map((e) => e.idempotencyKey)))}>
                    Do all again
                  </button>
                </div>
                <ul className="mt-1 max-h-48 space-y-1 overflow-y-auto">
                  {effects.map((e) => (
                    <li key={e.idempotencyKey} className="flex items-center justify-between gap-2" data-testid="fork-effect">
                      <span className="min-w-0 truncate" title={`${e.tool} at ${e.stepId}`}>
                        <span className="font-mono text-xs text-zinc-500">{e.stepId}</span> {e.summary}
                      </span>
                      <select
                        aria-label={`What the fork does with ${e.summary}`}
                        className="rounded border border-zinc-300 px-1 py-0.5 text-xs"
                        value={redo.has(e.idempotencyKey) ? "redo" : "reuse"}
                        onChange={(ev) => setChoice(e.idempotencyKey, ev.target.value === "redo")}
                      >
                        <option value="reuse">Reuse the result</option>
                        <option value="redo">Do again</option>
                      </select>
                    </li>
                  ))}
                </ul>
              </fieldset>
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
                {labelledMessage(error.message, RESUME_LABELS)}
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
