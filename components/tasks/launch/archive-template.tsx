"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc.tsx";

/**
 * "Delete template" for the chosen template (issue 17): archives it through `template.archive`
 * (kept for its tasks and /costs, gone from the picker and from launches), then refreshes the list
 * and clears the choice via `onArchived`. Operators only (the procedure says FORBIDDEN otherwise).
 */
export function ArchiveTemplate({ template, onArchived }: { template: string; onArchived: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const archive = useMutation(
    trpc.template.archive.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries(trpc.template.pathFilter());
        onArchived();
      },
    }),
  );
  return (
    <span className="ml-2 text-xs">
      <button
        type="button"
        className="text-red-700 underline disabled:opacity-50"
        disabled={archive.isPending}
        onClick={() => {
          if (window.confirm(`Delete template ${template}? Its tasks and costs are kept.`)) archive.mutate({ template });
        }}
      >
        Delete template
      </button>
      {archive.error && (
        <span role="alert" className="ml-2 text-red-700">
          {archive.error.message}
        </span>
      )}
    </span>
  );
}
