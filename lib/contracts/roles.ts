/**
 * Longhaul's roles and what each may do (docs/ARCHITECTURE.md "Identity"). Pure: no framework
 * imports, shared by the tRPC middleware, the route handlers, the pages and the nav.
 *
 * - operator: launch, cancel, resume, fork their own tasks; read all tasks
 * - handler:  claim and decide escalations
 * - manager:  costs; all tasks read-only
 * - admin:    users, roles, profiles, settings, the audit log
 *
 * A user may hold several. Any role reads tasks (runs, steps, artifacts, live updates); a user with
 * no role is signed in but sees nothing until an admin grants one.
 */
export const ROLES = ["operator", "handler", "manager", "admin"] as const;
export type Role = (typeof ROLES)[number];

/** What each role is for, one line (shown on refusals and on the admin page). */
export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  operator: "launch, cancel, resume and fork their own tasks; read all tasks",
  handler: "claim and decide escalations",
  manager: "costs; all tasks read-only",
  admin: "users, roles, profiles, settings and the audit log",
};

/** True when `value` is one of {@link ROLES}. */
export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/** The known roles among `values`, deduplicated, in {@link ROLES} order (unknown strings dropped). */
export function normaliseRoles(values: readonly unknown[]): Role[] {
  return ROLES.filter((r) => values.includes(r));
}

/** True when `roles` holds at least one of `needed` (an empty `needed` = any role at all). */
export function hasAnyRole(roles: readonly string[], needed: readonly Role[]): boolean {
  if (needed.length === 0) return roles.some(isRole);
  return needed.some((r) => roles.includes(r));
}

/** Roles that may read tasks, runs, steps, artifacts and live updates: every role. */
export const READ_ROLES: readonly Role[] = ROLES;

/**
 * The sentence a refusal carries (the 403's message, the refused page): "this needs the <role>
 * role" (or "one of the a, b roles"), so the user knows whom to ask.
 */
export function needsRoleMessage(needed: readonly Role[], what?: string): string {
  const roles = needed.length ? needed : READ_ROLES;
  const which = roles.length === 1 ? `the ${roles[0]} role` : `one of the roles ${roles.join(", ")}`;
  return `${what ? `${what}: ` : ""}this needs ${which}`;
}

// Who may act on a task: shared with the pages (lib/contracts, which the UI may import).
export { mayActOnTask, taskActionRefusal } from "./task-actions.ts";
