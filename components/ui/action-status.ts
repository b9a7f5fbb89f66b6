/**
 * The outcome line of a page's actions, as plain data: what the last action said (an error in the
 * form's words, or what was done), which fields an error names, and when it stops standing. The
 * rules every form and button follows:
 * - a line belongs to one action; the next action started anywhere in the same scope (a page, an
 *   admin section) takes the place of every older line, so a result never sits under a stale error,
 *   nor a stale result under a new error;
 * - an error about the input stops standing once the person edits a field it names (or any field of
 *   the form, when it names none).
 * Pure, no React: the hook is components/ui/use-action-status.tsx.
 */
import { labelledMessage, type FieldLabels } from "./field-labels.ts";

/** One action's outcome: `error` (the refusal in the form's words) or `done` (what was done). `fields`: the API paths an error names. */
export interface ActionLine {
  kind: "error" | "done";
  text: string;
  fields: readonly string[];
}

/** The paths a server message names: "email: … ; roles.0: …" → ["email", "roles.0"] (split as labelledMessage splits). */
export function fieldsNamed(message: string): string[] {
  return message
    .split(/; (?=[\w.[\]]+: )|\n/)
    .map((part) => /^([\w.[\]]+): /.exec(part)?.[1])
    .filter((p): p is string => p !== undefined)
    .map((p) => p.replace(/\[(\d+)\]/g, ".$1"));
}

/** The error line of a refusal: the message in the form's words ({@link labelledMessage}) and the fields it names. */
export function errorLine(message: string, labels: FieldLabels = {}): ActionLine {
  return { kind: "error", text: labelledMessage(message, labels), fields: fieldsNamed(message) };
}

/** The line saying what was done. */
export function doneLine(text: string): ActionLine {
  return { kind: "done", text, fields: [] };
}

/**
 * True when editing `field` (an API path, e.g. "email" or "spec"; undefined = some field of the
 * form) takes `line` away: an error naming that field (or one of its parts: "spec" covers
 * "spec.transport.command"), or naming no field at all. A done line stays: it says what happened.
 */
export function clearedByEdit(line: ActionLine | null, field?: string): boolean {
  if (!line || line.kind !== "error") return false;
  if (field === undefined || line.fields.length === 0) return true;
  return line.fields.some((f) => f === field || f.startsWith(`${field}.`));
}

/**
 * The line to show of a hook that holds `line`, made at `ticket`, in a scope whose latest start is
 * `latest` (null: no scope, the hook is its own): the line while it is the scope's
 * newest, else nothing.
 */
export function visibleLine(line: ActionLine | null, ticket: number, latest: number | null): ActionLine | null {
  if (!line) return null;
  return latest === null || ticket === latest ? line : null;
}

/**
 * The ticket an action's outcome is shown under, given the action's pending start (`pending.started`,
 * the ticket its `start()` claimed; cleared here): an outcome takes no ticket of its own, so a slow
 * action's late result never hides the line of an action started after it (the newest *start* in
 * the scope wins). An outcome reported without a start claims a new ticket, as if started then.
 */
export function outcomeTicket(pending: { started: number | null }, claim: (() => number) | undefined): number {
  const ticket = pending.started ?? (claim ? claim() : 0);
  pending.started = null;
  return ticket;
}
