/**
 * References to facts a compacted checkpoint set aside (a checkpoint too big for the
 * window). `compactCheckpointState` (checkpoint.ts) replaces a large working-set value with
 * `{ $ref, description }`; the whole value stays in the row the `$ref` names. The agent reads it back
 * with the read-only tool `read_reference` (server/tools/read-reference.ts), whose core is
 * {@link readFactReference} here: pure over a port that loads the row. Pure module.
 */

/** What a large working-set value becomes in a compacted checkpoint: where it is, and what it was. */
export interface FactReference {
  $ref: string;
  description: string;
}

/** Where a `$ref` points: a checkpoint's working set, or the facts a task was launched with. */
export type FactLocation = { kind: "checkpoint"; checkpointId: string; key: string } | { kind: "task_input"; taskId: string; key: string };

/**
 * Most characters of JSON one `read_reference` call returns. About 2,000 tokens: a read fits beside
 * the compacted context (which aims at half the saturation limit) without saturating it again; a
 * larger value is read in pages (`offset`), and a cut is said in the output, never silent.
 */
export const READ_REFERENCE_MAX_CHARS = 8_000;

/** Most references followed from one to the next (a compacted checkpoint compacted again points at the first one). */
export const MAX_REFERENCE_HOPS = 8;

/** True for a `{ $ref: string, description: string }` object (and nothing else in it). */
export function isFactReference(value: unknown): value is FactReference {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return typeof v.$ref === "string" && typeof v.description === "string" && Object.keys(v).length === 2;
}

/** The working-set keys whose value is a reference, in key order. */
export function referencedKeys(workingSet: Record<string, unknown>): string[] {
  return Object.keys(workingSet)
    .filter((k) => isFactReference(workingSet[k]))
    .sort();
}

/** The `$ref` text for a location: `checkpoint <id>, workingSet."<key>"` / `task <id>, input.facts."<key>"` (key as JSON). */
export function formatFactRef(location: FactLocation): string {
  return location.kind === "checkpoint"
    ? `checkpoint ${location.checkpointId}, workingSet.${JSON.stringify(location.key)}`
    : `task ${location.taskId}, input.facts.${JSON.stringify(location.key)}`;
}

/** The location a `$ref` text names (the inverse of {@link formatFactRef}); null when it names none. */
export function parseFactRef(ref: string): FactLocation | null {
  const m = /^(checkpoint|task) ([A-Za-z0-9_-]+), (workingSet|input\.facts)\.(".*")$/s.exec(ref.trim());
  if (!m) return null;
  let key: unknown;
  try {
    key = JSON.parse(m[4]!);
  } catch {
    return null;
  }
  if (typeof key !== "string") return null;
  if (m[1] === "checkpoint" && m[3] === "workingSet") return { kind: "checkpoint", checkpointId: m[2]!, key };
  if (m[1] === "task" && m[3] === "input.facts") return { kind: "task_input", taskId: m[2]!, key };
  return null;
}

/** Loads the working set a location's row holds, or null when no such row belongs to `taskId`. */
export interface FactReferencePorts {
  /** A checkpoint's working set, only when the checkpoint belongs to `taskId`. */
  checkpointWorkingSet(input: { taskId: string; checkpointId: string }): Promise<Record<string, unknown> | null>;
  /** The facts the task `taskId` was launched with (its input.facts), or null for another task. */
  taskInputFacts(input: { taskId: string }): Promise<Record<string, unknown> | null>;
}

/** The output of `read_reference` (docs/CONTRACTS.md "Tools"). */
export type ReadReferenceOutput = {
  ref: string;
  key: string;
  /** Characters of the whole value's JSON text. */
  totalChars: number;
  offset: number;
  /** Characters returned in this page. */
  returnedChars: number;
  truncated: boolean;
  /** Where the next page starts; null on the last page. */
  nextOffset: number | null;
} & ({ value: unknown } | { text: string; note: string });

