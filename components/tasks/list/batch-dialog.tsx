"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { Dialog, DialogClose } from "@/components/ui/dialog.tsx";
import { useIdempotencyKey } from "@/components/ui/use-idempotency-key.ts";
import { usd } from "../format.ts";
import { SafeText } from "@/components/ui/safe-text.tsx";
import type { FieldLabels } from "@/components/ui/field-labels.ts";
import { StatusLine, useActionStatus } from "@/components/ui/use-action-status.tsx";

/** What the bulk bar asks the dialog to do. */
export interface BatchRequest {
  action: "resume" | "cancel";
  selection: { taskIds: string[] } | { filter: Record<string, unknown> };
  /** How many tasks the bar counted (the preview says how many the action takes). */
  count: number;
}

/** The batch's refusals name its input ("selection: no task to cancel (…)"): said without the path, the message says what it is about. */
const BATCH_FIELDS: FieldLabels = { action: null, selection: null, "selection.*": null, idempotencyKey: null };

const primary = "rounded-md bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-800 disabled:opacity-50";
const secondary = "rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium text-zinc-800 hover:bg-zinc-50";

/**
 * Resume or cancel many tasks: first the server's preview (tasks taken, skipped and why, the
 * estimated cost of the resumes, how many run at once), then — once confirmed — the batch's progress
 * (polled each second until no task is pending or running). Closing the dialog does not stop a batch.
 * Its refusal line is the page's action line (useActionStatus): starting the batch again takes it away.
 */
export function BatchDialog({ request, onClose, onStarted }: { request: BatchRequest; onClose: () => void; onStarted: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const input = { action: request.action, selection: request.selection };
  const preview = useQuery({ ...trpc.task.batchPreview.queryOptions(input), staleTime: 0, gcTime: 0 });
  const [batchId, setBatchId] = useState<string | null>(null);
  // One key per opening of the dialog: a double click on Confirm starts one batch.
  const [idempotencyKey] = useIdempotencyKey();
  const status = useActionStatus(BATCH_FIELDS);
  const start = useMutation(
    trpc.task.batchStart.mutationOptions({
      onMutate: status.start,
      onError: status.fail,
      onSuccess: (r) => {
        setBatchId(r.batchId);
        onStarted();
      },
    }),
  );
  const progress = useQuery({
    ...trpc.task.batch.queryOptions({ batchId: batchId ?? "none" }),
    enabled: batchId !== null,
    refetchInterval: (q) => (q.state.data?.finished ? false : 1_000),
  });
  const done = progress.data?.finished ?? false;
  useEffect(() => {
    if (done) void queryClient.invalidateQueries({ queryKey: trpc.task.list.pathKey() });
  }, [done, queryClient, trpc]);
  const verb = request.action === "resume" ? "Resume" : "Cancel";
  const p = preview.data;

  return (
    <Dialog open onOpenChange={(o) => !o && onClose()} title={`${verb} ${request.count} task${request.count === 1 ? "" : "s"}`}>
      <div className="space-y-3 text-sm text-zinc-700" data-testid="batch-dialog">
        {preview.isPending && <p aria-busy="true">Counting the tasks…</p>}
        {preview.isError && (
          <p role="alert" className="text-red-700">
            {preview.error.message}
          </p>
        )}
        {p && !batchId && (
          <>
            <p data-testid="batch-preview">
              {p.taskIds.length} of {p.matched} task{p.matched === 1 ? "" : "s"} will be{" "}
              {request.action === "resume" ? "resumed, each from its latest checkpoint" : "cancelled"}
              {request.action === "resume" ? `, ${p.concurrency} running at a time` : ""}.
            </p>
            {request.action === "resume" && (
              <p data-testid="batch-estimate">
                Estimated cost: {usd(p.estimatedUsd)}
                <span className="text-zinc-500">
                  {" "}
                  (median cost of a completed task of each one&apos;s profile{p.unestimated ? `; ${p.unestimated} without an estimate` : ""})
                </span>
              </p>
            )}
            {p.skipped.length > 0 && (
              <ul className="list-disc pl-5 text-zinc-600" aria-label="Skipped">
                {p.skipped.map((s) => (
                  <li key={s.reason}>
                    {s.count} skipped: <SafeText text={s.reason} />
                  </li>
                ))}
              </ul>
            )}
            <StatusLine line={status.line} testId="batch-action" />
            <div className="flex justify-end gap-2 pt-2">
              <DialogClose className={secondary}>Back</DialogClose>
              <button
                type="button"
                className={primary}
                disabled={p.taskIds.length === 0 || start.isPending}
                onClick={() => start.mutate({ ...input, idempotencyKey })}
              >
                {start.isPending ? "Starting…" : `${verb} ${p.taskIds.length} task${p.taskIds.length === 1 ? "" : "s"}`}
              </button>
            </div>
          </>
        )}
        {batchId && (
          <>
            <BatchProgressLine counts={progress.data?.counts} total={progress.data?.total} finished={done} />
            <div className="flex justify-end pt-2">
              <DialogClose className={secondary}>{done ? "Close" : "Close (it keeps going)"}</DialogClose>
            </div>
          </>
        )}
      </div>
    </Dialog>
  );
}

/** "3 of 4 done · 1 running · 0 waiting", announced politely as it changes. */
function BatchProgressLine({
  counts,
  total,
  finished,
}: {
  counts?: { pending: number; running: number; done: number; skipped: number; failed: number };
  total?: number;
  finished: boolean;
}) {
  if (!counts || total === undefined) return <p aria-busy="true">Starting…</p>;
  const settled = counts.done + counts.skipped + counts.failed;
  return (
    <div aria-live="polite" data-testid="batch-progress">
      <p className="font-medium text-zinc-900">{finished ? `Finished: ${counts.done} done of ${total}` : `${settled} of ${total} settled`}</p>
      <progress className="mt-1 w-full" max={total} value={settled} aria-label="Batch progress" />
      <p className="text-zinc-600">
        {counts.running} running · {counts.pending} waiting their turn · {counts.skipped} skipped · {counts.failed} failed
      </p>
    </div>
  );
}
