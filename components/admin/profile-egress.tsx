"use client";

import { describeCodeSource } from "@/lib/contracts/code-managed.ts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import type { AppRouter } from "@/server/api/root.ts";
import { SafeText } from "@/components/ui/safe-text.tsx";
import type { FieldLabels } from "@/components/ui/field-labels.ts";
import { StatusLine, useActionStatus } from "@/components/ui/use-action-status.tsx";

type Profile = inferRouterOutputs<AppRouter>["profile"]["list"][number];

/** The egress fields as the API names them (profile.setEgress), in the form's words. */
const EGRESS_FIELDS: FieldLabels = {
  name: null,
  emailAllow: "Allowed email",
  "emailAllow.*": "Allowed email",
  httpAllow: "Allowed HTTP origins",
  "httpAllow.*": "Allowed HTTP origins",
  onBreach: "On a breach",
};

/** Entries of an allow-list text box: one per line or comma-separated, blanks dropped. */
function entries(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((e) => e.trim())
    .filter(Boolean);
}

/** One profile's egress fields, editable: its own allow-lists and breach handling, beside the effective policy. */
function ProfileEgressRow({ profile }: { profile: Profile }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState(profile.egressEmailAllow.join("\n"));
  const [http, setHttp] = useState(profile.egressHttpAllow.join("\n"));
  const [onBreach, setOnBreach] = useState(profile.egressOnBreach ?? "");
  const status = useActionStatus(EGRESS_FIELDS);
  const save = useMutation(
    trpc.profile.setEgress.mutationOptions({
      onMutate: status.start,
      onError: status.fail,
      onSuccess: () => {
        status.done("Saved.");
        void queryClient.invalidateQueries(trpc.profile.pathFilter());
      },
    }),
  );
  const eff = profile.egressEffective;
  const id = `egress-${profile.name}`;
  return (
    <form
      className="space-y-2 rounded border border-zinc-200 p-3 text-sm"
      data-profile-name={profile.name}
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({
          name: profile.name,
          emailAllow: entries(email),
          httpAllow: entries(http),
          onBreach: onBreach === "escalate" || onBreach === "refuse" ? onBreach : null,
        });
      }}
    >
      <div className="flex flex-wrap items-baseline gap-2">
        <SafeText className="font-medium" text={profile.name} />
        <span className="text-xs text-zinc-500">{profile.model}</span>
      </div>
      <p className="text-xs text-zinc-600" data-testid="egress-effective">
        In effect (deployment + profile): mail to {[...eff.emailDomains, ...eff.emailRecipients].join(", ") || "no one"}; HTTP to{" "}
        {eff.httpOrigins.join(", ") || "no origin"}; a breach is {eff.onBreach === "refuse" ? "refused" : "escalated for approval"}.
      </p>
      <div className="grid gap-3 sm:grid-cols-3">
        <label className="block" htmlFor={`${id}-email`}>
          <span className="text-xs font-medium text-zinc-700">Allowed email domains / recipients (added to the deployment&apos;s)</span>
          <textarea
            id={`${id}-email`}
            aria-label={`Allowed email for ${profile.name}`}
            rows={3}
            className="mt-1 w-full rounded border border-zinc-300 px-2 py-1 font-mono text-xs"
            placeholder="example.org, *.partner.com, ops@vendor.io"
            value={email}
            onChange={(e) => {
              setEmail(e.target.value);
              status.edited("emailAllow");
            }}
          />
        </label>
        <label className="block" htmlFor={`${id}-http`}>
          <span className="text-xs font-medium text-zinc-700">Allowed HTTP origins</span>
          <textarea
            id={`${id}-http`}
            aria-label={`Allowed HTTP origins for ${profile.name}`}
            rows={3}
            className="mt-1 w-full rounded border border-zinc-300 px-2 py-1 font-mono text-xs"
            placeholder="https://hooks.example.com"
            value={http}
            onChange={(e) => {
              setHttp(e.target.value);
              status.edited("httpAllow");
            }}
          />
        </label>
        <label className="block" htmlFor={`${id}-breach`}>
          <span className="text-xs font-medium text-zinc-700">On a breach</span>
          <select
            id={`${id}-breach`}
            aria-label={`On a breach for ${profile.name}`}
            className="mt-1 block w-full rounded border border-zinc-300 px-2 py-1"
            value={onBreach}
            onChange={(e) => {
              setOnBreach(e.target.value);
              status.edited("onBreach");
            }}
          >
            <option value="">the deployment&apos;s setting</option>
            <option value="escalate">escalate for approval</option>
            <option value="refuse">refuse</option>
          </select>
        </label>
      </div>
      <div className="flex items-center gap-3">
        <button
          type="submit"
          disabled={save.isPending || profile.managedAs !== null}
          className="rounded border border-zinc-300 px-3 py-1 text-sm font-medium disabled:opacity-50"
        >
          Save egress policy
        </button>
        {profile.managedAs && (
          <span className="text-xs text-zinc-600" data-testid="egress-managed-as-code">
            Managed as code ({describeCodeSource(profile.managedAs.source)}): change it there, or detach it under Agent profiles.
          </span>
        )}
        <StatusLine line={status.line} className="text-xs" testId="egress-save" />
      </div>
    </form>
  );
}

/** /admin's profiles section: each agent profile's egress policy (allowed recipients, origins, breach handling), editable. */
export function ProfileEgressSection() {
  const trpc = useTRPC();
  const profiles = useQuery(trpc.profile.list.queryOptions());
  return (
    <section className="space-y-3" aria-label="Profiles">
      <h2 className="text-lg font-semibold">Profiles: egress policy</h2>
      <p className="text-sm text-zinc-600">
        Where a profile&apos;s agents may send mail and HTTP requests without a human. A call outside this is escalated for approval (or refused), whatever the
        task&apos;s approval setting; the deployment&apos;s own lists (LONGHAUL_EMAIL_ALLOW, LONGHAUL_HTTP_ALLOW) always apply too.
      </p>
      {profiles.isError && <p className="text-sm text-red-700">Could not load profiles: {profiles.error.message}</p>}
      {profiles.data?.map((p) => (
        <ProfileEgressRow key={`${p.name}:${p.egressEmailAllow.join(",")}:${p.egressHttpAllow.join(",")}:${p.egressOnBreach ?? ""}`} profile={p} />
      ))}
    </section>
  );
}
