"use client";

import { Field, TextInput } from "@/components/ui/field.tsx";
import { Select } from "@/components/ui/select.tsx";
import { useHydrated } from "@/components/ui/use-hydrated.ts";
import { FAILURE_CLASSES, FAILURE_LABELS } from "@/lib/contracts/failure.ts";
import { OUTCOME_OPTIONS, STATUS_OPTIONS, utcInputInstant, utcInputValue, type TaskListParams } from "./use-task-list-params.ts";
import { LIST_DEFAULT_ORIGIN, ORIGIN_OPTIONS } from "@/lib/contracts/task-origin.ts";

const FAILURE_OPTIONS = FAILURE_CLASSES.map((c) => [c, FAILURE_LABELS[c]] as const);

/**
 * The task list's filter bar: search, status, profile, outcome, eval cells (hidden by default: lib/contracts/task-origin.ts), failure, model (when linked from /costs), launch days, launched since (an instant, UTC), sort; Clear.
 * Disabled until the page is hydrated: the server's HTML shows the list's first rows before its scripts run, and a
 * choice made then would reach no handler (the URL would not change) and be reset by hydration.
 */
export function TaskFilters({ p, profiles }: { p: TaskListParams; profiles: readonly string[] }) {
  const { setParam } = p;
  const hydrated = useHydrated();
  return (
    <form role="search" aria-label="Filter tasks" className="mb-3 text-sm" onSubmit={(e) => e.preventDefault()}>
      <fieldset disabled={!hydrated} className="flex min-w-0 flex-wrap items-end gap-3">
        <Field label="Search goal or id" className="w-72 max-w-full">
          <TextInput type="search" value={p.qDraft} onChange={(e) => p.setQDraft(e.target.value)} placeholder="e.g. license audit, or 7p2qk9d" />
        </Field>
        <Field label="Status">
          <Select
            value={p.status.join(",")}
            onChange={(e) => setParam({ status: e.target.value || null })}
            className="w-52"
            placeholder="Any status"
            options={STATUS_OPTIONS}
          >
            <option value="running,waiting_for_human,queued">Active (not ended)</option>
            <option value="failed,dead_end,cancelled">Ended without result</option>
          </Select>
        </Field>
        <Field label="Profile">
          <Select
            value={p.profile}
            onChange={(e) => setParam({ profile: e.target.value || null })}
            placeholder="Any profile"
            options={(profiles.length ? profiles : p.profile ? [p.profile] : []).map((x) => [x, x] as const)}
          />
        </Field>
        <Field label="Outcome">
          <Select value={p.outcome ?? ""} onChange={(e) => setParam({ outcome: e.target.value || null })} placeholder="Any outcome" options={OUTCOME_OPTIONS} />
        </Field>
        <Field label="Eval cells">
          <Select
            value={p.origin}
            onChange={(e) => setParam({ origin: e.target.value === LIST_DEFAULT_ORIGIN ? null : e.target.value })}
            options={ORIGIN_OPTIONS}
            data-testid="origin-filter"
          />
        </Field>
        <Field label="Failure">
          <Select value={p.failure ?? ""} onChange={(e) => setParam({ failure: e.target.value || null })} placeholder="Any failure" options={FAILURE_OPTIONS} />
        </Field>
        {p.model && (
          <span className="flex flex-col gap-1" data-testid="model-filter">
            <span className="text-xs font-medium text-zinc-600">Model (latest call)</span>
            <span className="flex items-center gap-1 rounded-md border border-zinc-300 bg-zinc-50 px-2 py-1.5 font-mono text-xs">
              {p.model}
              <button
                type="button"
                aria-label={`Remove the model filter ${p.model}`}
                className="text-zinc-500 hover:text-zinc-900"
                onClick={() => setParam({ model: null })}
              >
                ×
              </button>
            </span>
          </span>
        )}
        <Field label="Launched from (UTC)">
          <TextInput type="date" value={p.fromDay} onChange={(e) => setParam({ from: e.target.value || null })} />
        </Field>
        <Field label="to (UTC, inclusive)">
          <TextInput type="date" value={p.toDay} onChange={(e) => setParam({ to: e.target.value || null })} />
        </Field>
        <Field label="Launched since (UTC)">
          <TextInput
            type="datetime-local"
            step={utcInputValue(p.since).length > 19 ? 0.001 : 1}
            value={utcInputValue(p.since)}
            onChange={(e) => setParam({ since: utcInputInstant(e.target.value) })}
          />
        </Field>
        <Field label="Sort">
          <Select
            value={p.sort}
            onChange={(e) => setParam({ sort: e.target.value === "oldest" ? "oldest" : null })}
            options={[
              ["newest", "Newest first"],
              ["oldest", "Oldest first"],
            ]}
          />
        </Field>
        {p.filtered && (
          <button type="button" className="rounded-md px-2 py-1.5 text-zinc-600 underline hover:text-zinc-900" onClick={() => p.clear(true)}>
            Clear filters
          </button>
        )}
      </fieldset>
    </form>
  );
}
