import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { DEMO_DEFAULT_EMAIL } from "../../../lib/contracts/demo.ts";
import { compareCodePoints } from "../workspace.ts";

/** Packages audited by the demo when the task does not say how many. */
export const DEMO_DEFAULT_LIMIT = 50;

/**
 * The demo goal (docs/CONTRACTS.md "Model context"), verbatim:
 * "Audit the licenses of the first N packages in node_modules: record name, version and license of
 * each as facts, write licenses.csv (name,version,license,copyleft), email the summary to <address>,
 * then finish." With `postUrl`, the summary is also POSTed as JSON ("…, email the summary to
 * <address>, post the summary as JSON to <url>, then finish.") — an effect on an external system.
 */
/** Where the demo emails its summary when the launch names no recipient (inside the default egress policy, example.com). */
export { DEMO_DEFAULT_EMAIL };

export function licenseAuditGoal(limit: number, emailTo = DEMO_DEFAULT_EMAIL, postUrl?: string): string {
  const post = postUrl ? ` post the summary as JSON to ${postUrl},` : "";
  return `Audit the licenses of the first ${limit} packages in node_modules: record name, version and license of each as facts, write licenses.csv (name,version,license,copyleft), email the summary to ${emailTo},${post} then finish.`;
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory(); // follows symlinks (npm links workspace packages)
  } catch {
    return false;
  }
}

/**
 * The first `limit` top-level packages of `<workspace>/node_modules`: `name` for
 * `node_modules/<name>` and `@scope/name` for `node_modules/@scope/<name>` (directories, or symlinks
 * to directories), skipping names that start with "." (`.bin`, `.package-lock.json`), sorted by full
 * name in code-point order. Returns [] when there is no node_modules.
 */
export async function listAuditPackages(workspace: string, limit: number): Promise<string[]> {
  const root = path.join(workspace, "node_modules");
  const names: string[] = [];
  let top: string[];
  try {
    top = await readdir(root);
  } catch {
    return [];
  }
  for (const entry of top) {
    if (entry.startsWith(".")) continue;
    if (entry.startsWith("@")) {
      if (!(await isDirectory(path.join(root, entry)))) continue;
      for (const inner of await readdir(path.join(root, entry))) {
        if (!inner.startsWith(".") && (await isDirectory(path.join(root, entry, inner)))) names.push(`${entry}/${inner}`);
      }
    } else if (await isDirectory(path.join(root, entry))) {
      names.push(entry);
    }
  }
  return names.sort(compareCodePoints).slice(0, Math.max(0, limit));
}

/**
 * A package.json's license as one string: a string as is; an object → its `type`; an array (in
 * `license`, or the legacy `licenses`) → the types joined with " OR "; missing or empty → "UNKNOWN".
 * `license` wins over `licenses` when both are present.
 */
export function normalizeLicense(pkg: unknown): string {
  if (typeof pkg !== "object" || pkg === null) return "UNKNOWN";
  const record = pkg as { license?: unknown; licenses?: unknown };
  const one = (value: unknown): string | null => {
    if (typeof value === "string") return value.trim() === "" ? null : value;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const type = (value as { type?: unknown }).type;
      return typeof type === "string" && type.trim() !== "" ? type : null;
    }
    return null;
  };
  for (const field of [record.license, record.licenses]) {
    if (field === undefined || field === null) continue;
    if (Array.isArray(field)) {
      const types = field.map(one).filter((t): t is string => t !== null);
      if (types.length > 0) return types.join(" OR ");
    } else {
      const type = one(field);
      if (type !== null) return type;
    }
  }
  return "UNKNOWN";
}

/** License families treated as copyleft: GPL, LGPL, AGPL, MPL, EPL, CDDL (any version, -only/-or-later, +). */
export const COPYLEFT_FAMILIES = ["GPL", "LGPL", "AGPL", "MPL", "EPL", "CDDL"] as const;
const copyleftId = /^(?:A?GPL|LGPL|MPL|EPL|CDDL)(?:$|[-v0-9.+])/i;

/**
 * True when any license identifier in `license` (an SPDX expression or a plain name; identifiers are
 * split on spaces, parentheses, "/" and ",") belongs to a copyleft family (COPYLEFT_FAMILIES).
 * "MIT OR GPL-3.0" is therefore copyleft: the conservative reading for a compliance audit.
 */
export function isCopyleft(license: string): boolean {
  return license.split(/[\s()/,;]+/).some((id) => copyleftId.test(id));
}

/** One row of licenses.csv. */
export interface LicenseRow {
  name: string;
  version: string;
  license: string;
  copyleft: boolean;
}

/** Reads `<workspace>/node_modules/<name>/package.json` into a row (missing or unreadable → version "", UNKNOWN). */
export async function readLicenseRow(workspace: string, name: string): Promise<LicenseRow> {
  let pkg: unknown = null;
  try {
    pkg = JSON.parse(await readFile(path.join(workspace, "node_modules", name, "package.json"), "utf8"));
  } catch {
    pkg = null;
  }
  const version =
    typeof pkg === "object" && pkg !== null && typeof (pkg as { version?: unknown }).version === "string" ? (pkg as { version: string }).version : "";
  const license = normalizeLicense(pkg);
  return { name, version, license, copyleft: isCopyleft(license) };
}

/** One CSV field, quoted per RFC 4180 §2 when it holds a comma, a double quote, CR or LF. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** licenses.csv text: header `name,version,license,copyleft`, one row per package, "\n" line ends, trailing newline. */
export function licenseCsv(rows: readonly LicenseRow[]): string {
  const lines = ["name,version,license,copyleft", ...rows.map((r) => [r.name, r.version, r.license, String(r.copyleft)].map(csvField).join(","))];
  return `${lines.join("\n")}\n`;
}

/**
 * The licenses.csv the demo agent should write for the first `limit` packages of the workspace,
 * computed straight from the package.json files (for tests and the chaos check).
 */
export async function expectedLicenseCsv(workspace: string, limit: number): Promise<string> {
  const names = await listAuditPackages(workspace, limit);
  const rows = await Promise.all(names.map((name) => readLicenseRow(workspace, name)));
  return licenseCsv(rows);
}