/** Why a reference could not be read (the tool turns these into ToolError codes). */
export class FactReferenceError extends Error {
  readonly code: "invalid_arguments" | "not_found";
  constructor(code: "invalid_arguments" | "not_found", message: string) {
    super(message);
    this.name = "FactReferenceError";
    this.code = code;
  }
}

/**
 * Reads back the value a `$ref` names, for task `taskId` only (a reference into another task's rows
 * is not found). Follows a reference that points at another reference (up to {@link MAX_REFERENCE_HOPS}).
 * A value whose JSON fits `limit` characters (default and maximum {@link READ_REFERENCE_MAX_CHARS})
 * from `offset` 0 comes back whole as `value`; otherwise the page `[offset, offset + limit)` of its
 * JSON text comes back as `text`, with `truncated: true`, `nextOffset` and a `note` that says so.
 * @throws FactReferenceError `invalid_arguments` (not a reference this run can read, offset past the
 *   end) or `not_found` (no such row for this task, or no such key in it).
 */
export async function readFactReference({
  ports,
  taskId,
  ref,
  offset = 0,
  limit = READ_REFERENCE_MAX_CHARS,
}: {
  ports: FactReferencePorts;
  taskId: string;
  ref: string;
  offset?: number;
  limit?: number;
}): Promise<ReadReferenceOutput> {
  let location = parseFactRef(ref);
  if (!location)
    throw new FactReferenceError(
      "invalid_arguments",
      `ref: not a reference; pass the "$ref" text of a working-set fact, e.g. checkpoint <id>, workingSet."<key>" (got ${JSON.stringify(ref.slice(0, 120))})`,
    );
  const cap = Math.min(Math.max(1, Math.floor(limit)), READ_REFERENCE_MAX_CHARS);
  let value: unknown;
  for (let hop = 0; ; hop++) {
    const set =
      location.kind === "checkpoint"
        ? await ports.checkpointWorkingSet({ taskId, checkpointId: location.checkpointId })
        : location.kind === "task_input" && location.taskId === taskId
          ? await ports.taskInputFacts({ taskId })
          : null;
    if (!set) throw new FactReferenceError("not_found", `ref: ${location.kind === "checkpoint" ? "checkpoint" : "task"} not found for this task (${ref})`);
    if (!Object.hasOwn(set, location.key))
      throw new FactReferenceError("not_found", `ref: no fact ${JSON.stringify(location.key)} in ${formatFactRef(location)}`);
    value = set[location.key];
    if (!isFactReference(value)) break;
    const next = parseFactRef(value.$ref);
    if (!next || hop + 1 >= MAX_REFERENCE_HOPS)
      throw new FactReferenceError("not_found", `ref: ${ref} leads to a reference that cannot be followed (${value.$ref})`);
    location = next;
  }
  const key = location.key;
  const text = JSON.stringify(value) ?? "null";
  if (!Number.isInteger(offset) || offset < 0 || (offset > 0 && offset >= text.length))
    throw new FactReferenceError("invalid_arguments", `offset: must be a whole number from 0 to ${Math.max(0, text.length - 1)}, got ${offset}`);
  if (offset === 0 && text.length <= cap)
    return { ref, key, totalChars: text.length, offset: 0, returnedChars: text.length, truncated: false, nextOffset: null, value };
  let end = Math.min(text.length, offset + cap);
  // Never cut between the two halves of a surrogate pair (an unpaired half cannot be stored or sent).
  if (end < text.length && end > offset + 1 && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end--;
  const page = text.slice(offset, end);
  const last = end >= text.length;
  return {
    ref,
    key,
    totalChars: text.length,
    offset,
    returnedChars: page.length,
    truncated: !last || offset > 0,
    nextOffset: last ? null : end,
    text: page,
    note: last
      ? `The last part of the value's JSON text: characters ${offset}–${end} of ${text.length}.`
      : `Cut: characters ${offset}–${end} of ${text.length} of the value's JSON text. Call read_reference again with offset ${end} for more (at most ${READ_REFERENCE_MAX_CHARS} characters per call).`,
  };
}
