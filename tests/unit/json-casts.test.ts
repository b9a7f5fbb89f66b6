import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * No JSON column is written through a cast: every write goes through its codec (server/db/json-columns.ts,
 * server/executor/json-columns.ts), whose `encode` checks the value and yields Prisma's JSON input
 * without one. A cast to `never` or to Prisma's JSON types (directly or through `unknown`, or through
 * the executor's `Json` alias of `Prisma.InputJsonValue`) hides a value of the wrong shape from the
 * type checker and from the column's schema; this test fails on a new one.
 */
const FORBIDDEN =
  /\bas\s+(?:unknown\s+as\s+)?(?:never\b|Prisma\.(?:InputJsonValue|InputJsonObject|InputJsonArray|JsonValue|JsonObject|JsonArray)\b|Json\b(?!\w))/;

/** Each `file:line: text` of `source` that casts to a forbidden type (comments skipped). */
export function jsonCasts(file: string, source: string): string[] {
  return source.split("\n").flatMap((line, i) => {
    const code = line.replace(/\/\/.*$/, "");
    if (/^\s*(\*|\/\*)/.test(code)) return [];
    return FORBIDDEN.test(code) ? [`${file}:${i + 1}: ${line.trim()}`] : [];
  });
}

const root = join(import.meta.dirname, "../..");

/** The TypeScript files under `dir`, generated code (server/db/generated) left out. */
function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && /\.tsx?$/.test(d.name))
    .map((d) => relative(root, join(d.parentPath, d.name)))
    .filter((f) => !f.startsWith("server/db/generated/"));
}

describe("JSON columns without casts", () => {
  it("finds a planted cast of each kind", () => {
    const planted = [
      "data: { workingSet: cp.workingSet as Prisma.InputJsonValue },",
      "details: details as never,",
      "config: fn as unknown as Prisma.InputJsonValue,",
      "raw: event as unknown as Json,",
      "data: event.data as Json,",
      "const v = row.value as Prisma.JsonObject;",
    ];
    for (const line of planted) expect(jsonCasts("x.ts", line), line).toHaveLength(1);
    // Not casts to a JSON type: a type named like one, a comment, prose.
    expect(jsonCasts("x.ts", "const x = y as JsonObject;\n// was cast as never before\n * the step was never run")).toEqual([]);
  });

  it("server/ and scripts/ have none", () => {
    const found = [...sources("server"), ...sources("scripts")].flatMap((f) => jsonCasts(f, readFileSync(join(root, f), "utf8")));
    expect(found, found.join("\n")).toEqual([]);
  });
});

/** The JSON columns' field names, from the Prisma schema (`name Json` / `name Json?`). */
function jsonColumnFields(): string[] {
  const dir = join(root, "prisma/schema");
  const fields = new Set<string>();
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".prisma")))
    for (const m of readFileSync(join(dir, f), "utf8").matchAll(/^\s+(\w+)\s+Json\??(?=\s|$)/gm)) fields.add(m[1]!);
  return [...fields].sort();
}

/**
 * Each `file:line: text` of `source` that casts a JSON column's value on read (`row.workingSet as
 * WorkingSet`, `(cp.workingSet ?? {}) as …`, `(task.input as {facts?})`) instead of decoding it with
 * the column's codec, whose schema checks the shape and names the column and row on a bad value.
 * A property named like a JSON column (`fields`) followed by ` as ` (not `as const`); comments skipped.
 * A value that only shares a column's name (a wire payload, tRPC's data, an MCP message's result) is
 * not cast either: it is parsed with a schema, or narrowed with `isJsonObject` (server/db/json-codec.ts).
 */
export function jsonReadCasts(file: string, source: string, fields: readonly string[]): string[] {
  const cast = new RegExp(String.raw`\.(?:${fields.join("|")})\b(?:\s*\?\?\s*[^()]*?)?\)*\s+as\s+(?!const\b)`);
  return source.split("\n").flatMap((line, i) => {
    const code = line.replace(/\/\/.*$/, "");
    if (/^\s*(\*|\/\*)/.test(code)) return [];
    return cast.test(code) ? [`${file}:${i + 1}: ${line.trim()}`] : [];
  });
}

/** Where rows are read: the layers that query the database (domain and the scripted model get values, not rows). */
const ROW_READERS = ["server/api", "server/db", "server/executor", "server/tools", "server/agent", "server/inngest"];

describe("JSON columns read without casts", () => {
  const fields = jsonColumnFields();

  it("knows the JSON columns and finds a planted read cast of each form", () => {
    expect(fields).toEqual(expect.arrayContaining(["workingSet", "completedSteps", "budgetsUsed", "sideEffects", "input", "factEdits", "arguments"]));
    const planted = [
      "const before = (from?.workingSet ?? {}) as WorkingSet;",
      "budgetsUsed: r.budgetsUsed as { steps: number; tokens: number; costUsd: number },",
      "const facts = (task.input as { facts?: unknown } | null)?.facts;",
      "const edited = new Set(Object.keys((esc?.factEdits ?? {}) as Record<string, unknown>));",
      "workingSet: checkpoint.workingSet as WorkingSet,",
      "const list = cp.sideEffects as unknown as { idempotencyKey?: unknown }[];",
    ];
    for (const line of planted) expect(jsonReadCasts("x.ts", line, fields), line).toHaveLength(1);
    // Not read casts: `as const`, a decode, a comment, a field that is not a JSON column.
    expect(
      jsonReadCasts(
        "x.ts",
        "const s = { input: true } as const;\nconst w = checkpointWorkingSetJson.decode(cp.workingSet, cp.id);\n// cp.workingSet as WorkingSet\nconst g = task.goal as string;",
        fields,
      ),
    ).toEqual([]);
  });

  it("the row readers cast no JSON column", () => {
    const found = ROW_READERS.flatMap(sources).flatMap((f) => jsonReadCasts(f, readFileSync(join(root, f), "utf8"), fields));
    expect(found, `decode these with the column's codec (server/db/json-columns.ts, server/executor/json-columns.ts):\n${found.join("\n")}`).toEqual([]);
  });
});
