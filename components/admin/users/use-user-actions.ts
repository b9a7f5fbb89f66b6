"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import type { Role } from "@/lib/contracts/roles.ts";
import { userLabel } from "./user-label.ts";
import type { FieldLabels } from "@/components/ui/field-labels.ts";
import { useActionStatus } from "@/components/ui/use-action-status.tsx";

/** The users section's fields as the API names them, in the page's words (`userId` is the row the action was on: dropped). */
const USER_FIELDS: FieldLabels = { userId: null, email: "Email", name: "Name", password: "Password", roles: "Roles" };

/** A user as the section names them in its messages. */
export interface UserRef {
  id: string;
  name: string;
  email: string;
}

/**
 * The users section's actions (roles, add user, password reset, deactivate, reactivate) sharing one
 * status line (components/ui/use-action-status.tsx): each action clears it when it starts, then its
 * error (in the form's words) or what was done fills it — so an old error never stands under the
 * next action's result, whichever action it was; `edited(field)` from a form's field takes away an
 * error about that field.
 * `pendingRoles` holds the roles a change asked for until the server answers.
 */
export function useUserActions() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const status = useActionStatus(USER_FIELDS);
  const [pendingRoles, setPendingRoles] = useState<Record<string, Role[]>>({});
  const refresh = () => queryClient.invalidateQueries(trpc.admin.pathFilter());
  const failed = status.fail;
  const starting = status.start;
  const done = status.done;

  const rolesMutation = useMutation(trpc.admin.setRoles.mutationOptions());
  const createMutation = useMutation(trpc.admin.createUser.mutationOptions());
  const passwordMutation = useMutation(trpc.admin.setPassword.mutationOptions());
  const deactivateMutation = useMutation(trpc.admin.deactivate.mutationOptions());
  const reactivateMutation = useMutation(trpc.admin.reactivate.mutationOptions());

  return {
    /** The last action's outcome line, or null. */
    line: status.line,
    /** A field of a form (`email`, `password`…) was edited: an error about it no longer stands. */
    edited: status.edited,
    pendingRoles,
    passwordPending: passwordMutation.isPending,
    /** Replaces `user`'s roles with `roles` (shown at once; the server's answer or refusal settles them). */
    setRoles(user: UserRef, roles: Role[]) {
      starting();
      setPendingRoles((p) => ({ ...p, [user.id]: roles }));
      rolesMutation.mutate(
        { userId: user.id, roles },
        {
          onSuccess: (u) => done(`${u.name} now holds ${u.roles.length ? u.roles.join(", ") : "no role"}.`),
          onError: failed,
          onSettled: () => void refresh().then(() => setPendingRoles((p) => Object.fromEntries(Object.entries(p).filter(([id]) => id !== user.id)))),
        },
      );
    },
    /** Adds a user with a password and roles; `onAdded` runs on success (e.g. to empty the form). */
    createUser(input: { email: string; name: string; password: string; roles: Role[] }, onAdded: () => void) {
      starting();
      createMutation.mutate(input, {
        onSuccess: (u) => {
          done(`Added ${userLabel(u.name, u.email)}. Tell them their password yourself (no email is sent).`);
          onAdded();
          void refresh();
        },
        onError: failed,
      });
    },
    /** Sets `user`'s password (their sessions end, their tokens are revoked); `onSet` runs on success. */
    setPassword(user: UserRef, password: string, onSet: () => void) {
      starting();
      passwordMutation.mutate(
        { userId: user.id, password },
        {
          onSuccess: (r) => {
            done(
              `Password set for ${user.name}; ${r.sessionsEnded} session${r.sessionsEnded === 1 ? "" : "s"} ended. Tell them their new password yourself (no email is sent).`,
            );
            onSet();
            void refresh();
          },
          onError: failed,
        },
      );
    },
    /** Deactivates (`active` false) or reactivates `user`. */
    setActive(user: UserRef, active: boolean) {
      const mutation = active ? reactivateMutation : deactivateMutation;
      starting();
      mutation.mutate(
        { userId: user.id },
        {
          onSuccess: () => {
            done(active ? `${user.name} is active again.` : `${user.name} is deactivated: signed out everywhere, their API tokens refused.`);
            void refresh();
          },
          onError: failed,
        },
      );
    },
  };
}

/** What {@link useUserActions} returns. */
export type UserActions = ReturnType<typeof useUserActions>;
