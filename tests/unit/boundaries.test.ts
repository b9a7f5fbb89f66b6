import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// Layer boundaries that are about imports (domain imports no framework, routers no Prisma, UI imports
// server/ only as types, the executor nothing from the app, lib/contracts nothing at all, no cycles)
// are checked by dependency-cruiser: .dependency-cruiser.cjs, `npm run boundaries`, a stage of
// `npm test`. Reading process.env outside server/env.ts is refused by ESLint (eslint.config.js,
// no-restricted-properties). This file checks what an import graph cannot see.
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

describe("boundaries an import graph cannot see", () => {
  it("tRPC procedures make no Prisma calls (ctx.prisma is handed to a db function)", () => {
    const offenders = files("server/api/routers").flatMap((f) => hits(f, /ctx\.prisma\.(\w+)\.|ctx\.prisma\.\$/));
    expect(offenders).toEqual([]);
  });

  it("next.config.ts reads no variable itself and validates the environment through server/env.ts", () => {
    const text = readFileSync(join(root, "next.config.ts"), "utf8");
    expect(hits("next.config.ts", /process\.env\b/)).toEqual([]);
    expect(text).toMatch(/import \{ parseEnv \} from "\.\/server\/env\.ts";/);
    expect(text).toMatch(/^parseEnv\(\);$/m);
  });
});
