/**
 * Who may act on a task, and when an action can be done at all: one rule for the API
 * (server/api/trpc.ts ownTaskProcedure, through lib/contracts/roles.ts) and the pages
 * (components/auth/use-me.ts), so a button is shown exactly when its action would be accepted —
 * never a button whose dialog then cannot confirm. Pure.
 */

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

/**
 * Whether a task can be forked now, and if not why, in the words the page shows where Fork… would be:
 * a fork branches a new task off a good (resumable) checkpoint of an ended task (task.fork needs
 * one; the latest good one by default), so a task without one is not offered Fork… at all.
 * `hasGoodCheckpoint`: task.get's field. Who may fork is {@link mayActOnTask}'s rule, asked apart.
 */
export function forkOffer(t: { hasGoodCheckpoint: boolean }): { offered: boolean; why: string | null } {
  return t.hasGoodCheckpoint
    ? { offered: true, why: null }
    : { offered: false, why: "No checkpoint to fork from: this task ended before its first checkpoint." };
}
