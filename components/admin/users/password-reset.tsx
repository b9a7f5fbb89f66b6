"use client";

import { formText } from "@/components/auth/form-value.ts";
import type { UserActions, UserRef } from "./use-user-actions.ts";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "@/lib/contracts/limits.ts";

/**
 * A user row's password cell: "Reset password" opens a one-field form (8–128 characters, lib/contracts/limits.ts); Set sends
 * it (no email is sent; the user's sessions end). `open` is controlled by the table, one row at a time.
 */
export function PasswordReset({
  user,
  actions,
  open,
  onOpen,
  onClose,
}: {
  user: UserRef;
  actions: UserActions;
  open: boolean;
  onOpen: () => void;
  onClose: () => void;
}) {
  if (!open)
    return (
      <button type="button" className="text-xs underline" title="Set a new password (no email is sent); the user's sessions end" onClick={onOpen}>
        Reset password
      </button>
    );
  return (
    <form
      className="flex items-center gap-1"
      onSubmit={(e) => {
        e.preventDefault();
        actions.setPassword(user, formText(new FormData(e.currentTarget), "password"), onClose);
      }}
    >
      <input
        name="password"
        type="password"
        required
        minLength={PASSWORD_MIN_LENGTH}
        maxLength={PASSWORD_MAX_LENGTH}
        autoComplete="new-password"
        onChange={() => actions.edited("password")}
        aria-label={`New password for ${user.email}`}
        className="w-36 rounded border border-zinc-300 px-1 py-0.5"
      />
      <button type="submit" disabled={actions.passwordPending} className="rounded border border-zinc-300 px-2 py-0.5 text-xs">
        Set
      </button>
    </form>
  );
}
