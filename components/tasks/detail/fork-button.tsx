"use client";

import { useState } from "react";
import { useTaskActions } from "@/components/auth/use-me.ts";
import { ResumeDialog } from "../resume-dialog.tsx";

/** The checkpoint a fork of the selected step would start from. */
export interface ForkPoint {
  id: string;
  seq: number;
  reason: string;
}

/**
 * "Fork from checkpoint #n" beside a step: the same ResumeDialog as the header's Fork… and the
 * Checkpoints tab (what is kept and what will be redone, optional guidance), then a new task
 * branched from that checkpoint, whose page it opens. Only for who may act on the task
 * (its operator, an admin); others read why.
 */
export function ForkButton({ taskId, createdBy, forkFrom }: { taskId: string; createdBy: string; forkFrom: ForkPoint | null }) {
  const actions = useTaskActions(createdBy);
  const [open, setOpen] = useState(false);
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
        title={`Start a new task branched from checkpoint #${forkFrom.seq} (${forkFrom.reason.replaceAll("_", " ")}), the checkpoint at or before this step`}
        onClick={() => setOpen(true)}
        data-testid="fork-step"
      >
        Fork from checkpoint #{forkFrom.seq}
      </button>
      {open && <ResumeDialog request={{ action: "fork", taskId, checkpointId: forkFrom.id }} onClose={() => setOpen(false)} />}
    </>
  );
}
