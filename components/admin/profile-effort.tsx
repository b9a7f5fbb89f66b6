"use client";

import { Field } from "@/components/ui/field.tsx";
import { Select } from "@/components/ui/select.tsx";
import { EFFORT_LEVELS, EFFORT_RULE_LABELS, EFFORT_SITUATIONS, RECOMMENDED_EFFORT_RULES } from "@/lib/contracts/effort.ts";
import { providerInfo } from "@/lib/contracts/profile.ts";
import type { EffortErrors, EffortFormValue } from "./profile-effort-values.ts";

const LEVEL_OPTIONS = EFFORT_LEVELS.map((l) => [l, l] as const);

/**
 * The effort dial of a profile (lib/contracts/effort.ts): on/off, the default level, a level per
 * situation ("(default)" = no rule), a model per level, and what the profile's provider does with
 * the level — honoured, or recorded and ignored. `errors`: the server's refusals of `effort`, each
 * under the control it names (profile-effort-values.ts effortErrorsOf), the rest below the dial.
 */
export function ProfileEffort({
  value,
  provider,
  errors,
  onChange,
}: {
  value: EffortFormValue;
  provider: string;
  errors: EffortErrors;
  onChange: (next: EffortFormValue) => void;
}) {
  const info = providerInfo(provider);
  // The control the provider's adapter sends the level as, and who honours it (lib/contracts/profile.ts PROVIDERS).
  const support = `Each step's level is recorded on its step and sent as ${info.effort.parameter}: ${info.effort.note}${info.offline ? " (the scripted agents fumble some decisions at low and spend more reasoning tokens at high)" : ""}. Where it is not honoured, the level is recorded and ignored.`;
  return (
    <fieldset className="space-y-2 rounded-md border border-zinc-200 p-3" aria-label="Effort">
      <legend className="px-1 text-sm font-medium">Effort</legend>
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          checked={value.on}
          onChange={(e) => {
            const on = e.currentTarget.checked;
            onChange({ ...value, on });
          }}
        />
        Decide the effort per step (low for mechanical turns, high where a mistake is costly)
      </label>
      <p className="text-xs text-zinc-600" data-testid="effort-support">
        {support}
      </p>
      {value.on && (
        <>
          <div className="grid gap-3 sm:grid-cols-2">
            <Field label="Default level (no rule applies)" error={errors.default}>
              {(describedBy) => (
                <Select
                  name="effort.default"
                  value={value.default}
                  options={LEVEL_OPTIONS}
                  aria-describedby={describedBy}
                  aria-invalid={!!errors.default}
                  onChange={(e) => {
                    const level = e.currentTarget.value as EffortFormValue["default"];
                    onChange({ ...value, default: level });
                  }}
                />
              )}
            </Field>
            {EFFORT_SITUATIONS.map((situation) => (
              <Field
                key={situation}
                label={`${EFFORT_RULE_LABELS[situation]} (recommended: ${RECOMMENDED_EFFORT_RULES[situation]})`}
                error={errors.rules[situation]}
              >
                {(describedBy) => (
                  <Select
                    name={`effort.rules.${situation}`}
                    value={value.rules[situation]}
                    placeholder="(default)"
                    options={LEVEL_OPTIONS}
                    aria-describedby={describedBy}
                    aria-invalid={!!errors.rules[situation]}
                    onChange={(e) => {
                      const level = e.currentTarget.value as EffortFormValue["rules"][typeof situation];
                      onChange({ ...value, rules: { ...value.rules, [situation]: level } });
                    }}
                  />
                )}
              </Field>
            ))}
          </div>
          <div className="grid gap-3 sm:grid-cols-3">
            {EFFORT_LEVELS.map((level) => (
              <Field key={level} label={`Model at ${level} (empty: the profile's)`} error={errors.models[level]} testId={`effort-model-${level}`}>
                {(describedBy) => (
                  <input
                    name={`effort.models.${level}`}
                    className="rounded-md border border-zinc-300 px-2 py-1.5 font-mono text-xs aria-invalid:border-red-500"
                    value={value.models[level]}
                    aria-describedby={describedBy}
                    aria-invalid={!!errors.models[level]}
                    onChange={(e) => {
                      const model = e.currentTarget.value;
                      onChange({ ...value, models: { ...value.models, [level]: model } });
                    }}
                  />
                )}
              </Field>
            ))}
          </div>
        </>
      )}
      {errors.policy && (
        <p role="alert" className="text-xs text-red-700">
          {errors.policy}
        </p>
      )}
    </fieldset>
  );
}
