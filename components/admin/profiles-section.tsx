"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import type { AppRouter } from "@/server/api/root.ts";
import { describeCodeSource } from "@/lib/contracts/code-managed.ts";
import { StatusLine, useActionStatus } from "@/components/ui/use-action-status.tsx";
import { ManagedAsCode } from "./detach-from-code.tsx";
import { Timestamp } from "@/components/ui/timestamp.tsx";
import { providerInfo } from "@/lib/contracts/profile.ts";
import { ConnectionResult } from "./profile-connection-result.tsx";
import { ProfileFormDialog } from "./profile-form.tsx";
import { ProfileSmokeButton } from "./profile-smoke-button.tsx";
import type { FormSpec } from "./profile-form-values.ts";

type ProfileRecord = inferRouterOutputs<AppRouter>["profile"]["records"][number];
type Editing = { mode: "create" | "edit"; spec: FormSpec | null } | null;

const button = "rounded border border-zinc-300 px-2 py-0.5 text-xs hover:bg-zinc-50 disabled:opacity-50";

/**
 * The row's "managed as code" line: where the profile comes from, who applied it and when, and that
 * the browser does not edit it — with "Detach from file…" (confirmed) for an admin who wants to.
 */
function ManagedAsCodeLine({ p }: { p: ProfileRecord }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const status = useActionStatus({ name: null });
  const detach = useMutation(trpc.profile.detach.mutationOptions({ onSuccess: () => void queryClient.invalidateQueries(trpc.profile.pathFilter()) }));
  if (!p.managedAs) return null;
  const from = describeCodeSource(p.managedAs.source);
  return (
    <ManagedAsCode
      testId="profile-managed-as-code"
      kind="profile"
      name={p.name}
      source={p.managedAs.source}
      pending={detach.isPending}
      copyHint="To keep a changed copy, use Copy instead."
      line={status.line}
      onDetach={() => {
        status.start();
        detach.mutate({ name: p.name }, { onError: status.fail });
      }}
    >
      Managed as code: from {from}, applied by {p.managedAs.appliedBy} <Timestamp date={p.managedAs.appliedAt} />. Change it there; an edit here would differ
      from it.
    </ManagedAsCode>
  );
}

/** One profile row: name, model and endpoint, version, active tasks, where it is managed; edit (not while managed as code), copy, test, smoke-test (MCP tools) and archive. */
function ProfileRow({ p, onEdit, onCopy }: { p: ProfileRecord; onEdit: () => void; onCopy: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const archive = useMutation(trpc.profile.archive.mutationOptions({ onSuccess: () => void queryClient.invalidateQueries(trpc.profile.pathFilter()) }));
  const test = useMutation(trpc.profile.testConnection.mutationOptions());
  // One line for the row's actions: Archive's refusal, Test connection's failure to run.
  const status = useActionStatus({ name: null });
  const archived = p.archivedAt !== null;
  const managed = p.managedAs !== null;
  return (
    <li className="space-y-1 rounded border border-zinc-200 p-3 text-sm" data-profile-row={p.name}>
      <div className="flex flex-wrap items-baseline gap-2">
        <span className="font-medium">{p.name}</span>
        <span className="text-xs text-zinc-500">v{p.version}</span>
        <span className="font-mono text-xs text-zinc-600">{p.spec.model}</span>
        <span className="text-xs text-zinc-500">
          {providerInfo(p.spec.provider).offline
            ? providerInfo(p.spec.provider).label
            : `${providerInfo(p.spec.provider).label} · ${p.spec.baseUrl ?? (providerInfo(p.spec.provider).wireFormat === "messages" ? "ANTHROPIC_BASE_URL / Anthropic" : "OPENAI_BASE_URL / OpenAI")}`}
        </span>
        {p.activeTasks > 0 && <span className="text-xs text-amber-800">{p.activeTasks} active task(s)</span>}
        {archived && <span className="text-xs text-zinc-500">archived</span>}
        <span className="ml-auto flex gap-1">
          <button
            type="button"
            className={button}
            onClick={onEdit}
            disabled={archived || managed}
            title={managed ? "Managed as code: change the file and apply it, or detach it first" : undefined}
          >
            Edit
          </button>
          <button type="button" className={button} onClick={onCopy}>
            Copy
          </button>
          <button
            type="button"
            className={button}
            onClick={() => {
              status.start();
              test.mutate({ name: p.name }, { onError: status.fail });
            }}
            disabled={test.isPending}
          >
            {test.isPending ? "Testing…" : "Test connection"}
          </button>
          {!archived && <ProfileSmokeButton profile={p.name} mcpServers={p.spec.mcpServers.length} />}
          {!archived && (
            <button
              type="button"
              className={button}
              onClick={() => {
                status.start();
                test.reset();
                archive.mutate({ name: p.name }, { onError: status.fail });
              }}
              disabled={archive.isPending}
            >
              Archive
            </button>
          )}
        </span>
      </div>
      {p.spec.description && <p className="text-xs text-zinc-600">{p.spec.description}</p>}
      <ManagedAsCodeLine p={p} />
      <StatusLine line={status.line} className="text-xs" />
      <ConnectionResult result={test.data} />
    </li>
  );
}

/**
 * The admin page's Profiles section: every profile (archived ones on request) with its
 * current version; create, edit (a new version — running tasks keep theirs), copy, archive (refused
 * while tasks of it are active) and "Test connection". Profiles can also be applied as code:
 * `npm run cli -- profiles apply <file>`.
 */
export function ProfilesSection() {
  const trpc = useTRPC();
  const [showArchived, setShowArchived] = useState(false);
  const records = useQuery(trpc.profile.records.queryOptions({ includeArchived: showArchived }));
  const [editing, setEditing] = useState<Editing>(null);
  return (
    <section className="space-y-3" aria-label="Profiles">
      <div className="flex flex-wrap items-center gap-3">
        <h2 className="text-lg font-semibold">Agent profiles</h2>
        <button type="button" className="rounded bg-zinc-900 px-3 py-1 text-sm text-white" onClick={() => setEditing({ mode: "create", spec: null })}>
          New profile
        </button>
        <label className="flex items-center gap-1 text-xs text-zinc-600">
          <input type="checkbox" checked={showArchived} onChange={(e) => setShowArchived(e.currentTarget.checked)} /> Show archived
        </label>
      </div>
      <p className="text-xs text-zinc-600">
        Which model, where, with which key variable, tools and budgets. Each save that changes something is a new version; a task keeps the version it launched
        with. As code: <code>npm run cli -- profiles apply profiles.yaml</code> — a profile applied from a file is changed in the file, not here.
      </p>
      {records.error && (
        <p role="alert" className="text-sm text-red-700">
          {records.error.message}
        </p>
      )}
      <ul className="space-y-2">
        {(records.data ?? []).map((p) => (
          <ProfileRow
            key={p.id}
            p={p}
            onEdit={() => setEditing({ mode: "edit", spec: p.spec })}
            onCopy={() =>
              setEditing({ mode: "create", spec: { ...p.spec, name: `${p.name}-copy`, description: `Copy of ${p.name}. ${p.spec.description}`.trim() } })
            }
          />
        ))}
      </ul>
      {editing && (
        <ProfileFormDialog key={`${editing.mode}-${editing.spec?.name ?? ""}`} mode={editing.mode} spec={editing.spec} onClose={() => setEditing(null)} />
      )}
    </section>
  );
}
