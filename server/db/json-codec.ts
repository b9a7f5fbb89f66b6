import { z } from "zod";
import { Prisma } from "./client.ts";

/**
 * A stored JSON value that does not have its column's shape, named by column and row
 * (`Checkpoint.completedSteps of row cp_01…: [2].summary: Invalid input: expected string`), so a
 * bad row is found from the error instead of crashing later on a field of the wrong type.
 */
export class JsonColumnError extends Error {
  override readonly name = "JsonColumnError";
  constructor(
    /** `Model.field`, as the Prisma schema names it. */
    readonly column: string,
    /** The row's id (or key), or null when the reader did not give one. */
    readonly row: string | null,
    /** What did not parse: each zod issue as `path: message`, `; `-separated. */
    readonly detail: string,
  ) {
    super(`${column}${row === null ? "" : ` of row ${row}`}: ${detail}`);
  }
}

/**
 * One codec per JSON column. `encode` takes only the column's type and gives Prisma's JSON input:
 * the value's JSON form (what `JSON.stringify` keeps — which is also all that Prisma sends and
 * PostgreSQL stores — so writing through it changes nothing stored), checked against the column's
 * schema. `decode` reads the column back with the same schema: a strict codec throws a
 * {@link JsonColumnError} naming the column and the row; a lenient one (`…OrNull`) returns null for a
 * value that does not parse, as its readers did before. No write site casts a value to `never` or
 * to Prisma's JSON types.
 */
export interface JsonCodec<T, R = T> {
  /** `Model.field`. */
  readonly column: string;
  /**
   * The JSON form of `value` (a top-level JSON `null` as `Prisma.JsonNull`, the form Prisma asks
   * for). @throws JsonColumnError when it lacks the column's shape (a bug in the writer).
   */
  encode(value: T): JsonInput;
  /** {@link encode}, or undefined (the column is left as it is, or NULL on create) for `null` and `undefined`. */
  encodeOptional(value: T | null | undefined): JsonInput | undefined;
  /**
   * {@link encode} for a nullable column: `null` and `undefined` become SQL NULL (`Prisma.DbNull`),
   * the column's "absent", never the JSON literal `null`.
   */
  encodeNullable(value: T | null | undefined): JsonInput | typeof Prisma.DbNull;
  /** The stored value as `R`. `row` names the row in the error. @throws JsonColumnError on a value of another shape (strict codecs). */
  decode(json: unknown, row?: string): R;
}

/** What a JSON column is written with: Prisma's JSON input, or `Prisma.JsonNull` for the JSON literal `null`. */
export type JsonInput = Prisma.InputJsonValue | typeof Prisma.JsonNull;

/** The JSON form of `value` (`JSON.stringify` then `JSON.parse`): plain objects, arrays, strings, finite numbers, booleans and null. */
function toJsonInput(value: unknown): Prisma.InputJsonValue {
  // JSON.parse returns `any`: the one place a value becomes Prisma's JSON input, and it is JSON by construction.
  return JSON.parse(JSON.stringify(value) ?? "null");
}

/** A zod error as `path: message` lines joined by `; ` (the path in the `[0].field` form). */
function issuesOf(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const path = i.path
        .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
        .join("")
        .replace(/^\./, "");
      return path ? `${path}: ${i.message}` : i.message;
    })
    .join("; ");
}

/**
 * The codec of the JSON column `column` (`Model.field`) whose stored values `read` parses: a zod
 * schema (input `T`, what is written; output `R`, what is read), or a function that returns `R` or
 * throws (a ZodError or any Error: its message becomes the detail). With `lenient`, a stored value
 * that does not parse reads as null instead of throwing (for columns whose readers treat an
 * unreadable value as absent), and writes are not checked.
 */
export function jsonColumnCodec<T, R = T>(column: string, read: z.ZodType<R> | ((json: unknown) => R), options?: { lenient?: false }): JsonCodec<T, R>;
export function jsonColumnCodec<T, R = T>(column: string, read: z.ZodType<R> | ((json: unknown) => R), options: { lenient: true }): JsonCodec<T, R | null>;
export function jsonColumnCodec<T, R = T>(
  column: string,
  read: z.ZodType<R> | ((json: unknown) => R),
  options?: { lenient?: boolean },
): JsonCodec<T, R | null> {
  const lenient = options?.lenient === true;
  const parse = (json: unknown, row: string | null): R | null => {
    if (typeof read !== "function") {
      const parsed = read.safeParse(json);
      if (parsed.success) return parsed.data;
      if (lenient) return null;
      throw new JsonColumnError(column, row, issuesOf(parsed.error));
    }
    try {
      return read(json);
    } catch (error) {
      if (lenient) return null;
      throw new JsonColumnError(column, row, error instanceof z.ZodError ? issuesOf(error) : error instanceof Error ? error.message : String(error));
    }
  };
  const encode = (value: T): JsonInput => {
    const json = toJsonInput(value);
    if (!lenient) parse(json, null);
    return json === null ? Prisma.JsonNull : json;
  };
  return {
    column,
    encode,
    encodeOptional: (value) => (value === null || value === undefined ? undefined : encode(value)),
    encodeNullable: (value) => (value === null || value === undefined ? Prisma.DbNull : encode(value)),
    decode: (json, row) => parse(json, row ?? null),
  };
}

/**
 * Any JSON value, for the columns that hold what a tool or a model gave (arguments, outputs,
 * results, facts): a value read from a JSON column is JSON by construction, so only an absent one
 * (undefined: the column was not selected) is refused.
 */
export const anyJson = z.custom<Prisma.JsonValue>((v) => v !== undefined, "a JSON value (the column was not read)");

/** What a JSON value is, in the words of zod's messages: `array`, `null`, `string`, `number`, `boolean`. */
const jsonKind = (v: unknown): string => (Array.isArray(v) ? "array" : v === null ? "null" : typeof v);

/**
 * Whether `value` is a JSON object: an object, neither null nor an array. For a parsed JSON value (a
 * column read, a wire payload) that is what `Record<string, unknown>` claims, so the guard narrows to
 * it without a cast; a class instance (a Date) passes too, so it is no check of plainness.
 */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A JSON object (string keys, any JSON values). Checked in constant time and returned as it is: a
 * parsed JSON object's keys are strings and its values JSON by construction, so walking and copying
 * it (as `z.record` does) would only cost — 2.6 ms for a working set of 2,000 facts, per row of the
 * checkpoint list (scripts/bench-json-decode.ts).
 */
export const jsonObject = z.custom<Record<string, unknown>>(isJsonObject, {
  error: (issue) => `Invalid input: expected object, received ${jsonKind(issue.input)}`,
});
