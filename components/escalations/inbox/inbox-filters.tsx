"use client";

import { cn } from "@/components/ui/cn.ts";
import { Field, TextInput } from "@/components/ui/field.tsx";
import { Select } from "@/components/ui/select.tsx";
import type { useReplaceParams } from "@/components/ui/use-replace-params.ts";
import { ESCALATION_REASONS, type AssigneeOption } from "@/lib/contracts/escalation.ts";
import { REASON_SHORT } from "../context-card.tsx";

/** The inbox's status filter: its URL value and label. */
export const STATUS_FILTERS = [
  ["open", "Open"],
  ["decided", "Decided"],
  ["all", "All"],
] as const;
/** One of the inbox's status filters. */
export type StatusFilter = (typeof STATUS_FILTERS)[number][0];

/**
 * The inbox's filter row: status (open / decided / all), reason and assignee (a name or role, with
 * the people and roles of the list as suggestions, lib/contracts/escalation.ts assigneeFilterOptions:
 * "Ada (user)", "handler (role)"), written to the URL through `setParams`.
 */
export function InboxFilters({
  status,
  reason,
  assignee,
  people,
  setParams,
}: {
  status: StatusFilter;
  reason: string;
  assignee: string;
  people: AssigneeOption[];
  setParams: ReturnType<typeof useReplaceParams>;
}) {
  const filtered = !!reason || !!assignee;
  return (
    <div className="flex flex-wrap items-end gap-2 text-xs" role="search" aria-label="Filter escalations">
      <div role="radiogroup" aria-label="Status" className="flex overflow-hidden rounded-md border border-zinc-300">
        {STATUS_FILTERS.map(([v, label]) => (
          <button
            key={v}
            type="button"
            role="radio"
            aria-checked={status === v}
            onClick={() => setParams({ status: v === "open" ? null : v })}
            className={cn("px-2.5 py-1", status === v ? "bg-zinc-900 text-white" : "text-zinc-700 hover:bg-zinc-100")}
          >
            {label}
          </button>
        ))}
      </div>
      <Field label="Reason">
        <Select
          value={reason}
          onChange={(e) => setParams({ reason: e.target.value || null })}
          placeholder="any"
          options={ESCALATION_REASONS.map((r) => [r, REASON_SHORT[r] ?? r.replaceAll("_", " ")] as const)}
          className="px-1.5 py-1 text-xs"
        />
      </Field>
      <Field label="Assignee">
        <TextInput
          list="escalation-assignees"
          value={assignee}
          onChange={(e) => setParams({ assignee: e.target.value || null })}
          placeholder="name or role"
          className="w-28 px-1.5 py-1 text-xs"
        />
      </Field>
      <datalist id="escalation-assignees">
        {people.map((p) => (
          <option key={p.value} value={p.value}>
            {p.label}
          </option>
        ))}
      </datalist>
      {filtered && (
        <button type="button" className="py-1 underline" onClick={() => setParams({ reason: null, assignee: null })}>
          Clear
        </button>
      )}
    </div>
  );
}
