import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// The layering rules of ARCHITECTURE.md ("Layout") and STYLE.md ("Boundaries written down and checked").
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

/** Import specifiers of a file (static imports and re-exports, `import type` excluded when asked). */
function imports(file: string, { includeTypeOnly }: { includeTypeOnly: boolean }): string[] {
  const text = readFileSync(join(root, file), "utf8");
  const found: string[] = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^;]*?from\s+["']([^"']+)["']/gm)) {
    if (m[2] && !includeTypeOnly) continue;
    found.push(m[3]!);
  }
  for (const m of text.matchAll(/import\(\s*["']([^"']+)["']\s*\)/g)) found.push(m[1]!);
  return found;
}

function resolved(file: string, spec: string): string {
  if (spec.startsWith("@/")) return spec.slice(2);
  if (spec.startsWith(".")) return relative(root, resolve(root, file, "..", spec));
  return spec;
}

describe("layer boundaries", () => {
  it("server/domain imports no framework (next, @prisma/client, inngest, openai) and no database code", () => {
    const offenders = files("server/domain").flatMap((f) =>
      imports(f, { includeTypeOnly: false })
        .filter((s) => /^(next|@prisma\/|inngest|openai|pg)(\/|$)/.test(s) || resolved(f, s).startsWith("server/db"))
        .map((s) => `${f} → ${s}`),
    );
    expect(offenders).toEqual([]);
  });

  it("server/executor imports nothing from app/, components/ or Longhaul's product code", () => {
    const offenders = files("server/executor").flatMap((f) =>
      imports(f, { includeTypeOnly: true })
        .map((s) => resolved(f, s))
        .filter((p) => /^(app|components|server\/(domain|inngest|tools|llm|api))\//.test(p))
        .map((p) => `${f} → ${p}`),
    );
    expect(offenders).toEqual([]);
  });

  it("components and pages import server/ only as types", () => {
    const ui = [...files("components"), ...files("app").filter((f) => !f.startsWith("app/api/"))];
    const offenders = ui.flatMap((f) =>
      imports(f, { includeTypeOnly: false })
        .map((s) => resolved(f, s))
        .filter((p) => p.startsWith("server/"))
        .map((p) => `${f} → ${p}`),
    );
    expect(offenders).toEqual([]);
  });
});
