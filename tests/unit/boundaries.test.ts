import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// Layer boundaries that are about imports (domain imports no framework, routers no Prisma, UI imports
// server/ only as types, the executor nothing from the app, lib/contracts nothing at all, no cycles)
// are checked by dependency-cruiser: .dependency-cruiser.cjs, `npm run boundaries`, a stage of
// `npm test`. This file checks what an import graph cannot see.
const root = resolve(import.meta.dirname, "../..");

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const p = join(dir, name);
    if (statSync(join(root, p)).isDirectory()) out.push(...files(p));
    else if (/\.(ts|tsx)$/.test(name)) out.push(p);
  }
  return out;
}

/** Lines of `file` (1-based) matching `pattern`, as `file:line: text`. */
function hits(file: string, pattern: RegExp): string[] {
  return readFileSync(join(root, file), "utf8")
    .split("\n")
    .flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
}

/**
 * Files that still read process.env themselves, each with why: the executor is its own process with
 * its own validated schema (server/executor/main.ts); the provider takes its env as a parameter for
 * tests (its default is process.env) and belongs to the agent-loop rewrite.
 */
// app/tasks/[id]/page.tsx: a page may import nothing from server/, and it asks its own API on PORT (Next's own variable).
const OWN_ENV = [
  /^server\/executor\//,
  /^server\/llm\/provider\.ts$/,
  /^server\/env\.ts$/,
  /^server\/env-source\.ts$/,
  /^app\/tasks\/\[id\]\/page\.tsx$/,
  /^server\/db\/generated\//,
];

describe("boundaries an import graph cannot see", () => {
  it("tRPC procedures make no Prisma calls (ctx.prisma is handed to a db function)", () => {
    const offenders = files("server/api/routers").flatMap((f) => hits(f, /ctx\.prisma\.(\w+)\.|ctx\.prisma\.\$/));
    expect(offenders).toEqual([]);
  });

  it("server code reads configuration only through server/env.ts", () => {
    const server = [...files("server"), ...files("app")].filter((f) => !OWN_ENV.some((r) => r.test(f)));
    const offenders = server.flatMap((f) => hits(f, /process\.env\b/));
    expect(offenders).toEqual([]);
  });

  it("next.config.ts reads no variable itself and validates the environment through server/env.ts", () => {
    const text = readFileSync(join(root, "next.config.ts"), "utf8");
    expect(hits("next.config.ts", /process\.env\b/)).toEqual([]);
    expect(text).toMatch(/import \{ parseEnv \} from "\.\/server\/env\.ts";/);
    expect(text).toMatch(/^parseEnv\(\);$/m);
  });
});
