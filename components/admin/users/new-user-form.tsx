"use client";

import { formText } from "@/components/auth/form-value.ts";
import type { FormEvent } from "react";
import type { Role } from "@/lib/contracts/roles.ts";
import { ROLE_COLUMNS, type Confirmation } from "./user-row.tsx";
import type { UserActions } from "./use-user-actions.ts";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "@/lib/contracts/limits.ts";

/**
 * The "New user" form: name, email, password (8–128 characters, lib/contracts/limits.ts) and roles. Add user asks for
 * confirmation (naming the user and the roles) through `ask`; the form empties once the user exists,
 * and keeps what was typed when the server refuses it (e.g. the email is taken); editing the field a
 * refusal names takes the refusal away.
 */
export function NewUserForm({ actions, ask }: { actions: UserActions; ask: (c: Confirmation) => void }) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formEl = event.currentTarget;
    const form = new FormData(formEl);
    const input = {
      email: formText(form, "email"),
      name: formText(form, "name"),
      password: formText(form, "password"),
      roles: form.getAll("roles").map(String) as Role[],
    };
    ask({
      title: `Add ${input.name || input.email}?`,
      description: `${input.email} gets an account with ${input.roles.length ? `the roles ${input.roles.join(", ")}` : "no role yet"} and the password you typed.`,
      confirmLabel: "Add user",
      run: () => actions.createUser(input, () => formEl.reset()),
    });
  };
  return (
    <form className="flex flex-wrap items-end gap-3 rounded border border-zinc-200 bg-white p-3 text-sm" onSubmit={submit} aria-label="New user">
      <label>
        Name <input name="name" onChange={() => actions.edited("name")} required maxLength={100} className="rounded border border-zinc-300 px-2 py-1" />
      </label>
      <label>
        Email <input name="email" onChange={() => actions.edited("email")} type="email" required className="rounded border border-zinc-300 px-2 py-1" />
      </label>
      <label>
        Password{" "}
        <input
          name="password"
          type="password"
          onChange={() => actions.edited("password")}
          required
          minLength={PASSWORD_MIN_LENGTH}
          maxLength={PASSWORD_MAX_LENGTH}
          className="rounded border border-zinc-300 px-2 py-1"
        />
      </label>
      <fieldset>
        <legend>Roles</legend>
        {ROLE_COLUMNS.map((r) => (
          <label key={r} className="mr-2">
            <input type="checkbox" name="roles" value={r} onChange={() => actions.edited("roles")} /> {r}
          </label>
        ))}
      </fieldset>
      <button type="submit" className="rounded bg-zinc-900 px-3 py-1.5 text-white">
        Add user
      </button>
    </form>
  );
}
