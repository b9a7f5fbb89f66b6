"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { ConfirmDialog } from "@/components/ui/confirm-dialog.tsx";
import { NewUserForm } from "./new-user-form.tsx";
import { useUserActions } from "./use-user-actions.ts";
import { ROLE_COLUMNS, UserRow, type Confirmation } from "./user-row.tsx";
import { StatusLine } from "@/components/ui/use-action-status.tsx";

/**
 * /admin → Users: every user with their roles (changes confirmed first), password reset,
 * deactivate / reactivate, and the New user form. One status line says the last action's outcome,
 * cleared when the next action starts or a field it names is edited.
 */
export function UsersSection() {
  const trpc = useTRPC();
  const users = useQuery(trpc.admin.users.queryOptions());
  const actions = useUserActions();
  const [confirm, setConfirm] = useState<Confirmation | null>(null);
  const [passwordFor, setPasswordFor] = useState<string | null>(null);
  return (
    <section className="space-y-3" aria-label="Users">
      <h2 className="text-lg font-semibold">Users and roles</h2>
      <StatusLine line={actions.line} testId="users" />
      <div className="overflow-x-auto">
        <table className="w-full text-left text-sm [&_td]:pr-3 [&_th]:pr-3">
          <thead className="text-xs text-zinc-500">
            <tr>
              <th>Name</th>
              <th>Email</th>
              <th>Signs in with</th>
              {ROLE_COLUMNS.map((r) => (
                <th key={r}>{r}</th>
              ))}
              <th>Password</th>
              <th>Account</th>
            </tr>
          </thead>
          <tbody>
            {users.data?.map((u) => (
              <UserRow key={u.id} user={u} actions={actions} ask={setConfirm} passwordOpen={passwordFor === u.id} setPasswordFor={setPasswordFor} />
            ))}
          </tbody>
        </table>
      </div>
      <NewUserForm actions={actions} ask={setConfirm} />
      <ConfirmDialog
        open={confirm !== null}
        title={confirm?.title ?? ""}
        description={confirm?.description}
        confirmLabel={confirm?.confirmLabel ?? "Confirm"}
        onCancel={() => setConfirm(null)}
        onConfirm={() => {
          confirm?.run();
          setConfirm(null);
        }}
      />
    </section>
  );
}
