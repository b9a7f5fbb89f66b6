"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { ConfirmDialog } from "@/components/ui/confirm-dialog.tsx";
import { StatusLine, useActionStatus } from "@/components/ui/use-action-status.tsx";

/**
 * "Delete template" for the chosen template: archives it through `template.archive`
 * (kept for its tasks and /costs, gone from the picker and from launches), then refreshes the list
 * and clears the choice via `onArchived`, after the app's confirmation dialog. Operators only (the
 * procedure says FORBIDDEN otherwise).
 */
export function ArchiveTemplate({ template, onArchived }: { template: string; onArchived: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const status = useActionStatus({ template: "Template" });
  const archive = useMutation(
    trpc.template.archive.mutationOptions({
      onMutate: status.start,
      onError: status.fail,
      onSuccess: async () => {
        await queryClient.invalidateQueries(trpc.template.pathFilter());
        onArchived();
      },
    }),
  );
  return (
    <span className="ml-2 text-xs">
      <button type="button" className="text-red-700 underline disabled:opacity-50" disabled={archive.isPending} onClick={() => setAsking(true)}>
        Delete template
      </button>
      <ConfirmDialog
        open={asking}
        title={`Delete template ${template}?`}
        description="It leaves the template picker and can no longer be launched; the tasks launched from it and their costs are kept."
        confirmLabel="Delete template"
        onCancel={() => setAsking(false)}
        onConfirm={() => {
          setAsking(false);
          archive.mutate({ template });
        }}
      />
      <StatusLine line={status.line} className="ml-2 inline text-xs" />
    </span>
  );
}
