/**
 * Escalation contracts shared by the inbox (components/escalations) and the domain
 * (server/domain/decide-escalation.ts): decisions, which decisions fit which reason, and the limits
 * of a decision. Client-safe: no imports but ./limits.ts.
 */

export const ESCALATION_DECISIONS = ["resume", "approve", "reject", "dead_end", "cancel"] as const;
export type EscalationDecision = (typeof ESCALATION_DECISIONS)[number];

/** Every reason the agent loop opens an escalation with (Escalation.reason). */
export const ESCALATION_REASONS = [
  "loop",
  "stall",
  "budget",
  "saturation",
  "tool_failure",
  "request_human",
  "risky_action",
  "unresolved_effect",
  "manual",
] as const;
export type EscalationReason = (typeof ESCALATION_REASONS)[number];

/** Escalation.status: open → decided → (applying, inside the applying transaction only) → applied; an undo goes decided → open. */
export const ESCALATION_STATUSES = ["open", "decided", "applying", "applied"] as const;
export type EscalationStatus = (typeof ESCALATION_STATUSES)[number];

/** Escalation reasons that put a proposed call before the handler, so `approve` / `reject` mean something. */
export const APPROVAL_REASONS = ["risky_action", "unresolved_effect"] as const;

/**
 * The decisions that fit an escalation with `reason`: all five for a proposed call (`risky_action`:
 * approve = run it, reject = refuse it; `unresolved_effect`: approve = "it happened", reject = "it did
 * not happen"); resume, dead_end and cancel for every other reason (there is nothing to approve).
 */
export function decisionsFor(reason: string): EscalationDecision[] {
  return (APPROVAL_REASONS as readonly string[]).includes(reason)
    ? [...ESCALATION_DECISIONS]
    : ESCALATION_DECISIONS.filter((d) => d !== "approve" && d !== "reject");
}

/** Longest undo window a decision may ask for, in seconds (the inbox uses 10). */
export const MAX_UNDO_SECONDS = 60;

/** Most steps, tokens and US dollars one decision may add to a task's budgets. */
export const MAX_EXTRA_STEPS = 100_000;
export const MAX_EXTRA_TOKENS = 1_000_000_000;
export const MAX_EXTRA_USD = 1_000_000;
/** The same limits keyed by field (the inbox's budget inputs). */
export const MAX_EXTRA = { steps: MAX_EXTRA_STEPS, tokens: MAX_EXTRA_TOKENS, usd: MAX_EXTRA_USD } as const;

/**
 * Largest budgets the task columns hold: Task.tokenBudget is a 32-bit integer, Task.costBudgetUsd a
 * Decimal(12, 6) (USD, to the micro-dollar). A raise that would pass them is refused.
 */
export const MAX_TOKEN_BUDGET = 2_147_483_647;
export const MAX_COST_BUDGET_USD = 999_999.999999;

/**
 * Whether an escalation is overdue — the one rule the inbox, the card, the API (escalation.list /
 * escalation.get / task.get) and the CLI all show ("Escalations reach a person"): it is
 * still `open` and either its `dueAt` has passed by `now` (the database clock on the server), or an
 * overdue reminder has already been recorded (`notifications` > 1: round 0 is the opening, each
 * later round fires only after a due time passed). The second clause keeps it overdue after a
 * re-escalation along the profile's chain pushed `dueAt` forward (server/db/escalation-notify.ts).
 * `notifications` absent counts as the opening only. Pure.
 */
export function isEscalationOverdue(e: { status: string; dueAt: Date | string; notifications?: number | null }, now: Date): boolean {
  if (e.status !== "open") return false;
  return new Date(e.dueAt).getTime() < now.getTime() || (e.notifications ?? 0) > 1;
}

/**
 * Whether an escalation waits on `me` (the nav's inbox badge, so an escalation
 * reaches a person): it is `open` and either claimed by `me.name`, or unclaimed and routed to a role `me`
 * holds or to `me` by name (`assigneeRole`, a role or `user:<display name>`, which moves along the
 * profile's chain when overdue). One claimed by someone else is theirs, not `me`'s. Pure.
 */
export function waitsOn(e: { status: string; assigneeRole: string; claimedBy: string | null }, me: { name: string; roles: readonly string[] }): boolean {
  if (e.status !== "open") return false;
  if (e.claimedBy) return e.claimedBy === me.name;
  const user = assigneeUser(e.assigneeRole);
  return user !== null ? sameUserName(user, me.name) : me.roles.includes(e.assigneeRole);
}

/**
 * How an escalation chain (profile `escalationChain`) and an escalation's `assigneeRole` name a
 * person rather than a role ("a chain of roles or named users"): `user:<display name>`.
 */
export const USER_ASSIGNEE_PREFIX = "user:";

/** The display name an assignee names (`user:Dana Reyes` → `Dana Reyes`), or null when it is a role. Pure. */
export function assigneeUser(assignee: string): string | null {
  return assignee.startsWith(USER_ASSIGNEE_PREFIX) ? assignee.slice(USER_ASSIGNEE_PREFIX.length).trim() : null;
}

/** Display names are unique case-insensitively (sign-up checks it), so they are compared so. Pure. */
export function sameUserName(a: string, b: string): boolean {
  return a.toLocaleLowerCase("en-US") === b.toLocaleLowerCase("en-US");
}

/** An assignee in words after "escalated to": `role handler`, or the person's name (`Dana Reyes`). Pure. */
export function assigneeWords(assignee: string): string {
  const user = assigneeUser(assignee);
  return user !== null ? user : `role ${assignee}`;
}

/** One suggestion of the inbox's assignee filter: the value it filters by and the words shown for it. */
export interface AssigneeOption {
  value: string;
  label: string;
}

/**
 * The inbox's assignee filter suggestions: people first (`me`, then the claimants and the people
 * escalations are routed to by name, `user:<display name>`), each by name — the value the filter
 * matches as claimant or named assignee (server/db/escalation-queries.ts listEscalations) — and
 * shown as "Ada (user)", never as the raw `user:Ada`; then the roles, shown as "handler (role)".
 * Names are deduplicated case-insensitively ({@link sameUserName}); each group sorted. Pure.
 */
export function assigneeFilterOptions({
  me,
  claimants,
  assignees,
}: {
  me: string;
  claimants: readonly (string | null)[];
  assignees: readonly string[];
}): AssigneeOption[] {
  const people: string[] = [];
  const addPerson = (name: string) => {
    if (name && !people.some((p) => sameUserName(p, name))) people.push(name);
  };
  const others: string[] = [];
  for (const c of claimants) if (c) others.push(c);
  const roles = new Set<string>();
  for (const a of assignees) {
    const user = assigneeUser(a);
    if (user !== null) others.push(user);
    else if (a) roles.add(a);
  }
  addPerson(me);
  for (const name of others.sort()) addPerson(name);
  return [...people.map((p) => ({ value: p, label: `${p} (user)` })), ...[...roles].sort().map((r) => ({ value: r, label: `${r} (role)` }))];
}

/**
 * The inbox badge's figures for `me` among `rows` (open escalations): how many wait on them
 * ({@link waitsOn}) and how many of those are overdue ({@link isEscalationOverdue} by `now`). Pure.
 */
export function inboxCounts(
  rows: readonly { status: string; assigneeRole: string; claimedBy: string | null; dueAt: Date | string; notifications?: number | null }[],
  me: { name: string; roles: readonly string[] },
  now: Date,
): { open: number; overdue: number } {
  const mine = rows.filter((e) => waitsOn(e, me));
  return { open: mine.length, overdue: mine.filter((e) => isEscalationOverdue(e, now)).length };
}
