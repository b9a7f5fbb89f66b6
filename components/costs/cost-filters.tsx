"use client";

import { Field, TextInput } from "@/components/ui/field.tsx";
import { Select } from "@/components/ui/select.tsx";
import { OUTCOMES } from "./cost-labels.ts";
import type { CostFilterState } from "./use-cost-filters.ts";

/** The filter bar of /costs: launch days, profile, model, outcome, day/week; Clear when any is set. A bad range is said at its field. */
export function CostFiltersForm({ state, profiles, models }: { state: CostFilterState; profiles: readonly string[]; models: readonly string[] }) {
  const { filters, problem, setFilter } = state;
  return (
    <form
      aria-label="Filters"
      className="mb-6 flex flex-wrap items-start gap-3 rounded-lg border border-zinc-200 bg-white p-4 text-sm"
      onSubmit={(e) => e.preventDefault()}
    >
      <Field label="From" error={problem?.from}>
        {(describedBy) => (
          <TextInput
            type="date"
            name="from"
            value={filters.from ?? ""}
            max={filters.to}
            aria-invalid={problem?.from ? true : undefined}
            aria-describedby={describedBy}
            onChange={(e) => setFilter({ from: e.target.value })}
          />
        )}
      </Field>
      <Field label="To" error={problem?.to}>
        {(describedBy) => (
          <TextInput
            type="date"
            name="to"
            value={filters.to ?? ""}
            min={filters.from}
            aria-invalid={problem?.to ? true : undefined}
            aria-describedby={describedBy}
            onChange={(e) => setFilter({ to: e.target.value })}
          />
        )}
      </Field>
      <Field label="Profile">
        <Select
          name="profile"
          value={filters.profile ?? ""}
          onChange={(e) => setFilter({ profile: e.target.value })}
          placeholder="All profiles"
          options={profiles.map((p) => [p, p] as const)}
        />
      </Field>
      <Field label="Model">
        <Select
          name="model"
          value={filters.model ?? ""}
          onChange={(e) => setFilter({ model: e.target.value })}
          placeholder="All models"
          options={models.map((m) => [m, m] as const)}
        />
      </Field>
      <Field label="Outcome">
        <Select
          name="outcome"
          value={filters.outcome ?? ""}
          onChange={(e) => setFilter({ outcome: e.target.value })}
          placeholder="All outcomes"
          options={OUTCOMES}
        />
      </Field>
      <fieldset className="flex flex-col gap-1">
        <legend className="mb-1 text-xs font-medium text-zinc-600">Group by</legend>
        <div className="flex overflow-hidden rounded border border-zinc-300">
          {(["day", "week"] as const).map((b) => (
            <button
              key={b}
              type="button"
              aria-pressed={filters.bucket === b}
              onClick={() => setFilter({ bucket: b === "day" ? undefined : b })}
              className={"px-3 py-1.5 " + (filters.bucket === b ? "bg-zinc-900 text-white" : "bg-white text-zinc-700 hover:bg-zinc-100")}
            >
              {b === "day" ? "Day" : "Week"}
            </button>
          ))}
        </div>
      </fieldset>
      {(filters.from || filters.to || filters.profile || filters.model || filters.outcome) && (
        <button
          type="button"
          onClick={() => setFilter({ from: undefined, to: undefined, profile: undefined, model: undefined, outcome: undefined })}
          className="self-end px-2 py-1.5 text-zinc-600 underline"
        >
          Clear filters
        </button>
      )}
    </form>
  );
}
