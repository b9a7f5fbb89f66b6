"use client";

import { formText } from "@/components/auth/form-value.ts";
import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { Field, TextInput } from "@/components/ui/field.tsx";
import { labelledMessage, type FieldLabels } from "@/components/ui/field-labels.ts";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "@/lib/contracts/limits.ts";

type FieldName = "currentPassword" | "newPassword" | "repeat";

/** The form's fields as the API names them, in the form's words. */
const PASSWORD_FIELDS: FieldLabels = { currentPassword: "Current password", newPassword: "New password" };

/** The field a server message names ("newPassword: at least 8 characters" → newPassword), else null. */
function fieldOf(message: string): FieldName | null {
  const name = /^(currentPassword|newPassword):/.exec(message)?.[1];
  return (name as FieldName | undefined) ?? null;
}

/**
 * /account → Password: the current password, a new one (8–128 characters, lib/contracts/limits.ts) typed twice. On success
 * the user's other sessions are signed out (this one stays) and the form empties; an error sits
 * under the field it names, in the form's words, and clears when that field is edited or on the next
 * attempt.
 */
export function ChangePasswordForm() {
  const trpc = useTRPC();
  const [errors, setErrors] = useState<Partial<Record<FieldName | "form", string>>>({});
  const [done, setDone] = useState<number | null>(null);
  const change = useMutation(trpc.account.changePassword.mutationOptions());

  /** A field was edited: its error (and one naming no field) no longer stands. */
  const edited = (field: FieldName) => setErrors((e) => (e[field] || e.form ? { ...e, [field]: undefined, form: undefined } : e));

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formEl = event.currentTarget;
    const form = new FormData(formEl);
    const currentPassword = formText(form, "currentPassword");
    const newPassword = formText(form, "newPassword");
    const repeat = formText(form, "repeat");
    setDone(null);
    const tooLong = [newPassword, repeat].some((p) => p.length > PASSWORD_MAX_LENGTH);
    if (tooLong) {
      // Say the limit, not "does not match" (a browser's maxLength would cut one field and not the other).
      setErrors({ newPassword: `New password: at most ${PASSWORD_MAX_LENGTH} characters` });
      return;
    }
    if (newPassword !== repeat) {
      setErrors({ repeat: "Repeat new password: does not match the new password" });
      return;
    }
    setErrors({});
    change.mutate(
      { currentPassword, newPassword },
      {
        onSuccess: (r) => {
          formEl.reset();
          setDone(r.sessionsEnded);
        },
        onError: (e) => setErrors({ [fieldOf(e.message) ?? "form"]: labelledMessage(e.message, PASSWORD_FIELDS) }),
      },
    );
  };

  return (
    <section className="space-y-3" aria-label="Password">
      <h2 className="text-lg font-semibold">Password</h2>
      <form className="flex max-w-sm flex-col gap-3 rounded border border-zinc-200 bg-white p-3" onSubmit={submit} aria-label="Change password">
        <Field label="Current password" error={errors.currentPassword}>
          <TextInput
            name="currentPassword"
            onChange={() => edited("currentPassword")}
            type="password"
            required
            autoComplete="current-password"
            aria-invalid={!!errors.currentPassword}
          />
        </Field>
        <Field label="New password" hint={`${PASSWORD_MIN_LENGTH}–${PASSWORD_MAX_LENGTH} characters`} error={errors.newPassword}>
          <TextInput
            name="newPassword"
            onChange={() => edited("newPassword")}
            type="password"
            required
            minLength={PASSWORD_MIN_LENGTH}
            autoComplete="new-password"
            aria-invalid={!!errors.newPassword}
          />
        </Field>
        <Field label="Repeat new password" error={errors.repeat}>
          <TextInput
            name="repeat"
            onChange={() => edited("repeat")}
            type="password"
            required
            minLength={PASSWORD_MIN_LENGTH}
            autoComplete="new-password"
            aria-invalid={!!errors.repeat}
          />
        </Field>
        <button type="submit" className="self-start rounded bg-zinc-900 px-3 py-1.5 text-sm text-white" disabled={change.isPending}>
          {change.isPending ? "Changing…" : "Change password"}
        </button>
        {errors.form && (
          <p className="text-sm text-red-700" role="alert">
            {errors.form}
          </p>
        )}
        {done !== null && (
          <p className="text-sm text-emerald-800" role="status" data-testid="password-changed">
            Password changed; {done} other session{done === 1 ? "" : "s"} signed out.
          </p>
        )}
      </form>
    </section>
  );
}
