/**
 * Longhaul's roles and what each may do (ARCHITECTURE.md "Identity"; issue 10). Pure: no framework
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

/**
 * True when a user with `roles`, signed in as `name`, may act on a task launched by `createdBy`
 * (cancel, resume, fork, checkpoint now, escalate now): an admin on any task, an operator on their
 * own (Task.createdBy is the launcher's name). The tRPC middleware (ownTaskProcedure) and the run
 * page both ask this, so a button is shown exactly when the API would accept its action.
 */
export function mayActOnTask(user: { name: string; roles: readonly string[] }, createdBy: string): boolean {
  return user.roles.includes("admin") || (user.roles.includes("operator") && user.name === createdBy);
}

/** Why {@link mayActOnTask} said no, in the words the page shows where the task's actions would be. */
export function taskActionRefusal(user: { name: string; roles: readonly string[] }, createdBy: string): string {
  return user.roles.includes("operator")
    ? `This task was launched by ${createdBy}: an operator cancels, resumes and forks their own tasks (an admin may act on any).`
    : `Cancelling, resuming and forking a task needs the operator role (on your own tasks) or the admin role.`;
}
