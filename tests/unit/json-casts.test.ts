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
