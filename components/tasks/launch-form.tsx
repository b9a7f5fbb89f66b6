"use client";

import { BudgetFields } from "./launch/budget-fields.tsx";
import { ContextFields } from "./launch/context-fields.tsx";
import { TaskFields } from "./launch/task-fields.tsx";
import { TemplatePicker } from "./launch/template-picker.tsx";
import { useLaunchForm } from "./launch/use-launch-form.ts";
import { SafeText } from "@/components/ui/safe-text.tsx";
import { labelledMessage, type FieldLabels } from "@/components/ui/field-labels.ts";

/** The launch input's fields as the API names them (task.launch, template.launch), in the form's words. */
const LAUNCH_FIELDS: FieldLabels = {
  goal: "Goal",
  facts: "Facts",
  "facts.*": "Facts",
  profile: "Agent profile",
  stepBudget: "Step budget",
  tokenBudget: "Token budget",
  costBudgetUsd: "Dollar budget",
  "overrides.stepBudget": "Step budget",
  "overrides.tokenBudget": "Token budget",
  "overrides.costBudgetUsd": "Dollar budget",
  workspace: "Workspace",
  template: "Template",
  "demo.limit": "Package limit",
  "demo.postUrl": "Post the summary to",
  "demo.emailTo": "Email the summary to",
};

/**
 * The launch form: the seeded demo (license audit of node_modules, with a package limit) or a goal
 * of your own, a profile, budgets (steps; optional tokens and US dollars — empty = the profile's,
 * shown as the placeholder), optional facts (a JSON object: the working set the run starts from) and
 * the workspace. Live counters show the launch limits (lib/contracts/limits.ts); a launch over a
 * limit is refused before it is sent, naming the field and the limit, and the server's refusal is
 * still shown if it comes. Starting from a launch template fills the form with its shape (the task
 * fields are then fixed, the budgets editable), shows what its completed tasks took ("similar tasks
 * took median X, p90 Y steps") and uses the budgets suggested from them unless the operator changes
 * them (without history: says so, and the template's budgets apply); it launches through
 * `template.launch` so the task records the template. State and behaviour: launch/use-launch-form.ts.
 */
export function LaunchForm() {
  const f = useLaunchForm();
  const { sending } = f;
  return (
    <div className="mx-auto max-w-3xl p-8">
      <h1 className="mb-6 text-2xl font-semibold tracking-tight">Launch a task</h1>
      <form onSubmit={f.submit} className="space-y-6 rounded-lg border border-zinc-200 bg-white p-6" aria-label="Launch a task">
        <TemplatePicker f={f} />
        <TaskFields f={f} />
        <BudgetFields f={f} />
        <ContextFields f={f} />

        {sending.isError && (
          <div role="alert" className="rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
            <SafeText text={labelledMessage(sending.error.message, LAUNCH_FIELDS)} multiline />
          </div>
        )}

        <div className="flex items-center justify-end gap-3">
          <button
            type="submit"
            disabled={sending.isPending || sending.isSuccess}
            className="rounded-md bg-zinc-900 px-5 py-2 text-sm font-medium text-white hover:bg-zinc-800 disabled:opacity-60"
          >
            {sending.isPending || sending.isSuccess ? "Launching…" : f.fromTemplate ? `Launch from ${f.templateName}` : "Launch"}
          </button>
        </div>
      </form>
    </div>
  );
}
