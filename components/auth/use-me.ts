"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc.tsx";
import { mayActOnTask, taskActionRefusal } from "@/lib/contracts/task-actions.ts";
import type { Role } from "@/lib/contracts/roles.ts";

/**
 * The signed-in user (`account.session`, the same fields as `account.me`): name (the actor on their
 * actions), email, roles; `data` null when signed out. Asked through account.session, which answers
 * 200 when signed out, so a signed-out page logs no 401 in the console.
 */
export function useMe() {
  const trpc = useTRPC();
  return useQuery({ ...trpc.account.session.queryOptions(), staleTime: 30_000, retry: false });
}

/** True when `roles` holds one of `needed` (none = any role). Mirrors lib/contracts/roles.ts hasAnyRole. */
export function holdsAny(roles: readonly string[] | undefined, needed: readonly Role[]): boolean {
  if (!roles) return false;
  return needed.length === 0 ? roles.length > 0 : needed.some((r) => roles.includes(r));
}

/** "the operator role" / "one of the roles a, b" (as the API's 403 says it). */
export function roleWords(needed: readonly Role[]): string {
  return needed.length === 1
    ? `the ${needed[0]} role`
    : `one of the roles ${(needed.length ? needed : ["operator", "handler", "manager", "admin"]).join(", ")}`;
}

/**
 * Whether the signed-in user may act on a task launched by `createdBy` (cancel, resume, fork,
 * checkpoint, escalate): `{ allowed, why }`, `why` naming the role needed when not. Same rule as
 * the API (lib/contracts/roles.ts mayActOnTask); while the user is loading, not allowed, no reason.
 */
export function useTaskActions(createdBy: string | undefined): { allowed: boolean; why: string | null } {
  const me = useMe().data;
  if (!me || createdBy === undefined) return { allowed: false, why: null };
  return mayActOnTask(me, createdBy) ? { allowed: true, why: null } : { allowed: false, why: taskActionRefusal(me, createdBy) };
}
