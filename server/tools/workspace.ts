import { realpathSync } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { env } from "../env.ts";
import { ToolError } from "./types.ts";

/** A path inside the workspace, resolved. */
export interface WorkspacePath {
  /** Real path of the workspace root (symlinks resolved). */
  root: string;
  /** Real path of the target (symlinks resolved), guaranteed inside `root`. */
  real: string;
  /** The path as the agent should see it: relative to the root, "/"-separated, "." for the root. */
  display: string;
}

/** True when `child` is `parent` or lies below it (both absolute, normalised). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/**
 * Files no tool may read even inside the workspace: Longhaul's own data folder (`DATA_DIR`, default
 * `.data` of the folder the app runs in — the embedded database, the CLI's admin token, the session
 * secret, the executor's keys; the default workspace is the project folder, so it lies inside) and
 * dotenv files (`.env`, `.env.local`, … but not `.env.example`). A model that reads the admin
 * token could hand it to whoever launched the task. `real` is a real
 * path; `dataDir` defaults to {@link dataDirectory}.
 */
export function isWithheldPath(real: string, dataDir: string = dataDirectory()): boolean {
  if (isInside(dataDir, real)) return true;
  const base = path.basename(real);
  return /^\.env(\..+)?$/.test(base) && !/\.(example|sample|template)$/.test(base);
}

/** The real path of `DATA_DIR` (server/env.ts; resolved against the working directory, as npm start does; the lexical path when it does not exist). */
export function dataDirectory(): string {
  const dir = path.resolve(env().DATA_DIR);
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/**
 * Resolves `requested` (relative to the workspace) to a real path and refuses anything outside the
 * workspace: absolute paths, `..` escapes, and symlinks whose target (realpath) lies outside.
 * Symlinks that stay inside are followed. Rule: docs/CONTRACTS.md "Tools" (after symlinks).
 *
 * Errors (ToolError): `path_outside_workspace`; `not_allowed` for a withheld path ({@link isWithheldPath}); `not_found` when the target does not exist;
 * `invalid_arguments` for NUL bytes; `not_found` when the workspace folder itself is missing (retrying
 * would not help; the agent can declare a dead end). Other I/O errors (EACCES…) throw.
 */
export async function resolveInWorkspace(workspace: string, requested: string): Promise<WorkspacePath> {
  if (requested.includes("\0")) throw new ToolError("invalid_arguments", "path: must not contain NUL bytes");
  if (path.isAbsolute(requested) || /^[A-Za-z]:[\\/]/.test(requested)) {
    throw new ToolError("path_outside_workspace", `path: must be relative to the workspace, got absolute path ${JSON.stringify(requested)}`);
  }
  let root: string;
  try {
    root = await realpath(workspace);
  } catch (error) {
    if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR")) throw new ToolError("not_found", "the task's workspace folder does not exist");
    throw error;
  }
  const lexical = path.resolve(root, requested === "" ? "." : requested);
  if (!isInside(root, lexical)) {
    throw new ToolError("path_outside_workspace", `path: ${JSON.stringify(requested)} resolves outside the workspace`);
  }
  let real: string;
  try {
    real = await realpath(lexical);
  } catch (error) {
    if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR") || isErrno(error, "ELOOP")) {
      throw new ToolError("not_found", `path: ${JSON.stringify(requested)} does not exist`);
    }
    throw error;
  }
  if (!isInside(root, real)) {
    throw new ToolError("path_outside_workspace", `path: ${JSON.stringify(requested)} is a symlink to a location outside the workspace`);
  }
  if (isWithheldPath(real) || isWithheldPath(lexical)) {
    throw new ToolError(
      "not_allowed",
      `path: ${JSON.stringify(requested)} holds Longhaul's own data or secrets (its data folder, a .env file); no tool reads it`,
    );
  }
  return { root, real, display: toDisplay(root, lexical) };
}

/** Relative "/"-separated form of `absolute` under `root` ("." for the root itself). */
export function toDisplay(root: string, absolute: string): string {
  const rel = path.relative(root, absolute);
  return rel === "" ? "." : rel.split(path.sep).join("/");
}

/** Like resolveInWorkspace, and additionally requires a directory (`not_a_directory` otherwise). */
export async function resolveDirectory(workspace: string, requested: string): Promise<WorkspacePath> {
  const resolved = await resolveInWorkspace(workspace, requested);
  if (!(await stat(resolved.real)).isDirectory()) {
    throw new ToolError("not_a_directory", `path: ${JSON.stringify(requested)} is not a directory`);
  }
  return resolved;
}

/**
 * Compares two strings by Unicode code point (not UTF-16 code unit, which is what `<` and the
 * default sort do; the two differ for characters above U+FFFF). Contract: entries sorted by name in
 * code-point order.
 */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const cx = x.value.codePointAt(0)!;
    const cy = y.value.codePointAt(0)!;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}

/** True when `error` is a Node system error with the given errno code. */
export function isErrno(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}
