"use client";

import { cn } from "@/components/ui/cn.ts";
import type { Role } from "@/lib/contracts/roles.ts";
import { PasswordReset } from "./password-reset.tsx";
import type { UserActions, UserRef } from "./use-user-actions.ts";
import { SafeText } from "@/components/ui/safe-text.tsx";

/** A name cell: a long name without spaces wraps rather than widening the column past the row's buttons. */
const NAME_CELL = "max-w-[16rem] [overflow-wrap:anywhere]";

/** Every role, in the table's column order. */
export const ROLE_COLUMNS: Role[] = ["operator", "handler", "manager", "admin"];

/** A question for the section's confirmation dialog. */
export interface Confirmation {
  title: string;
  description: string;
  confirmLabel: string;
  run: () => void;
}

/** A user as the admin list shows them. */
export interface AdminUser extends UserRef {
  roles: Role[];
  signIn: string[];
  deactivatedAt: Date | null;
}

/**
 * One row of the users table: name, email, how they sign in, a checkbox per role (a change is
 * confirmed first, through `ask`), the password reset, and the account's state — Active with
 * Deactivate (confirmed), or "Deactivated <date>" with Reactivate.
 */
export function UserRow({
  user,
  actions,
  ask,
  passwordOpen,
  setPasswordFor,
}: {
  user: AdminUser;
  actions: UserActions;
  ask: (c: Confirmation) => void;
  passwordOpen: boolean;
  setPasswordFor: (userId: string | null) => void;
}) {
  const roles = actions.pendingRoles[user.id] ?? user.roles;
  const toggle = (role: Role) => {
    const giving = !roles.includes(role);
    const next = giving ? [...roles, role] : roles.filter((r) => r !== role);
    ask({
      title: giving ? `Give ${user.name} the ${role} role?` : `Take the ${role} role from ${user.name}?`,
      description: `${user.name} (${user.email}) will hold ${next.length ? next.join(", ") : "no role"}. It takes effect on their next request.`,
      confirmLabel: giving ? `Give ${role}` : `Take ${role}`,
      run: () => actions.setRoles(user, next),
    });
  };
  const deactivated = user.deactivatedAt !== null;
  return (
    <tr className="border-t border-zinc-200" data-user-email={user.email} data-deactivated={deactivated ? "true" : undefined}>
      <td className={cn(NAME_CELL, deactivated && "text-zinc-500")}>
        <SafeText text={user.name} />
      </td>
      <td className="max-w-[16rem] break-all">{user.email}</td>
      <td>{user.signIn.join(", ")}</td>
      {ROLE_COLUMNS.map((r) => (
        <td key={r}>
          <input type="checkbox" aria-label={`${r} for ${user.email}`} checked={roles.includes(r)} onChange={() => toggle(r)} />
        </td>
      ))}
      <td>
        <PasswordReset user={user} actions={actions} open={passwordOpen} onOpen={() => setPasswordFor(user.id)} onClose={() => setPasswordFor(null)} />
      </td>
      <td className="whitespace-nowrap">
        {deactivated ? (
          <span className="flex items-center gap-2">
            <span className="rounded bg-zinc-200 px-1.5 py-0.5 text-xs text-zinc-700" title={`since ${user.deactivatedAt!.toISOString()}`}>
              Deactivated
            </span>
            <button type="button" className="text-xs underline" onClick={() => actions.setActive(user, true)}>
              Reactivate
            </button>
          </span>
        ) : (
          <button
            type="button"
            className="text-xs underline"
            onClick={() =>
              ask({
                title: `Deactivate ${user.name}?`,
                description: `${user.email} is signed out everywhere at once, cannot sign in, their API tokens are refused and they get no escalation email — until an admin reactivates them. Nothing they did is deleted.`,
                confirmLabel: "Deactivate",
                run: () => actions.setActive(user, false),
              })
            }
          >
            Deactivate
          </button>
        )}
      </td>
    </tr>
  );
}
