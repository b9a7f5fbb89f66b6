"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { holdsAny, useMe } from "@/components/auth/use-me.ts";
import { useTRPC } from "@/components/trpc.tsx";

/**
 * "Save as template" in the task header (operators): asks for a kebab-case name and saves the
 * task's shape (goal or demo, profile, budgets, workspace, facts) as a launch template
 * (template.saveFromTask); the result or the refusal is shown beside the button.
 */
export function SaveAsTemplate({ taskId }: { taskId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const roles = useMe().data?.roles;
  const save = useMutation(
    trpc.template.saveFromTask.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.template.list.queryKey() }) }),
  );
  if (!holdsAny(roles, ["operator"])) return null;
  return (
    <>
      <button
        type="button"
        className="rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium hover:bg-zinc-50 disabled:opacity-50"
        disabled={save.isPending}
        title="Save this task's goal, profile, budgets and workspace as a launch template"
        onClick={() => {
          const name = window.prompt("Template name (kebab-case, e.g. weekly-license-audit)");
          if (name) save.mutate({ taskId, name });
        }}
      >
        Save as template
      </button>
      {save.isSuccess && (
        <span className="text-xs text-zinc-600" data-testid="template-saved">
          Saved as template {save.data.name}
        </span>
      )}
      {save.isError && (
        <span role="alert" className="text-xs text-red-700">
          {save.error.message}
        </span>
      )}
    </>
  );
}
