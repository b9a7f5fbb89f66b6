"use client";

import type { ReactNode } from "react";
import type { LaunchFormState } from "./use-launch-form.ts";
import { field, label } from "./styles.ts";
import { LaunchEstimate } from "./launch-estimate.tsx";
import { profileOptionLabel } from "./profile-summary.ts";

/**
 * The agent profile — each choice with what it is (profileOptionLabel), the chosen one's whole
 * description, and for an offline scripted profile with a goal of one's own a note that it will end
 * as a dead end — and the three budgets (steps; optional tokens and US dollars — empty = the
 * profile's, shown as the placeholder). A budget holding the template's suggestion from history
 * says so under it. Below them, for a launch not from a template, what similar tasks cost (LaunchEstimate).
 */
export function BudgetFields({ f }: { f: LaunchFormState }) {
  const { selected, defaultBudget, v } = f;
  const historyHint = (on: boolean) => (on ? " From history (p90 × 1.25)." : "");
  return (
    <>
      <div className="grid grid-cols-2 gap-4">
        <div>
          <label htmlFor="profile" className={label}>
            Agent profile
          </label>
          <select id="profile" name="profile" className={field} value={f.profile} disabled={f.fromTemplate} onChange={(e) => f.chooseProfile(e.target.value)}>
            {f.profiles.map((p) => (
              <option key={p.id} value={p.name}>
                {profileOptionLabel(p)}
              </option>
            ))}
          </select>
          {/* The profile's description, from the first render on (the slot is kept while the list loads, so nothing jumps). */}
          <p className="mt-1 min-h-8 text-xs text-zinc-500" data-testid="profile-description">
            {selected ? selected.description || `Model ${selected.model}.` : "Loading the profiles…"}
          </p>
          {selected?.provider === "scripted" && f.mode === "goal" && !f.fromTemplate && (
            <p className="mt-1 text-xs text-amber-800" role="note" data-testid="offline-goal-note">
              The offline scripted model plays only Longhaul&apos;s demos and scenarios. A goal of your own ends as a dead end saying it needs a real model
              provider: pick a profile with one for it.
            </p>
          )}
        </div>
        <BudgetField
          id="stepBudget"
          label="Step budget"
          inputMode="numeric"
          placeholder={defaultBudget ? String(defaultBudget) : ""}
          value={f.budgets.stepBudget}
          onChange={(x) => f.setBudget("stepBudget", x)}
          error={v.budgetError}
        >
          Hard ceiling on model + tool steps{defaultBudget ? ` (default ${defaultBudget})` : ""}.{historyHint(f.fromHistory.stepBudget)}
        </BudgetField>
      </div>

      <div className="grid grid-cols-2 gap-4">
        <BudgetField
          id="tokenBudget"
          label="Token budget"
          inputMode="numeric"
          placeholder={selected?.tokenBudget ? String(selected.tokenBudget) : "none"}
          value={f.budgets.tokenBudget}
          onChange={(x) => f.setBudget("tokenBudget", x)}
          error={v.tokenError}
        >
          Optional ceiling on prompt + completion tokens; empty = the profile&apos;s (
          {selected?.tokenBudget ? selected.tokenBudget.toLocaleString("en-US") : "none"}).{historyHint(f.fromHistory.tokenBudget)}
        </BudgetField>
        <BudgetField
          id="costBudgetUsd"
          label="Dollar budget (USD)"
          inputMode="decimal"
          placeholder={selected?.costBudgetUsd ? String(selected.costBudgetUsd) : "none"}
          value={f.budgets.costBudget}
          onChange={(x) => f.setBudget("costBudget", x)}
          error={v.costError}
        >
          Optional ceiling on model spend, retries included; empty = the profile&apos;s ({selected?.costBudgetUsd ? `$${selected.costBudgetUsd}` : "none"}).
          {historyHint(f.fromHistory.costBudget)}
        </BudgetField>
      </div>
      <LaunchEstimate f={f} />
    </>
  );
}

/** One budget input of the form: label, text input, help line (described-by) and its inline error. */
function BudgetField({
  id,
  label: text,
  inputMode,
  placeholder,
  value,
  onChange,
  error,
  children,
}: {
  id: string;
  label: string;
  inputMode: "numeric" | "decimal";
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
  error: string | null;
  children: ReactNode;
}) {
  return (
    <div>
      <label htmlFor={id} className={label}>
        {text}
      </label>
      <input
        id={id}
        name={id}
        inputMode={inputMode}
        placeholder={placeholder}
        className={field}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={!!error}
        aria-describedby={`${id}-help`}
      />
      <p id={`${id}-help`} className="mt-1 text-xs text-zinc-500">
        {children}
      </p>
      {error && <p className="mt-1 text-xs text-red-700">{error}</p>}
    </div>
  );
}
