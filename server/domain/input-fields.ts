import { z } from "zod";

/**
 * Input building blocks shared by the tRPC routers and the domain's input schemas, so every id and every free text is checked the
 * same way, with a message naming the field and the limit, so
 * the caller can fix the input without reading code.
 */

/** Characters an id may hold: Longhaul's ids (`task_01…`, cuids, step ids like `tool-3-1`, `human-escalate-3`). */
const ID_CHARS = /^[A-Za-z0-9_:.-]+$/;

/**
 * An id field: surrounding whitespace ignored, then 1–`max` characters of letters, digits and
 * `_ : . -`. A blank id is "must not be blank" (a 400), never a lookup that finds nothing.
 */
export function idField(field: string, max = 100) {
  return z
    .string(`${field}: required (a string id)`)
    .trim()
    .min(1, { error: `${field}: must not be blank`, abort: true })
    .max(max, { error: `${field}: at most ${max} characters`, abort: true })
    .regex(ID_CHARS, `${field}: must be an id (letters, digits and _ : . -)`);
}

/** Unpaired UTF-16 surrogates: not valid Unicode, refused by PostgreSQL's UTF-8 text. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A free-text field of at most `max` characters (after trimming), refused when it holds NUL or an unpaired surrogate. */
export function textField(field: string, max: number) {
  return z
    .string(`${field}: must be text`)
    .trim()
    .max(max, `${field}: at most ${max} characters`)
    .refine((v) => !v.includes("\0"), `${field}: must not contain NUL characters (\\u0000): PostgreSQL cannot store them`)
    .refine((v) => !LONE_SURROGATE.test(v), `${field}: must not contain unpaired UTF-16 surrogates (not valid Unicode)`);
}

/**
 * The input object of a procedure: an object with `shape`, whose absence (`undefined`, `null`, an
 * array, a string…) is refused in our words ("input: must be an object with taskId") rather than
 * zod's "expected object, received null".
 */
export function inputObject<S extends z.ZodRawShape>(shape: S) {
  const names = Object.keys(shape);
  return z.object(shape, `input: must be an object${names.length ? ` with ${names.join(", ")}` : ""}`);
}

/** Longest idempotency key accepted (a UUID is 36 characters; room for a caller's own scheme). */
export const IDEMPOTENCY_KEY_MAX = 100;

/**
 * An idempotency key a caller sends with a mutation (the browser makes one when a dialog or form
 * opens; the CLI and API callers may send their own): 8–100 characters of letters, digits and
 * `_ : . -` (a UUID fits). The same key from the same actor for the same action is one action.
 */
export function idempotencyKeyField(field = "idempotencyKey") {
  return z
    .string(`${field}: must be text`)
    .trim()
    .min(8, `${field}: at least 8 characters`)
    .max(IDEMPOTENCY_KEY_MAX, `${field}: at most ${IDEMPOTENCY_KEY_MAX} characters`)
    .regex(ID_CHARS, `${field}: letters, digits and _ : . - only (a UUID fits)`);
}
