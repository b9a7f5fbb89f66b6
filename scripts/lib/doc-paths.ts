import { existsSync, globSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** A path a document names that does not exist in the repository. */
export interface MissingDocPath {
  /** The document, relative to the repository root. */
  doc: string;
  /** 1-based line number in the document. */
  line: number;
  /** The path as written. */
  path: string;
}

/** Top-level folders and files a repository path may start with (a token `server/x.ts` is a path; `longhaul/run.started` is an event name). */
const ROOTS = new Set(["app", "components", "lib", "server", "scripts", "tests", "prisma", "docs", "examples", "bench", ".ci", "public", "types"]);
/** File endings that make a token with a slash but no known root a path (`scripted/agent.ts`), resolved next to the document, then from the root. */
const FILE_ENDING = /\.(ts|tsx|js|mjs|cjs|md|sql|prisma|json|ya?ml|sh)$/;
/** Absolute paths of a developer's machine, reported as missing wherever they are named. */
const MACHINE_PATH = /^\/(work|home|root|Users)\//;
/** Source endings that make a bare name a path in a folder's README (`registry.ts` in server/tools/README.md names server/tools/registry.ts). */
const SOURCE_ENDING = /\.(ts|tsx|sql|prisma)$/;

/**
 * Whether a backticked or linked token is a repository path to check. Left out: URLs and routes
 * (`/admin`, `https://…`), placeholders (`server/api/routers/<entity>.ts`), runtime folders
 * (`.data/…`, `DATA_DIR/…`), package names (`@prisma/…`, `inngest/node`) and bare extensions
 * (`.ts`). A path that climbs out of the repository is checked, and never exists ({@link exists}).
 */
function isRepoPath(token: string, folderReadme: boolean): boolean {
  if (!token || /[\s<>{}$…]/.test(token) || token.includes("://")) return false;
  if (token.startsWith("/") || token.startsWith("@") || token.startsWith(".data") || token.startsWith("DATA_DIR")) return false;
  if (token.startsWith("node_modules")) return false;
  if (/^\.[a-z]+$/.test(token)) return false;
  const first = token.replace(/^(\.\.?\/)+/, "").split("/")[0]!;
  if (token.includes("/")) return ROOTS.has(first) || FILE_ENDING.test(token);
  // A bare document name (`ARCHITECTURE.md`) is a reference a reader follows: it must resolve.
  if (/^[\w.-]+\.md$/.test(token)) return true;
  // A bare name (`licenses.csv`, `agent-loop.ts`) in the top-level docs is a file the text just
  // named in full or an artifact; in a folder's README it names a file of that folder.
  return folderReadme && SOURCE_ENDING.test(token);
}

/**
 * Whether `token` names something in the repository: from the document's folder first, then from
 * the root, then from docs/ (a bare `STACK.md`); `*` globs need one match. A path that leads out of
 * the repository does not: a clone has nothing there to read.
 */
function exists(root: string, docDir: string, token: string): boolean {
  const clean = token
    .replace(/^\.\//, "")
    .replace(/[#?].*$/, "")
    .replace(/\/$/, "");
  if (relative(root, resolve(docDir, clean)).startsWith("..")) return false;
  if (/^[\w.-]+\.md$/.test(clean) && existsSync(join(root, "docs", clean))) return true;
  for (const base of [docDir, root]) {
    if (clean.includes("*")) {
      if (globSync(clean, { cwd: base }).length > 0) return true;
    } else if (existsSync(join(base, clean))) return true;
  }
  return false;
}

/**
 * Every repository path named in `docs` (paths relative to `root`) that does not exist: tokens in
 * backticks (each word of a backticked command too) and Markdown link targets. Fenced code blocks
 * are read as well, since a README's commands name scripts. A token is a path when it starts with
 * a top-level folder (`server/…`) or has a slash and a file ending; a bare file name counts only
 * in a folder's README (its own files) — see {@link isRepoPath}. An absolute path of a developer's
 * machine (under a home or work folder, {@link MACHINE_PATH}) is always reported.
 *
 * @returns the missing paths in document order; empty when every named path exists.
 */
export function findMissingDocPaths(root: string, docs: string[]): MissingDocPath[] {
  const missing: MissingDocPath[] = [];
  for (const doc of docs) {
    const docDir = dirname(join(root, doc));
    const folderReadme = doc.endsWith("README.md") && doc.includes("/");
    const lines = readFileSync(join(root, doc), "utf8").split("\n");
    lines.forEach((text, i) => {
      const tokens = [...[...text.matchAll(/`([^`]+)`/g)].flatMap((m) => m[1]!.split(/\s+/)), ...[...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!)];
      for (const raw of tokens) {
        const token = raw.replace(/[,;:.)]+$/, "").replace(/^\(/, "");
        // A path of one machine means nothing in another clone.
        if (MACHINE_PATH.test(token)) missing.push({ doc, line: i + 1, path: token });
        if (isRepoPath(token, folderReadme) && !exists(root, docDir, token)) missing.push({ doc, line: i + 1, path: token });
      }
    });
  }
  return missing;
}

/** The documents the check reads: the README, docs/*.md and every README.md outside node_modules and build output. */
export function repoDocs(root: string): string[] {
  const skipped = /(^|\/)(node_modules|\.next|\.data|\.git|test-results)(\/|$)/;
  return [...new Set(globSync(["README.md", "docs/*.md", "**/README.md"], { cwd: root, exclude: (p: string) => skipped.test(p) }))].sort();
}
