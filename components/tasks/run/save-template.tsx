"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { holdsAny, useMe } from "@/components/auth/use-me.ts";
import { useTRPC } from "@/components/trpc.tsx";
import { Dialog, DialogClose } from "@/components/ui/dialog.tsx";
import { Field, inputClass } from "@/components/ui/field.tsx";
import { labelledMessage } from "@/components/ui/field-labels.ts";

const LABELS = { name: "Name", description: "Description", taskId: null } as const;

/**
 * "Save as template" in the task header (operators): the app's dialog asks for a kebab-case name
 * and an optional description, and saves the task's shape (goal or demo, profile, budgets,
 * workspace, facts) as a launch template (template.saveFromTask). A refusal stays in the dialog,
 * in the field's words, until the next try; the result shows beside the button.
 */
export function SaveAsTemplate({ taskId }: { taskId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const roles = useMe().data?.roles;
  const [open, setOpen] = useState(false);
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const save = useMutation(
    trpc.template.saveFromTask.mutationOptions({
      onSuccess: () => {
        setOpen(false);
        return queryClient.invalidateQueries({ queryKey: trpc.template.list.queryKey() });
      },
    }),
  );
  if (!holdsAny(roles, ["operator"])) return null;
  return (
    <>
      <button
        type="button"
        className="rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium hover:bg-zinc-50 disabled:opacity-50"
        title="Save this task's goal, profile, budgets and workspace as a launch template"
        onClick={() => {
          save.reset();
          setOpen(true);
        }}
      >
        Save as template
      </button>
      {save.isSuccess && !open && (
        <span className="text-xs text-zinc-600" data-testid="template-saved">
          Saved as template {save.data.name}
        </span>
      )}
      <Dialog
        open={open}
        onOpenChange={setOpen}
        title="Save as template"
        description="The task's goal or demo, profile, budgets, workspace and facts become a template to launch from."
      >
        <form
          className="flex flex-col gap-3"
          onSubmit={(e) => {
            e.preventDefault();
            if (save.isPending) return;
            save.mutate({ taskId, name: name.trim(), ...(description.trim() ? { description: description.trim() } : {}) });
          }}
        >
          <Field label="Name" hint="Lower-case words joined by hyphens, e.g. weekly-license-audit">
            {(describedBy) => (
              <input
                className={inputClass}
                value={name}
                required
                autoFocus
                aria-describedby={describedBy}
                aria-invalid={save.isError || undefined}
                onChange={(e) => {
                  setName(e.target.value);
                  if (save.isError) save.reset();
                }}
              />
            )}
          </Field>
          <Field label="Description (optional)">
            <input className={inputClass} value={description} onChange={(e) => setDescription(e.target.value)} />
          </Field>
          {save.isError && (
            <p role="alert" className="text-sm text-red-700">
              {labelledMessage(save.error.message, LABELS)}
            </p>
          )}
          <div className="flex justify-end gap-2">
            <DialogClose asChild>
              <button type="button" className="rounded-md border border-zinc-300 px-3 py-1.5 text-sm hover:bg-zinc-50">
                Cancel
              </button>
            </DialogClose>
            <button
              type="submit"
              disabled={save.isPending || !name.trim()}
              className="rounded-md bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-700 disabled:opacity-50"
            >
              {save.isPending ? "Saving…" : "Save template"}
            </button>
          </div>
        </form>
      </Dialog>
    </>
  );
}
