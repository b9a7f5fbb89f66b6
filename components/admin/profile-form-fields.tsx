"use client";

import type { ReactNode } from "react";
import { Field, TextInput } from "@/components/ui/field.tsx";
import { providerInfo } from "@/lib/contracts/profile.ts";

/** Labels of the profile form's text and number fields. */
export const PROFILE_FIELD_LABELS: Record<string, string> = {
  name: "Name",
  description: "Description",
  baseUrl: "Base URL (OpenAI-compatible, ending in /v1; empty = OPENAI_BASE_URL / OpenAI)",
  model: "Model",
  apiKeyEnv: "API key variable (its NAME, e.g. OPENAI_API_KEY)",
  systemPrompt: "System prompt",
  escalationRole: "Escalations go to role",
  contextWindow: "Context window (tokens)",
  stepBudget: "Step budget",
  tokenBudget: "Token budget (empty = none)",
  costBudgetUsd: "Dollar budget, USD (empty = none)",
  inputPricePerMTok: "Input price, USD / M tokens (empty = price package)",
  cachedPricePerMTok: "Cached input price, USD / M tokens",
  outputPricePerMTok: "Output price, USD / M tokens",
  cacheWritePricePerMTok: "Cache write price, USD / M tokens (empty = input price)",
  checkpointEverySteps: "Checkpoint every N steps",
  stallSteps: "Stall detector: steps without progress",
  escalationDueMinutes: "Escalation due after (minutes)",
};

/**
 * The label of `field` for a profile on `provider`: the base URL and key variable say where an empty
 * value leads for that provider's wire format (server/llm/provider.ts resolveProvider: Anthropic's
 * SDK takes the base URL with or without `/v1`, OpenAI's ends in `/v1`; offline profiles always reach
 * the local scripted model server, with no key). Other fields: {@link PROFILE_FIELD_LABELS}.
 */
export function profileFieldLabel(field: string, provider: string): string {
  const info = providerInfo(provider);
  if (field === "baseUrl") {
    if (info.offline) return "Base URL (not used: offline profiles reach the local scripted model server)";
    if (info.wireFormat === "messages") return "Base URL (Anthropic Messages API, with or without /v1; empty = ANTHROPIC_BASE_URL / Anthropic)";
  }
  if (field === "apiKeyEnv") {
    if (info.offline) return "API key variable (its NAME; offline profiles need none)";
    if (info.defaultKeyEnv) return `API key variable (its NAME, e.g. ${info.defaultKeyEnv})`;
  }
  return PROFILE_FIELD_LABELS[field] ?? field;
}

/**
 * One text, number or multi-line field of the profile form, labelled from
 * {@link PROFILE_FIELD_LABELS} unless `label` is given, with the server's error for it below (and
 * the control described by it).
 */
export function ProfileInput({
  field,
  label,
  value,
  error,
  onChange,
  multiline = false,
  numeric = false,
  readOnly = false,
}: {
  field: string;
  label?: string;
  value: string;
  error: string | undefined;
  onChange: (value: string) => void;
  multiline?: boolean;
  numeric?: boolean;
  readOnly?: boolean;
}) {
  return (
    <Field label={label ?? PROFILE_FIELD_LABELS[field]} error={error} testId={`profile-field-${field}`}>
      {(describedBy) =>
        multiline ? (
          <textarea
            name={field}
            rows={3}
            aria-describedby={describedBy}
            aria-invalid={!!error}
            className="rounded-md border border-zinc-300 px-2 py-1.5 text-sm"
            value={value}
            onChange={(e) => onChange(e.currentTarget.value)}
          />
        ) : (
          <TextInput
            name={field}
            inputMode={numeric ? "decimal" : undefined}
            aria-describedby={describedBy}
            aria-invalid={!!error}
            readOnly={readOnly}
            value={value}
            onChange={(e) => onChange(e.currentTarget.value)}
          />
        )
      }
    </Field>
  );
}

/**
 * A group of checkboxes picking names out of `options` (the profile's built-in tools, its MCP
 * servers): `legend` names the group, `selected` is what is ticked, `onChange` gets the new list,
 * `empty` is said when there is no option, the server's `error` for the group sits below.
 */
export function CheckboxGroup({
  legend,
  ariaLabel,
  options,
  selected,
  onChange,
  error,
  empty,
}: {
  legend: string;
  ariaLabel?: string;
  options: readonly string[];
  selected: readonly string[];
  onChange: (next: string[]) => void;
  error: string | undefined;
  empty?: ReactNode;
}) {
  return (
    <fieldset className="space-y-1" aria-invalid={!!error} aria-label={ariaLabel}>
      <legend className="text-xs font-medium text-zinc-600">{legend}</legend>
      <div className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
        {options.map((name) => (
          <label key={name} className="flex items-center gap-1">
            <input
              type="checkbox"
              checked={selected.includes(name)}
              onChange={(e) => {
                const on = e.currentTarget.checked;
                onChange(on ? [...selected, name] : selected.filter((x) => x !== name));
              }}
            />
            <span className="font-mono text-xs">{name}</span>
          </label>
        ))}
        {options.length === 0 && empty}
      </div>
      {error && (
        <span role="alert" className="text-xs text-red-700">
          {error}
        </span>
      )}
    </fieldset>
  );
}
