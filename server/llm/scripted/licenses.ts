/**
 * Pure helpers of the license audit: reading a package.json's license the way npm documents it,
 * copyleft classification, the CSV and the email summary. Used by the scripted agent and by tests.
 */

/** What the audit records per package (the value of the `license:<name>` fact). */
export interface PackageLicense {
  name: string;
  version: string | null;
  license: string;
  /** Set when the license could not be read normally (e.g. package.json did not parse). */
  note?: string;
}

function licenseOf(entry: unknown): string | null {
  if (typeof entry === "string") return entry.trim() || null;
  if (entry && typeof entry === "object") {
    const type = (entry as { type?: unknown }).type;
    if (typeof type === "string" && type.trim()) return type.trim();
  }
  return null;
}

function licensesOf(value: unknown): string | null {
  if (Array.isArray(value)) {
    const types = value.map(licenseOf).filter((t): t is string => t !== null);
    return types.length > 0 ? types.join(" OR ") : null;
  }
  return licenseOf(value);
}

/**
 * The license of a parsed package.json, per npm's package.json docs: `license` as a string (an SPDX
 * expression, `SEE LICENSE IN …`, `UNLICENSED`) is kept as is; the deprecated object form
 * `{type, url}` gives its `type`; the deprecated arrays (`licenses` or `license`) of objects or
 * strings give their types joined with ` OR `. `license` wins over `licenses`; neither → `UNKNOWN`.
 */
export function normalizeLicense(pkg: unknown): string {
  if (!pkg || typeof pkg !== "object") return "UNKNOWN";
  const record = pkg as Record<string, unknown>;
  return licensesOf(record.license) ?? licensesOf(record.licenses) ?? "UNKNOWN";
}

/**
 * Reads name, version and license from the text of a package.json. A file that does not parse gives
 * license `UNKNOWN`, name/version recovered with a regular expression when possible, and a `note`.
 * `fallbackName` (the folder name) is used when the file has no usable `name`.
 */
export function packageLicenseFromText(text: string, fallbackName: string): PackageLicense {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    const name = /"name"\s*:\s*"([^"]*)"/.exec(text)?.[1];
    const version = /"version"\s*:\s*"([^"]*)"/.exec(text)?.[1];
    return {
      name: name || fallbackName,
      version: version ?? null,
      license: "UNKNOWN",
      note: `package.json did not parse: ${(err as Error).message}`,
    };
  }
  const record = parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  return {
    name: typeof record.name === "string" && record.name ? record.name : fallbackName,
    version: typeof record.version === "string" ? record.version : null,
    license: normalizeLicense(record),
  };
}

/** The copyleft families the audit flags: GPL, LGPL, AGPL, MPL, EPL, CDDL (any version, `-only`/`-or-later`/`+`). */
const COPYLEFT_IDENTIFIER = /^(?:A|L)?GPL(?:$|[-v0-9.+])|^(?:MPL|EPL|CDDL)(?:$|[-v0-9.+])/i;

/**
 * True when any license identifier in `license` belongs to a copyleft family (GPL, LGPL, AGPL, MPL,
 * EPL, CDDL). The expression is split into identifiers on spaces, parentheses, `/`, `,` and the SPDX
 * operators, so `MIT OR GPL-3.0` is true (a copyleft option exists) and `MIT` or `ISC` is false.
 */
export function isCopyleft(license: string): boolean {
  return license
    .split(/[\s()/,;]+/)
    .filter((token) => token && !/^(?:OR|AND|WITH)$/i.test(token))
    .some((token) => COPYLEFT_IDENTIFIER.test(token));
}

/** One CSV field per RFC 4180: quoted (with doubled quotes) when it holds a comma, quote, CR or LF. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * The audit CSV: header `name,version,license,copyleft`, one row per package in the given order,
 * lines ending in `\n` (including the last). A missing version is an empty field.
 */
export function licensesCsv(rows: readonly PackageLicense[]): string {
  const lines = ["name,version,license,copyleft"];
  for (const row of rows) {
    lines.push([row.name, row.version ?? "", row.license, String(isCopyleft(row.license))].map(csvField).join(","));
  }
  return `${lines.join("\n")}\n`;
}

/** Counts by license, most frequent first (ties by license name, code-point order). */
export function licenseCounts(rows: readonly PackageLicense[]): { license: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(row.license, (counts.get(row.license) ?? 0) + 1);
  return [...counts.entries()]
    .map(([license, count]) => ({ license, count }))
    .sort((a, b) => b.count - a.count || (a.license < b.license ? -1 : a.license > b.license ? 1 : 0));
}

/** The summary email body: total, top 10 licenses by count, the copyleft packages, the unknowns. */
export function auditSummary(rows: readonly PackageLicense[], artifactName: string): string {
  const counts = licenseCounts(rows);
  const copyleft = rows.filter((row) => isCopyleft(row.license));
  const unknown = rows.filter((row) => row.license === "UNKNOWN");
  const lines = [`License audit of ${rows.length} packages.`, "", "Top licenses:"];
  for (const { license, count } of counts.slice(0, 10)) lines.push(`- ${license}: ${count}`);
  if (counts.length > 10) lines.push(`- (${counts.length - 10} more licenses)`);
  lines.push("", `Copyleft (${copyleft.length}):`);
  if (copyleft.length === 0) lines.push("- none");
  for (const row of copyleft) lines.push(`- ${row.name}@${row.version ?? "?"}: ${row.license}`);
  if (unknown.length > 0) {
    lines.push("", `Unknown license (${unknown.length}):`);
    for (const row of unknown) lines.push(`- ${row.name}@${row.version ?? "?"}${row.note ? ` (${row.note})` : ""}`);
  }
  lines.push("", `Full list: ${artifactName}`);
  return lines.join("\n");
}

/**
 * What a model reads off the first page of a package.json too large to read whole (date-fns' is
 * ~200 KB): the top-level `name`, `version` and a plain-string `license`, taken from lines indented
 * one level (npm writes package.json with two-space indentation). Null when any of them is missing
 * there or the license is not a plain string (an object or array needs the whole document): the
 * agent then reads on. Paging a huge file whole would fill the context before the fact is recorded.
 */
export function packageLicenseFromPrefix(text: string, fallbackName: string): PackageLicense | null {
  const top = (key: string) => new RegExp(`^(?: {2}|\\t)"${key}"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*")\\s*,?\\s*$`, "m").exec(text)?.[1];
  const name = top("name");
  const version = top("version");
  const license = top("license");
  if (!name || !version || !license || /^(?: {2}|\t)"licenses"\s*:/m.test(text)) return null;
  try {
    const parse = (s: string) => JSON.parse(s) as string;
    return { name: parse(name) || fallbackName, version: parse(version), license: parse(license) || "UNKNOWN" };
  } catch {
    return null;
  }
}
