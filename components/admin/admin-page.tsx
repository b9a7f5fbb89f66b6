"use client";

import { formText } from "@/components/auth/form-value.ts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { TokenTable } from "@/components/auth/token-table.tsx";
import { ProfileEgressSection } from "./profile-egress.tsx";
import { McpServersSection } from "./mcp-servers.tsx";
import { ProfilesSection } from "./profiles-section.tsx";
import type { Role } from "@/server/auth/roles.ts";

const ROLES: Role[] = ["operator", "handler", "manager", "admin"];

/** /admin: users and their roles, a new user with a password, every API token, each profile's egress policy, and the audit log with a filter. */
export function AdminPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const users = useQuery(trpc.admin.users.queryOptions());
  const tokens = useQuery(trpc.admin.tokens.queryOptions());
  const [filter, setFilter] = useState<{ actor?: string; action?: string; taskId?: string }>({});
  const audit = useQuery(trpc.admin.audit.queryOptions({ ...filter, limit: 200 }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
  // Role toggles show at once; the server's answer (or refusal, e.g. the last admin) settles them.
  const [pendingRoles, setPendingRoles] = useState<Record<string, Role[]>>({});
  const setRoles = useMutation(
    trpc.admin.setRoles.mutationOptions({
      onSettled: async (_data, _error, vars) => {
        await refresh();
        setPendingRoles((p) => Object.fromEntries(Object.entries(p).filter(([id]) => id !== vars.userId)));
      },
    }),
  );
  const createUser = useMutation(trpc.admin.createUser.mutationOptions({ onSuccess: () => void refresh() }));
  const revoke = useMutation(trpc.account.revokeToken.mutationOptions({ onSuccess: () => void refresh() }));
  const setPassword = useMutation(trpc.admin.setPassword.mutationOptions({ onSuccess: () => void refresh() }));
  const [passwordFor, setPasswordFor] = useState<string | null>(null);

  const toggle = (userId: string, roles: Role[], role: Role) => {
    const next = roles.includes(role) ? roles.filter((r) => r !== role) : [...roles, role];
    setPendingRoles((p) => ({ ...p, [userId]: next }));
    setRoles.mutate({ userId, roles: next });
  };
  const submitUser = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    createUser.mutate({
      email: formText(form, "email"),
      name: formText(form, "name"),
      password: formText(form, "password"),
      roles: form.getAll("roles").map(String) as Role[],
    });
    event.currentTarget.reset();
  };
  const submitFilter = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const pick = (k: string) => formText(form, k).trim() || undefined;
    setFilter({ actor: pick("actor"), action: pick("action"), taskId: pick("taskId") });
  };

  return (
    <div className="space-y-8 p-8">
      <h1 className="text-2xl font-semibold">Admin</h1>
      <section className="space-y-3" aria-label="Users">
        <h2 className="text-lg font-semibold">Users and roles</h2>
        {setPassword.isError && (
          <p className="text-sm text-red-700" role="alert">
            {setPassword.error.message}
          </p>
        )}
        {setPassword.isSuccess && (
          <p className="text-sm text-emerald-800" data-testid="password-set">
            Password set; {setPassword.data.sessionsEnded} session{setPassword.data.sessionsEnded === 1 ? "" : "s"} ended. Tell the user their new password
            yourself (no email is sent).
          </p>
        )}
        {setRoles.isError && (
          <p className="text-sm text-red-700" role="alert">
            {setRoles.error.message}
          </p>
        )}
        <table className="w-full text-left text-sm">
          <thead className="text-xs text-zinc-500">
            <tr>
              <th>Name</th>
              <th>Email</th>
              <th>Signs in with</th>
              {ROLES.map((r) => (
                <th key={r}>{r}</th>
              ))}
              <th>Password</th>
            </tr>
          </thead>
          <tbody>
            {users.data
              ?.map((user) => ({ ...user, roles: pendingRoles[user.id] ?? user.roles }))
              .map((u) => (
                <tr key={u.id} className="border-t border-zinc-200" data-user-email={u.email}>
                  <td>{u.name}</td>
                  <td>{u.email}</td>
                  <td>{u.signIn.join(", ")}</td>
                  {ROLES.map((r) => (
                    <td key={r}>
                      <input type="checkbox" aria-label={`${r} for ${u.email}`} checked={u.roles.includes(r)} onChange={() => toggle(u.id, u.roles, r)} />
                    </td>
                  ))}
                  <td>
                    {passwordFor === u.id ? (
                      <form
                        className="flex items-center gap-1"
                        onSubmit={(e) => {
                          e.preventDefault();
                          setPassword.mutate(
                            { userId: u.id, password: formText(new FormData(e.currentTarget), "password") },
                            { onSuccess: () => setPasswordFor(null) },
                          );
                        }}
                      >
                        <input
                          name="password"
                          type="password"
                          required
                          minLength={8}
                          maxLength={128}
                          autoComplete="new-password"
                          aria-label={`New password for ${u.email}`}
                          className="w-36 rounded border border-zinc-300 px-1 py-0.5"
                        />
                        <button type="submit" disabled={setPassword.isPending} className="rounded border border-zinc-300 px-2 py-0.5 text-xs">
                          Set
                        </button>
                      </form>
                    ) : (
                      <button
                        type="button"
                        className="text-xs underline"
                        title="Set a new password (no email is sent); the user's sessions end"
                        onClick={() => {
                          setPassword.reset();
                          setPasswordFor(u.id);
                        }}
                      >
                        Reset password
                      </button>
                    )}
                  </td>
                </tr>
              ))}
          </tbody>
        </table>
        <form className="flex flex-wrap items-end gap-3 rounded border border-zinc-200 bg-white p-3 text-sm" onSubmit={submitUser} aria-label="New user">
          <label>
            Name <input name="name" required maxLength={100} className="rounded border border-zinc-300 px-2 py-1" />
          </label>
          <label>
            Email <input name="email" type="email" required className="rounded border border-zinc-300 px-2 py-1" />
          </label>
          <label>
            Password <input name="password" type="password" required minLength={8} className="rounded border border-zinc-300 px-2 py-1" />
          </label>
          <fieldset>
            <legend>Roles</legend>
            {ROLES.map((r) => (
              <label key={r} className="mr-2">
                <input type="checkbox" name="roles" value={r} /> {r}
              </label>
            ))}
          </fieldset>
          <button type="submit" className="rounded bg-zinc-900 px-3 py-1.5 text-white">
            Add user
          </button>
        </form>
        {createUser.isError && (
          <p className="text-sm text-red-700" role="alert">
            {createUser.error.message}
          </p>
        )}
      </section>

      <section className="space-y-3" aria-label="API tokens">
        <h2 className="text-lg font-semibold">API tokens</h2>
        <TokenTable tokens={tokens.data} showOwner onRevoke={(tokenId) => revoke.mutate({ tokenId })} />
      </section>

      <ProfilesSection />
      <ProfileEgressSection />
      <McpServersSection />

      <section className="space-y-3" aria-label="Audit log">
        <h2 className="text-lg font-semibold">Audit log</h2>
        <form className="flex flex-wrap items-end gap-3 text-sm" onSubmit={submitFilter}>
          <label>
            Who <input name="actor" className="rounded border border-zinc-300 px-2 py-1" />
          </label>
          <label>
            Action <input name="action" placeholder="escalation." className="rounded border border-zinc-300 px-2 py-1" />
          </label>
          <label>
            Task <input name="taskId" placeholder="task_…" className="rounded border border-zinc-300 px-2 py-1" />
          </label>
          <button type="submit" className="rounded border border-zinc-300 px-3 py-1.5">
            Filter
          </button>
        </form>
        <table className="w-full text-left text-sm" data-testid="audit-log">
          <thead className="text-xs text-zinc-500">
            <tr>
              <th>When</th>
              <th>Who</th>
              <th>What</th>
              <th>Task</th>
              <th>Details</th>
            </tr>
          </thead>
          <tbody>
            {audit.data?.events.map((e) => (
              <tr key={e.id} className="border-t border-zinc-200 align-top" data-testid="audit-row" data-action={e.action}>
                <td className="whitespace-nowrap">{e.at.toISOString().slice(0, 19).replace("T", " ")}</td>
                <td>
                  {e.actor}
                  {e.via !== "session" ? <span className="text-zinc-500"> (token)</span> : null}
                </td>
                <td className="font-mono">{e.action}</td>
                <td>
                  {e.taskId ? (
                    <Link className="underline" href={`/tasks/${e.taskId}`}>
                      {e.taskId}
                    </Link>
                  ) : (
                    "—"
                  )}
                </td>
                <td className="max-w-md truncate font-mono text-xs" title={JSON.stringify(e.details)}>
                  {JSON.stringify(e.details)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {audit.data?.events.length === 0 && <p className="text-sm text-zinc-500">No action matches.</p>}
      </section>
    </div>
  );
}
