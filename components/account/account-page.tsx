"use client";

import { formText } from "@/components/auth/form-value.ts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useMe } from "@/components/auth/use-me.ts";
import { useTRPC } from "@/components/trpc.tsx";
import { TokenTable } from "@/components/auth/token-table.tsx";
import { ChangePasswordForm } from "./change-password-form.tsx";
import type { Role } from "@/lib/contracts/roles.ts";
import type { FieldLabels } from "@/components/ui/field-labels.ts";
import { StatusLine, useActionStatus } from "@/components/ui/use-action-status.tsx";

/** The token form's fields as the API names them (account.createToken), in the form's words. */
const TOKEN_FIELDS: FieldLabels = { name: "Name", roles: "Roles", expiresInDays: "Expires in (days)", tokenId: null };

/**
 * /account: who I am, my password (signed in with one), and my API tokens (create — shown once, until
 * the next create —, list, revoke), with one line for the token actions' outcome.
 */
export function AccountPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const me = useMe();
  const tokens = useQuery(trpc.account.tokens.queryOptions());
  const [created, setCreated] = useState<{ token: string; name: string } | null>(null);
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.account.tokens.queryKey() });
  // One line for the token actions (create, revoke): the last one's refusal in the form's words.
  const status = useActionStatus(TOKEN_FIELDS);
  const create = useMutation(
    trpc.account.createToken.mutationOptions({
      onMutate: () => {
        status.start();
        setCreated(null);
      },
      onSuccess: (t) => {
        setCreated({ token: t.token, name: t.name });
        void invalidate();
      },
      onError: status.fail,
    }),
  );
  const revoke = useMutation(
    trpc.account.revokeToken.mutationOptions({
      onMutate: status.start,
      onSuccess: () => {
        status.done("Token revoked: it is refused from now on.");
        void invalidate();
      },
      onError: status.fail,
    }),
  );
  if (!me.data) return null;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const roles = form.getAll("roles").map(String) as Role[];
    create.mutate({ name: formText(form, "name"), roles, expiresInDays: Number(form.get("days") ?? 30) });
  };
  return (
    <div className="max-w-3xl space-y-6 p-8">
      <div>
        <h1 className="text-2xl font-semibold">Account</h1>
        <p className="mt-1 text-sm text-zinc-700">
          {me.data.name} · {me.data.email} · roles: {me.data.roles.join(", ") || "none yet"}
        </p>
      </div>
      {me.data.via === "session" && <ChangePasswordForm />}
      <section className="space-y-3">
        <h2 className="text-lg font-semibold">API tokens</h2>
        <p className="text-sm text-zinc-600">
          For scripts and the CLI: <code>LONGHAUL_TOKEN=… npm run cli -- list</code> (or <code>Authorization: Bearer …</code>). A token acts with the roles you
          give it, never more than yours.
        </p>
        <form className="flex flex-wrap items-end gap-3 rounded border border-zinc-200 bg-white p-3" onSubmit={submit}>
          <label className="text-sm">
            Name
            <input
              name="name"
              required
              maxLength={100}
              onChange={() => status.edited("name")}
              className="ml-2 rounded border border-zinc-300 px-2 py-1"
              defaultValue="cli"
            />
          </label>
          <fieldset className="text-sm">
            <legend>Roles</legend>
            {me.data.roles.map((r) => (
              <label key={r} className="mr-2">
                <input type="checkbox" name="roles" value={r} defaultChecked onChange={() => status.edited("roles")} /> {r}
              </label>
            ))}
          </fieldset>
          <label className="text-sm">
            Expires in (days)
            <input
              name="days"
              type="number"
              onChange={() => status.edited("expiresInDays")}
              min={1}
              max={366}
              defaultValue={30}
              className="ml-2 w-20 rounded border border-zinc-300 px-2 py-1"
            />
          </label>
          <button type="submit" className="rounded bg-zinc-900 px-3 py-1.5 text-sm text-white" disabled={create.isPending}>
            Create token
          </button>
        </form>
        <StatusLine line={status.line} testId="token-action" />
        {created && (
          <div className="rounded border border-amber-300 bg-amber-50 p-3 text-sm" data-testid="new-token">
            Token “{created.name}” — copy it now, it is not shown again:
            <code className="mt-1 block break-all font-mono">{created.token}</code>
          </div>
        )}
        <TokenTable tokens={tokens.data} onRevoke={(tokenId) => revoke.mutate({ tokenId })} />
      </section>
    </div>
  );
}
