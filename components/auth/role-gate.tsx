"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import type { Role } from "@/lib/contracts/roles.ts";
import { holdsAny, roleWords, useMe } from "./use-me.ts";
import { isDatabaseUnavailable } from "@/components/ui/api-error.ts";
import { DatabaseRestarting } from "@/components/ui/load-error.tsx";

/**
 * Renders `children` only for a user holding one of `needs` (none = any role); otherwise says which
 * role the page needs and who is signed in. The API refuses the same actions on its own (403), so
 * this is for people, not a security boundary.
 */
export function RoleGate({ needs, what, children }: { needs: Role[]; what: string; children: ReactNode }) {
  const me = useMe();
  if (me.isPending) return <div className="m-8 h-24 animate-pulse rounded bg-zinc-200/60" />;
  if (me.isError && isDatabaseUnavailable(me.error)) return <DatabaseRestarting onRetry={() => void me.refetch()} className="m-8" />;
  if (me.isError || !me.data) {
    return (
      <div className="p-8 text-sm" data-testid="refused">
        {what} needs you to{" "}
        <Link className="underline" href="/sign-in">
          sign in
        </Link>
        .
      </div>
    );
  }
  if (!holdsAny(me.data.roles, needs)) {
    return (
      <div className="max-w-xl p-8" data-testid="refused">
        <h1 className="text-xl font-semibold">Not for your role</h1>
        <p className="mt-2 text-sm text-zinc-700">
          {what} needs {roleWords(needs)}. You are signed in as <strong>{me.data.name}</strong> with{" "}
          {me.data.roles.length ? `the roles ${me.data.roles.join(", ")}` : "no role yet"}; an admin can grant roles at /admin.
        </p>
      </div>
    );
  }
  return <>{children}</>;
}
