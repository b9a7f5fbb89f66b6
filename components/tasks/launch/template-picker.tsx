"use client";

import { TemplateHistory } from "@/components/tasks/template-history.tsx";
import { Select } from "@/components/ui/select.tsx";
import type { LaunchFormState } from "./use-launch-form.ts";
import { field, label } from "./styles.ts";
import { ArchiveTemplate } from "./archive-template.tsx";

/**
 * "Start from a template": the picker (shown once a template exists) and, for the chosen one, what
 * its completed tasks took and whether the budgets below are its suggestion from history.
 */
export function TemplatePicker({ f }: { f: LaunchFormState }) {
  if (f.templates.length === 0) return null;
  return (
    <div>
      <label htmlFor="template" className={label}>
        Start from a template
      </label>
      <Select
        id="template"
        className={field}
        value={f.templateName}
        onChange={(e) => f.chooseTemplate(e.target.value)}
        placeholder="— none —"
        options={f.templates.map((t) => [t.name, `${t.name} (${t.launch.profile}, ${t.completed} completed)`] as const)}
      />
      {f.fromTemplate && <ArchiveTemplate template={f.templateName} onArchived={() => f.chooseTemplate("")} />}
      {f.fromTemplate && (
        <TemplateHistory
          template={f.templateName}
          applied={f.historyApplied}
          onUse={(b) => {
            if (b.stepBudget !== null) f.setBudget("stepBudget", String(b.stepBudget));
            if (b.tokenBudget !== null) f.setBudget("tokenBudget", String(b.tokenBudget));
            if (b.costBudgetUsd !== null) f.setBudget("costBudget", String(b.costBudgetUsd));
          }}
        />
      )}
    </div>
  );
}
