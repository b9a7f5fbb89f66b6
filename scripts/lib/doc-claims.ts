import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** A claim of the docs that the tree or the code contradicts. */
export interface DocClaimProblem {
  /** The document, relative to the repository root. */
  doc: string;
  /** What is wrong, in one line. */
  problem: string;
}

/** The lines of the fenced block right under the Markdown heading `heading` (`## Layout`), or null when the document has no such block. */
export function fencedBlockUnder(text: string, heading: string): string[] | null {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.trim() === heading);
  if (at < 0) return null;
  const open = lines.findIndex((l, i) => i > at && l.startsWith("```"));
  if (open < 0 || lines.slice(at + 1, open).some((l) => l.startsWith("#"))) return null;
  const close = lines.findIndex((l, i) => i > open && l.startsWith("```"));
  return close < 0 ? null : lines.slice(open + 1, close);
}

/** Folders whose sub-folders the Layout block must each name (one level down). */
const LAYOUT_PARENTS = ["app", "components", "lib", "server"];
/** Top-level folders that are not the project's own (build output, data, tools' caches). */
const NOT_LAYOUT = /^(node_modules|\.next|\.data|\.git|test-results|playwright-report|\..*cache.*)$/;

/**
 * Checks the README's "## Layout" block against the tree: every path it names (the paths in the
 * block's first column and any path-like word `a/b/` on a line) exists, and every top-level folder
 * and every folder directly under `app/`, `components/`, `lib/` and `server/` is named. So a folder
 * added or removed without the map changing fails `npm run docs:check`.
 *
 * @param root the repository root
 * @param doc the document holding the block, relative to root (the README)
 * @returns one problem per missing or unnamed folder; empty when the block matches the tree
 */
export function layoutProblems(root: string, doc = "README.md"): DocClaimProblem[] {
  const block = fencedBlockUnder(readFileSync(join(root, doc), "utf8"), "## Layout");
  if (!block) return [{ doc, problem: 'no fenced block under "## Layout"' }];
  const named = new Set<string>();
  for (const line of block) {
    for (const m of line.matchAll(/(?:^|\s)(\.?[a-z][\w.-]*\/(?:[\w.[\]-]+\/)*)(?=\s|$)/g)) {
      // `lib/contracts/` names lib/ too: a nested path maps its parents.
      const parts = m[1]!.replace(/\/$/, "").split("/");
      parts.forEach((_, i) => named.add(parts.slice(0, i + 1).join("/")));
    }
  }
  const problems: DocClaimProblem[] = [];
  for (const path of [...named].sort()) {
    if (!existsSync(join(root, path))) problems.push({ doc, problem: `Layout names ${path}/, which does not exist` });
  }
  const folders = (dir: string) =>
    readdirSync(join(root, dir)).filter((n) => !NOT_LAYOUT.test(n) && statSync(join(root, dir, n)).isDirectory() && trackedIn(root, join(dir, n)));
  const expected = [...folders("."), ...LAYOUT_PARENTS.filter((p) => existsSync(join(root, p))).flatMap((p) => folders(p).map((n) => `${p}/${n}`))];
  for (const folder of expected.sort()) {
    if (!named.has(folder)) problems.push({ doc, problem: `Layout does not name ${folder}/` });
  }
  return problems;
}

/** Whether a folder holds at least one file other than generated output (a folder with only ignored files is not part of the layout). */
function trackedIn(root: string, dir: string): boolean {
  if (/(^|\/)(generated|node_modules)$/.test(dir)) return false;
  const stack = [join(root, dir)];
  while (stack.length > 0) {
    const d = stack.pop()!;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isFile()) return true;
      if (e.isDirectory() && !NOT_LAYOUT.test(e.name)) stack.push(join(d, e.name));
    }
  }
  return false;
}

/** A variable name in backticks in a table's first column: `PORT`, `OTEL_EXPORTER_OTLP_ENDPOINT` (not a pattern such as `LONGHAUL_WEBHOOK_URL_<ROLE>`). */
const VARIABLE = /^[A-Z][A-Z0-9_]*$/;

/**
 * Checks the "## Environment" table of `doc` against the env schema's keys: every variable the
 * schema (server/env.ts `envSchema`) validates is in the table, and every variable the table names
 * is either in the schema or in `readElsewhere` (variables read by another process's own schema, a
 * script or a library, e.g. the executor's `EXECUTOR_SDK_URL`), whose named file must mention it —
 * so a variable no code reads any more cannot stay documented.
 *
 * @param root the repository root
 * @param schemaKeys the env schema's keys
 * @param readElsewhere documented variables deliberately outside the schema → the file that reads them
 * @param doc the document holding the table, relative to root
 */
export function envTableProblems(
  root: string,
  schemaKeys: readonly string[],
  readElsewhere: Readonly<Record<string, string>>,
  doc = "docs/OPERATING.md",
): DocClaimProblem[] {
  const lines = readFileSync(join(root, doc), "utf8").split("\n");
  const at = lines.findIndex((l) => l.trim() === "## Environment");
  if (at < 0) return [{ doc, problem: 'no "## Environment" section' }];
  const documented = new Set<string>();
  for (const line of lines.slice(at + 1)) {
    if (line.startsWith("## ")) break;
    if (!line.startsWith("|")) continue;
    const first = line.split("|")[1] ?? "";
    for (const m of first.matchAll(/`([^`]+)`/g)) if (VARIABLE.test(m[1]!)) documented.add(m[1]!);
  }
  const problems: DocClaimProblem[] = [];
  for (const key of schemaKeys) {
    if (!documented.has(key)) problems.push({ doc, problem: `the environment table does not list ${key} (server/env.ts validates it)` });
  }
  for (const name of [...documented].sort()) {
    if (schemaKeys.includes(name)) continue;
    const reader = readElsewhere[name];
    if (!reader) problems.push({ doc, problem: `the environment table lists ${name}, which server/env.ts does not read` });
    else if (!existsSync(join(root, reader)) || !readFileSync(join(root, reader), "utf8").includes(name))
      problems.push({ doc, problem: `the environment table lists ${name} as read by ${reader}, which does not mention it` });
  }
  return problems;
}
