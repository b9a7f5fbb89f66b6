"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTaskActions } from "@/components/auth/use-me.ts";
import { useTRPC } from "@/components/trpc.tsx";
import { Dialog, DialogClose } from "@/components/ui/dialog.tsx";

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
export function ForkButton({ taskId, createdBy, forkFrom }: { taskId: string; createdBy: string; forkFrom: ForkPoint | null }) {
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
