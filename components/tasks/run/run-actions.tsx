"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useTaskActions } from "@/components/auth/use-me.ts";
import { useTRPC } from "@/components/trpc.tsx";
import { ConfirmDialog } from "@/components/ui/confirm-dialog.tsx";
import { TERMINAL_TASK_STATUSES } from "@/lib/contracts/status.ts";
import { forkOffer } from "@/lib/contracts/task-actions.ts";
import { EscalateDialog } from "../escalate-dialog.tsx";
import { ResumeDialog, type ResumeRequest } from "../resume-dialog.tsx";
import { SaveAsTemplate } from "./save-template.tsx";
import type { FieldLabels } from "@/components/ui/field-labels.ts";
import { useActionStatus } from "@/components/ui/use-action-status.tsx";
import type { RunTask } from "./use-run-queries.ts";

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_TASK_STATUSES);

/** True when the task never runs again on its own (lib/contracts/status.ts). */
export const isTerminal = (status: string) => TERMINAL.has(status);

const outline = "rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium hover:bg-zinc-50 disabled:opacity-50";

/** The header actions' fields as the API names them, in the page's words. */
const RUN_ACTION_FIELDS: FieldLabels = { taskId: null, idempotencyKey: null, note: "Note for the handler", guidance: "Guidance" };

/**
 * The header's mutations (checkpoint now, escalate, resume, cancel), each refetching the task when
 * it succeeds; `line` is the last one's refusal (cleared when the next one starts).
 */
export function useRunActions(taskId: string, onDone: () => void) {
  const trpc = useTRPC();
  const status = useActionStatus(RUN_ACTION_FIELDS);
  const lined = { onMutate: status.start, onError: status.fail, onSuccess: onDone };
  const cancel = useMutation(trpc.task.cancel.mutationOptions(lined));
  const requestCheckpoint = useMutation(trpc.task.requestCheckpoint.mutationOptions(lined));
  const resume = useMutation(trpc.task.resume.mutationOptions(lined));
  const escalateNow = useMutation(trpc.escalation.request.mutationOptions(lined));
  return { cancel, requestCheckpoint, resume, escalateNow, line: status.line };
}

export type RunActionsState = ReturnType<typeof useRunActions>;

/**
 * The header's buttons for who may act on the task (its operator, an admin): Checkpoint now and
 * Escalate while running, Resume after a failure or cancel, Fork… once ended (only with a checkpoint
 * to branch from), Cancel until it ends — each asking first in the app's own dialog; for anyone else
 * the reason they are not offered.
 */
export function RunActions({ task: t, a }: { task: RunTask; a: RunActionsState }) {
  const actions = useTaskActions(t.createdBy);
  const [escalateOpen, setEscalateOpen] = useState(false);
  const [resumeRequest, setResumeRequest] = useState<ResumeRequest | null>(null);
  const [asking, setAsking] = useState<"checkpoint" | "cancel" | null>(null);
  const latestRun = t.runs.at(-1);
  const taskId = t.id;
  const fork = forkOffer(t);
  return (
    <>
      <EscalateDialog
        open={escalateOpen}
        onOpenChange={setEscalateOpen}
        pending={a.escalateNow.isPending}
        line={a.line}
        onSubmit={(note) => a.escalateNow.mutate({ taskId, note }, { onSuccess: () => setEscalateOpen(false) })}
      />
      {resumeRequest && <ResumeDialog request={resumeRequest} onClose={() => setResumeRequest(null)} />}
      {actions.allowed && t.status === "running" && (
        <button
          type="button"
          className={outline}
          disabled={a.requestCheckpoint.isPending || latestRun?.checkpointRequested}
          title="Take a checkpoint after the turn in flight"
          onClick={() => setAsking("checkpoint")}
        >
          {latestRun?.checkpointRequested ? "Checkpoint requested" : "Checkpoint now"}
        </button>
      )}
      {actions.allowed && t.status === "running" && (
        <button
          type="button"
          className="rounded-md border border-amber-500 px-3 py-1.5 text-sm font-medium text-amber-900 hover:bg-amber-50 disabled:opacity-50"
          disabled={a.escalateNow.isPending || a.escalateNow.isSuccess}
          title="Checkpoint and put a decision in front of a human after the turn in flight"
          onClick={() => setEscalateOpen(true)}
        >
          {a.escalateNow.isSuccess ? "Escalation requested" : "Escalate"}
        </button>
      )}
      {actions.allowed && (t.status === "failed" || t.status === "cancelled") && (
        <button
          type="button"
          className="rounded-md bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-800 disabled:opacity-50"
          title="A new run from the latest good checkpoint: the dialog says what is kept and what is redone (choose another checkpoint in the Checkpoints tab)"
          onClick={() => setResumeRequest({ action: "resume", taskId })}
        >
          Resume…
        </button>
      )}
      {actions.allowed && isTerminal(t.status) && fork.offered && (
        <button
          type="button"
          className={outline}
          title="A new task branched off the latest good checkpoint; this one stays as it is"
          onClick={() => setResumeRequest({ action: "fork", taskId })}
        >
          Fork…
        </button>
      )}
      {actions.allowed && isTerminal(t.status) && fork.why && (
        <span className="text-xs text-zinc-500" data-testid="fork-none">
          {fork.why}
        </span>
      )}
      {actions.allowed && !isTerminal(t.status) && (
        <button type="button" className={outline} disabled={a.cancel.isPending} onClick={() => setAsking("cancel")}>
          Cancel task
        </button>
      )}
      <ConfirmDialog
        open={asking === "checkpoint"}
        title="Take a checkpoint now?"
        description="After the turn in flight the run saves its working set and a summary as a checkpoint, then goes on. A resume or a fork can start from it."
        confirmLabel="Checkpoint now"
        onCancel={() => setAsking(null)}
        onConfirm={() => {
          setAsking(null);
          a.requestCheckpoint.mutate({ taskId });
        }}
      />
      <ConfirmDialog
        open={asking === "cancel"}
        title="Cancel this task?"
        description="The run stops after the step in flight; nothing already done is undone. You can resume it later from its latest checkpoint."
        confirmLabel="Cancel task"
        onCancel={() => setAsking(null)}
        onConfirm={() => {
          setAsking(null);
          a.cancel.mutate({ taskId });
        }}
      />
      <SaveAsTemplate taskId={taskId} />
      {actions.why && (!isTerminal(t.status) || t.status === "failed" || t.status === "cancelled") && (
        <span className="text-xs text-zinc-500" data-testid="task-actions-refused">
          {actions.why}
        </span>
      )}
    </>
  );
}
