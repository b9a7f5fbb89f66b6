"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { Dialog } from "@/components/ui/dialog.tsx";
import { Field } from "@/components/ui/field.tsx";
import { Select } from "@/components/ui/select.tsx";
import { BUILTIN_TOOL_NAMES, PROFILE_PROVIDERS, PROVIDERS } from "@/lib/contracts/profile.ts";
import { ConnectionResult } from "./profile-connection-result.tsx";
import { ProfileEffort } from "./profile-effort.tsx";
import { effortErrorsOf } from "./profile-effort-values.ts";
import { CheckboxGroup, PROFILE_FIELD_LABELS, ProfileInput, profileFieldLabel } from "./profile-form-fields.tsx";
import { labelledMessage, type FieldLabels } from "@/components/ui/field-labels.ts";
import { errorsByField, NUMBER_FIELDS, specOf, TEXT_FIELDS, valuesOf, type FormSpec, type ProfileFormValues } from "./profile-form-values.ts";

/**
 * The profile's fields in the form's words for its error lines: each field's label without its
 * parenthesised hint ("Base URL: must be an http(s) URL", not "baseUrl: …").
 */
const ERROR_LABELS: FieldLabels = {
  ...Object.fromEntries(Object.entries(PROFILE_FIELD_LABELS).map(([k, label]) => [k, label.replace(/ \(.*\)$/, "")])),
  provider: "Provider",
  headers: "Extra headers",
  "headers.*": "Extra headers",
  tools: "Built-in tools",
  "tools.*": "Built-in tools",
  mcpServers: "MCP servers",
  "mcpServers.*": "MCP servers",
  "mcpServers.*.*": "MCP servers",
  requireApproval: "Ask a human before risky actions",
};

const SHOWN = new Set<string>([...TEXT_FIELDS, ...NUMBER_FIELDS, "provider", "headers", "tools", "mcpServers", "requireApproval", "effort"]);

/**
 * The create / edit / copy dialog of a profile: the fields an admin sets most (the others are kept
 * from the profile edited), "Test connection" with the unsaved values, and the server's validation
 * errors under their fields in the form's words (gone once the field is edited). `mode` create starts empty (or from `spec` for a copy); edit keeps the name.
 */
