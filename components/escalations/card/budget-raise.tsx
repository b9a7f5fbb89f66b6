"use client";

import type { RefObject } from "react";
import { compactNumber, usd } from "@/components/tasks/format.ts";
import type { DecisionForm, EscalationCard } from "./use-decision-form.ts";

/** One extra-budget input: label, optional unit prefix, and the new total when something is typed. */
function BudgetField({
  id,
  label,
  inputRef,
  value,
  onChange,
  placeholder,
  prefix,
  after,
  wholeNumber,
}: {
  id: string;
  label: string;
  inputRef: RefObject<HTMLInputElement | null>;
  value: string;
  onChange: (v: string) => void;
  placeholder: string;
  prefix?: string;
  after: string | null;
  wholeNumber: boolean;
}) {
  return (
    <div className="flex items-center gap-2">
      <label htmlFor={id} className="text-sm">
        {label}
      </label>
      <span className="flex items-center gap-1">
        {prefix && <span className="text-sm text-zinc-500">{prefix}</span>}
        <input
          ref={inputRef}
          id={id}
          inputMode={wholeNumber ? "numeric" : "decimal"}
          className="w-28 rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm"
          value={value}
          onChange={(ev) => onChange(ev.target.value)}
          placeholder={placeholder}
        />
      </span>
      {after && <span className="text-xs text-zinc-500">{after}</span>}
    </div>
  );
}

/** The budget raise: extra steps, and extra tokens and dollars where the task has those budgets; the new totals; what is wrong with the input. */
export function BudgetRaise({ e, form, open }: { e: EscalationCard; form: DecisionForm; open: boolean }) {
  const { fields: f, parsed: p, refs } = form;
  const ceiling = e.ceiling;
  return (
    <>
      <div className="flex flex-wrap items-center gap-x-4 gap-y-2" role="group" aria-label="Budget raise">
        <BudgetField
          id="extraSteps"
          label="Extra steps"
          inputRef={refs.stepsInput}
          value={f.extraSteps}
          onChange={f.setExtraSteps}
          placeholder="0"
          wholeNumber
          after={p.steps.value ? `→ ${e.spend.stepBudget + p.steps.value}` : null}
        />
        {p.hasTokenBudget && (
          <BudgetField
            id="extraTokens"
            label="Extra tokens"
            inputRef={refs.tokensInput}
            value={f.extraTokens}
            onChange={f.setExtraTokens}
            placeholder="0"
            wholeNumber
            after={p.tokens.value ? `→ ${compactNumber((e.spend.tokenBudget ?? 0) + p.tokens.value)}` : null}
          />
        )}
        {p.hasDollarBudget && (
          <BudgetField
            id="extraUsd"
            label="Extra dollars"
            inputRef={refs.usdInput}
            value={f.extraUsd}
            onChange={f.setExtraUsd}
            placeholder="0.00"
            prefix="$"
            wholeNumber={false}
            after={p.dollars.value ? `→ ${usd((e.spend.costBudgetUsd ?? 0) + p.dollars.value)}` : null}
          />
        )}
      </div>
      {form.budgetErrors.map((m) => (
        <p key={m} className="text-xs text-red-700">
          {m}
        </p>
      ))}
      {form.ceilingUnraised && ceiling && open && (
        <p className="text-xs text-amber-800">
          The {ceiling.kind === "cost" ? "dollar" : ceiling.kind === "tokens" ? "token" : "step"} ceiling is still where it stopped: without a raise the run
          stops again at once.
        </p>
      )}
    </>
  );
}
