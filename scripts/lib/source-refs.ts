import { existsSync, globSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** A reference in the tree that a reader of the repository cannot follow. */
export interface UnresolvedRef {
  /** The file, relative to the repository root. */
  file: string;
  /** 1-based line number in the file. */
  line: number;
  /** What is wrong, in one line, naming the reference as written. */
  problem: string;
}

/** Folders of the project's own code and tests, and the files at the root (config) whose comments are read. */
const SOURCE_GLOBS = [
  "{app,components,lib,server,scripts,tests,bench,examples}/**/*.{ts,tsx,cjs,mjs,js,sql,prisma,yaml,yml}",
  "prisma/schema/*.prisma",
  "*.{ts,cjs,mjs,js}",
  ".dependency-cruiser.cjs",
];
/** Never read: dependencies, generated code, applied migrations (checksummed, so never edited), build output. */
const NOT_SOURCE = /(^|\/)(node_modules|\.next|\.data|\.git|test-results|playwright-report|generated|migrations)(\/|$)/;

/**
 * The code, test and schema files the reference check reads, relative to `root`: the project's own
 * folders (`app`, `components`, `lib`, `server`, `scripts`, `tests`, `bench`, `examples`) in TypeScript,
 * JavaScript, SQL, Prisma and YAML, the Prisma schema, and the config files at the root. Never
 * `node_modules`, generated code (`server/db/generated`) or applied migrations (`prisma/migrations`).
 */
export function sourceFiles(root: string): string[] {
  return [...new Set(globSync(SOURCE_GLOBS, { cwd: root, exclude: (p: string) => NOT_SOURCE.test(p) }))].sort();
}

/** The word "issue" (or "issues") followed by a number, with or without "#": a number in a tracker the repository does not hold. */
const ISSUE = /\bissues?\s+#?\d+/i;
/** A Markdown document's name or path (`STACK.md`, `docs/STACK.md`, `../../README.md`). */
const MD_REF = /(?<![\w/.-])((?:\.{1,2}\/|[\w-]+\/)*[\w-]+\.md)\b/g;
/**
 * Whether a `*.md` name is a citation a reader would follow: a document's name in capitals
 * (`README.md`, `STACK.md`), or a path from here (`./…`, `../…`) or from a
 * top-level folder of the tree (`docs/…`). A lower-case name outside those (`notes.md`,
 * `plans/roadmap.md`) is a file of an agent's workspace that the text talks about, not a citation.
 */
function isCitation(root: string, ref: string): boolean {
  const base = ref.slice(ref.lastIndexOf("/") + 1);
  if (/^[A-Z]/.test(base) || ref.startsWith("./") || ref.startsWith("../")) return true;
  const first = ref.split("/")[0]!;
  return ref.includes("/") && existsSync(join(root, first));
}

/** A path that climbs (`../../README.md`); resolved from the file to see whether it stays in the tree. */
const CLIMBING = /(?<![\w/.-])((?:\.\.\/)+[\w.*-]+(?:\/[\w.*-]+)*)/g;
/** An absolute path of one machine (a developer's home or work folder): it means nothing in another clone. */
const MACHINE_PATH = /(?<![\w.-])(\/(?:work|home|root|Users)\/[\w./*-]*)/g;
/** A URL: what it names is on the web, not in the tree. */
const URL = /\b[a-z][\w+.-]*:\/\/\S+/gi;
/** A test's title (`it("…")`, `describe('…')`, `test.skip(`…`)`): read like a comment. */
const TEST_TITLE = /\b(?:describe|it|test)(?:\.\w+)?\(\s*(["'`])((?:\\.|(?!\1).)*)\1/g;

/**
 * The prose of one line of a source file: its comment (a line comment, a block comment or its
 * continuation `*` lines; `--` in SQL, `#` in YAML) and the titles of tests, so a reference in a
 * string the program uses (a fixture's `notes.md`) is not taken for a citation. `inBlock` carries
 * an open block comment from line to line.
 */
function proseOf(line: string, ext: string, state: { inBlock: boolean }): string {
  const trimmed = line.trimStart();
  if (ext === "sql") return trimmed.startsWith("--") ? line : (/\s--\s(.*)$/.exec(line)?.[1] ?? "");
  if (ext === "yaml" || ext === "yml") return trimmed.startsWith("#") ? line : (/\s#\s(.*)$/.exec(line)?.[1] ?? "");
  let prose = "";
  let rest = line;
  if (state.inBlock) {
    const end = rest.indexOf("*/");
    if (end < 0) return line;
    prose += rest.slice(0, end) + " ";
    rest = rest.slice(end + 2);
    state.inBlock = false;
  }
  const open = rest.indexOf("/*");
  if (open >= 0 && !/["'`]/.test(rest.slice(0, open))) {
    const end = rest.indexOf("*/", open + 2);
    prose += rest.slice(open, end < 0 ? undefined : end) + " ";
    if (end < 0) state.inBlock = true;
    rest = rest.slice(0, open) + (end < 0 ? "" : rest.slice(end + 2));
  }
  const lineComment = /(?:^|[\s;,)}\]])\/\/(.*)$/.exec(rest);
  if (lineComment) prose += lineComment[1] + " ";
  for (const m of rest.matchAll(TEST_TITLE)) prose += m[2] + " ";
  return prose;
}

/** The sections a document has: its headings' numbers (`2.13`, `7`) and numbered list items per section (`7.1 item 14`, `pitfall 7`). */
interface Sections {
  numbers: Set<string>;
  items: Map<string, Set<string>>;
  /** The headings' texts, lower case, without their numbers: where a quoted section name is looked up. */
  headings: string[];
}

const fold = (text: string) => text.toLowerCase().replace(/\s+/g, " ");

function sectionsOf(text: string): Sections {
  const numbers = new Set<string>();
  const items = new Map<string, Set<string>>();
  const headings: string[] = [];
  let current = "";
  let fenced = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    if (fenced) continue;
    if (/^#{1,6}\s/.test(line)) headings.push(fold(line.replace(/^#+\s+(?:§\s*)?(?:\d+(?:\.\d+)*\.?\s+)?/, "")));
    const heading = /^#{1,6}\s+(?:§\s*)?(\d+(?:\.\d+)*)\.?\s/.exec(line);
    if (heading) {
      current = heading[1]!;
      numbers.add(current);
      continue;
    }
    if (/^#{1,6}\s/.test(line)) current = line.replace(/^#+\s+/, "").trim();
    const item = /^(\d+)\.\s/.exec(line);
    if (item) {
      if (!items.has(current)) items.set(current, new Set());
      items.get(current)!.add(item[1]!);
    }
  }
  return { numbers, items, headings };
}

/** Where a Markdown reference resolves: next to the file, from the root, or in docs/ (a bare `STACK.md`); null when nowhere inside the tree. */
function resolveMd(root: string, fileDir: string, ref: string): string | null {
  const candidates = [resolve(fileDir, ref), resolve(root, ref)];
  if (!ref.includes("/")) candidates.push(resolve(root, "docs", ref));
  for (const c of candidates) {
    if (!relative(root, c).startsWith("..") && existsSync(c)) return c;
  }
  return null;
}

/**
 * Whether the section a reference names after a document exists there: `§2.13` (a numbered
 * heading), `§7.1 item 14` (a numbered item under that heading), `pitfall 7` (a numbered item
 * under the "Pitfalls" heading), `"Layers"` (a quoted section name: the start of one of the
 * document's headings, so "Idempotency" names "Idempotency: nothing twice"). @returns the problem, or null when it exists or none is named.
 */
function sectionProblem(after: string, sections: Sections): string | null {
  const quoted = /^\s*,?\s*"([^"]+)"/.exec(after);
  if (quoted) return sections.headings.some((h) => h.startsWith(fold(quoted[1]!))) ? null : `section "${quoted[1]}"`;
  const pitfall = /^\s*pitfalls?\s+(\d+)/i.exec(after);
  if (pitfall) {
    const list = [...sections.items].find(([heading]) => /^pitfalls/i.test(heading))?.[1];
    return list?.has(pitfall[1]!) ? null : `pitfall ${pitfall[1]}`;
  }
  const section = /^\s*,?\s*§\s*(\d+(?:\.\d+)*)(?:\s+items?\s+(\d+))?/.exec(after);
  if (!section) return null;
  const [, number, item] = section;
  if (!sections.numbers.has(number!)) return `§${number}`;
  if (item && !sections.items.get(number!)?.has(item)) return `§${number} item ${item}`;
  return null;
}

/**
 * Every reference in `files` (relative to `root`) that a reader of the repository cannot follow:
 * - "issue N" anywhere in the line (code, strings, test titles, comments, prose): the tracker is not
 *   in the repository, so the line must say the reason itself;
 * - a `*.md` document cited in a comment, a test title or a document's text ({@link isCitation})
 *   that does not resolve inside the tree (next to the file, from the root, or as docs/<name>), or
 *   whose named section (`§2.13`, `§7.1 item 14`, `pitfall 7`, a quoted heading) it does not have;
 * - a path that leads out of the tree: `../…` climbing past the root (or to nothing), and absolute
 *   paths of one machine (under a developer's home or work folder).
 * Markdown files (`*.md`) are read whole; other files only in their comments and test titles, so a
 * fixture's file name in a string is not a citation. URLs are left alone.
 *
 * @param root the repository root
 * @param files the files to read, relative to root ({@link sourceFiles} and the docs)
 * @returns the problems in file and line order; empty when every reference resolves
 */
export function findUnresolvedRefs(root: string, files: readonly string[]): UnresolvedRef[] {
  const problems: UnresolvedRef[] = [];
  const sectionCache = new Map<string, Sections>();
  const sections = (path: string) => {
    let s = sectionCache.get(path);
    if (!s) sectionCache.set(path, (s = sectionsOf(readFileSync(path, "utf8"))));
    return s;
  };
  for (const file of files) {
    const fileDir = dirname(join(root, file));
    const ext = file.slice(file.lastIndexOf(".") + 1);
    const markdown = ext === "md";
    const state = { inBlock: false };
    readFileSync(join(root, file), "utf8")
      .split("\n")
      .forEach((text, i) => {
        const report = (problem: string) => problems.push({ file, line: i + 1, problem });
        const issue = ISSUE.exec(text.replace(URL, ""));
        if (issue) report(`"${issue[0]}" cites a tracker the repository does not hold: write the reason instead`);
        const prose = (markdown ? text : proseOf(text, ext, state)).replace(URL, "");
        if (!prose.trim()) return;
        const reported = new Set<string>();
        for (const m of prose.matchAll(MD_REF)) {
          const ref = m[1]!;
          if (!isCitation(root, ref)) continue;
          const found = resolveMd(root, fileDir, ref);
          if (!found) {
            reported.add(ref);
            report(`${ref} does not resolve inside the tree (next to the file, from the root, or in docs/)`);
            continue;
          }
          const missing = sectionProblem(prose.slice(m.index + ref.length), sections(found));
          if (missing) report(`${ref} has no ${missing}`);
        }
        for (const m of prose.matchAll(CLIMBING)) {
          const path = m[1]!.replace(/[.,;:]+$/, "");
          if (reported.has(path)) continue;
          const target = resolve(fileDir, path);
          if (relative(root, target).startsWith("..")) report(`${path} leads out of the repository`);
          else if (path.includes("*") ? globSync(path, { cwd: fileDir }).length === 0 : !existsSync(target)) report(`${path} names nothing in the tree`);
        }
        for (const m of prose.matchAll(MACHINE_PATH)) report(`${m[1]} is a path of one machine, not of the repository`);
      });
  }
  return problems;
}