export function ProfileFormDialog({ mode, spec, onClose }: { mode: "create" | "edit"; spec: FormSpec | null; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [values, setValues] = useState<ProfileFormValues>(() => valuesOf(spec));
  /** A save that changed nothing: no version was made, and the dialog says so instead of closing. */
  const [unchanged, setUnchanged] = useState(false);
  const done = async () => {
    await queryClient.invalidateQueries(trpc.profile.pathFilter());
    onClose();
  };
  const create = useMutation(trpc.profile.create.mutationOptions({ onSuccess: done }));
  const update = useMutation(
    trpc.profile.update.mutationOptions({
      onSuccess: async (res) => {
        if (res.changes.length === 0) setUnchanged(true);
        else await done();
      },
    }),
  );
  const test = useMutation(trpc.profile.testConnection.mutationOptions());
  const servers = useQuery(trpc.mcpServer.list.queryOptions({ includeArchived: false }));
  // The registered servers, and any the profile picks that is no longer registered (so unticking it is possible).
  const serverNames = [...new Set([...(servers.data ?? []).map((s) => s.name), ...values.mcpServers])];
  const save = mode === "create" ? create : update;
  // Fields edited since the last refusal: their errors no longer stand (the refusal was about what was sent).
  const [edited, setEdited] = useState<ReadonlySet<string>>(new Set());
  const touch = (field: string) => setEdited((s) => (s.has(field) ? s : new Set(s).add(field)));
  const errors = Object.fromEntries(
    Object.entries(save.error ? errorsByField(save.error.message) : {})
      .filter(([field]) => !edited.has(field))
      .map(([field, message]) => [field, labelledMessage(message, ERROR_LABELS)]),
  );
  const general = Object.entries(errors).filter(([k]) => !SHOWN.has(k));
  // Read the value now: React's event is gone by the time the state updater runs.
  const set = (field: keyof ProfileFormValues) => (e: { currentTarget: { value: string } }) => {
    const value = e.currentTarget.value;
    setUnchanged(false);
    touch(field);
    setValues((v) => ({ ...v, [field]: value }));
  };
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const next = specOf(values, spec);
    setEdited(new Set());
    if (mode === "create") create.mutate({ spec: next });
    else update.mutate({ name: spec?.name ?? values.name, spec: next });
  };
  const input = (field: (typeof TEXT_FIELDS)[number] | (typeof NUMBER_FIELDS)[number], extra: { multiline?: boolean; numeric?: boolean } = {}) => (
    <ProfileInput
      key={field}
      field={field}
      label={profileFieldLabel(field, values.provider)}
      value={values[field]}
      error={errors[field]}
      onChange={(value) => {
        setUnchanged(false);
        touch(field);
        setValues((v) => ({ ...v, [field]: value }));
      }}
      readOnly={mode === "edit" && field === "name"}
      {...extra}
    />
  );
  return (
    <Dialog
      open
      onOpenChange={(open) => !open && onClose()}
      title={mode === "create" ? "New profile" : `Edit profile ${spec?.name ?? ""}`}
      description="Saving makes a new version; tasks already launched keep theirs."
    >
      <form onSubmit={submit} className="max-h-[70vh] space-y-3 overflow-y-auto pr-1" aria-label="Profile">
        {general.length > 0 && (
          <p role="alert" className="text-sm text-red-700">
            {general.map(([, m]) => m).join("; ")}
          </p>
        )}
        <div className="grid gap-3 sm:grid-cols-2">
          {input("name")}
          {input("model")}
          <Field label="Provider" error={errors.provider}>
            <Select
              name="provider"
              value={values.provider}
              onChange={set("provider")}
              options={PROFILE_PROVIDERS.map((p) => [p, `${p} — ${PROVIDERS[p].label}`] as const)}
            />
          </Field>
          {input("apiKeyEnv")}
        </div>
        {input("baseUrl")}
        {input("description")}
        <Field label="Extra headers (one per line, Name: value; secrets as ${VAR})" error={errors.headers}>
          <textarea
            name="headers"
            rows={2}
            className="rounded-md border border-zinc-300 px-2 py-1.5 font-mono text-xs"
            value={values.headers}
            onChange={set("headers")}
          />
        </Field>
        <CheckboxGroup
          legend="Built-in tools"
          options={BUILTIN_TOOL_NAMES}
          selected={values.tools}
          onChange={(tools) => {
            touch("tools");
            setValues((v) => ({ ...v, tools }));
          }}
          error={errors.tools}
        />
        <CheckboxGroup
          legend="MCP servers (their tools, server-qualified)"
          ariaLabel="MCP servers"
          options={serverNames}
          selected={values.mcpServers}
          onChange={(mcpServers) => {
            touch("mcpServers");
            setValues((v) => ({ ...v, mcpServers }));
          }}
          error={errors.mcpServers}
          empty={servers.data ? <span className="text-xs text-zinc-500">No MCP server registered.</span> : null}
        />
        <div className="grid gap-3 sm:grid-cols-2">{NUMBER_FIELDS.map((f) => input(f, { numeric: true }))}</div>
        {input("escalationRole")}
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={values.requireApproval}
            onChange={(e) => {
              const on = e.currentTarget.checked;
              setValues((v) => ({ ...v, requireApproval: on }));
            }}
          />
          Ask a human before risky actions
        </label>
        <ProfileEffort
          value={values.effort}
          provider={values.provider}
          errors={effortErrorsOf(save.error?.message)}
          onChange={(effort) => setValues((v) => ({ ...v, effort }))}
        />
        {input("systemPrompt", { multiline: true })}
        <ConnectionResult result={test.data} error={test.error?.message} />
        {unchanged && (
          <p role="status" className="text-sm text-zinc-700" data-testid="profile-unchanged">
            Nothing changed, so no new version was made.
          </p>
        )}
        <div className="flex justify-end gap-2 pt-2">
          <button
            type="button"
            className="rounded border border-zinc-300 px-3 py-1.5 text-sm"
            onClick={() => test.mutate({ spec: specOf(values, spec) })}
            disabled={test.isPending}
          >
            {test.isPending ? "Testing…" : "Test connection"}
          </button>
          <button type="button" className="rounded border border-zinc-300 px-3 py-1.5 text-sm" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="rounded bg-zinc-900 px-3 py-1.5 text-sm text-white disabled:opacity-50" disabled={save.isPending}>
            {save.isPending ? "Saving…" : mode === "create" ? "Create profile" : "Save new version"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
