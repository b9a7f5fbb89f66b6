import { lintSource } from "@secretlint/core";
import { secretLintProfiler } from "@secretlint/profiler";
import { creator as secretlintRecommended } from "@secretlint/secretlint-rule-preset-recommend";

// secretlint profiles every lint unless told not to: each call puts ~90 marks and measures on the
// process's performance timeline and in the profiler's own arrays, which are never cleared — about
// 10–20 KB of heap per scan, without end, in a process that scans every outgoing string and every
// exported trace attribute (https://github.com/secretlint/secretlint/issues/1633; 13.x added `setEnabled` for this, still on by
// default). Nothing here reads the profile. The profiler is one module instance shared with
// @secretlint/core (both are external packages of the Next build, next.config.ts), so this turns it
// off for every lint in the process.
secretLintProfiler.setEnabled(false);

/**
 * Scanning of outgoing content (an email's subject and body, an http_post body, any string an
 * egress tool sends) before it leaves: secrets, and long verbatim runs of the workspace files the
 * task read. Pure except for secretlint's async API; nothing here touches the database.
 */

/** One finding in one outgoing string. `preview` is redacted: it never holds the whole secret. */
export interface ContentFinding {
  kind: "secret" | "workspace_content";
  /** The argument holding it, e.g. "body" or "body.report.text". */
  field: string;
  /** secretlint rule id (`@secretlint/secretlint-rule-github`) or our own (`longhaul/password-assignment`), or `longhaul/workspace-file`. */
  rule: string;
  /** "GitHub token", "password assignment", "verbatim text of notes/secret.md". */
  label: string;
  /** UTF-16 offsets [start, end) in the field's text. */
  range: [number, number];
  /** Redacted: a secret as its first 4 characters + `…` + its length; a file run as its path, offset and size. */
  preview: string;
  /**
   * workspace_content only: the start of the copied run as it appears in the outgoing text (at most
   * {@link EXCERPT_CHARS} characters), any secret inside it replaced by `[redacted: <label>]` —
   * so a handler sees what was copied without the card showing a secret.
   */
  excerpt?: string;
}

/** Longest excerpt of a verbatim run a finding carries (characters, before redaction). */
export const EXCERPT_CHARS = 240;

/**
 * The excerpt of `run` (a workspace_content finding in `text`): its first {@link EXCERPT_CHARS}
 * characters with every `secrets` finding that overlaps them redacted (clipped to the excerpt; a
 * secret cut by its end is still replaced whole as far as it reaches). Adds "…" when cut.
 */
export function verbatimExcerpt(text: string, run: ContentFinding, secrets: readonly ContentFinding[]): string {
  const start = run.range[0];
  const end = Math.min(run.range[1], start + EXCERPT_CHARS);
  const inside = secrets
    .filter((f) => f.range[0] < end && f.range[1] > start)
    .map((f) => ({ ...f, range: [Math.max(f.range[0], start) - start, Math.min(f.range[1], end) - start] as [number, number] }));
  return redactText(text.slice(start, end), inside) + (end < run.range[1] ? "…" : "");
}

/**
 * Rules secretlint's recommended preset does not cover, each with its source:
 * - `openai-key`: OpenAI's key shapes (`sk-…`, `sk-proj-…`, `sk-svcacct-…`) as OpenAI documents them
 *   in its API-key safety guide (the preset's own OpenAI rule needs the `T3BlbkFJ` marker only older keys had);
 * - `aws-access-key-id`: AWS's documented access key id prefixes (AKIA, ASIA…), 20 characters
 *   (IAM "Understanding unique ID prefixes"); the preset only reports it beside a secret key;
 * - `jwt`: three base64url parts starting `eyJ` (RFC 7519 §3, a JSON header);
 * - `password-assignment`: `password|passwd|pwd|secret|token|api_key|access_key|client_secret`
 *   followed by `=` or `:` and a value of 8+ non-space characters with a digit or a symbol in it (so
 *   "token: described below" is prose, "token: s3cr3t-value" is not; the generic-credential idea of
 *   gitleaks' `generic-api-key` rule, simplified). OpenAI keys need a digit and a capital letter.
 */
const EXTRA_RULES: { id: string; label: string; pattern: RegExp; group?: number }[] = [
  {
    id: "longhaul/openai-key",
    label: "OpenAI API key",
    pattern: /\bsk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Z])[A-Za-z0-9_-]{20,}/g,
  },
  { id: "longhaul/aws-access-key-id", label: "AWS access key id", pattern: /\b(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}\b/g },
  { id: "longhaul/jwt", label: "JSON Web Token", pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  {
    id: "longhaul/password-assignment",
    label: "password or secret assignment",
    pattern:
      /\b(?:[a-z0-9_.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|client[_-]?secret))["']?\s*[:=]\s*["']?((?=[^\s"',;]*[\d_\-+/=!@#$%^&*])[^\s"',;]{8,})/gi,
    group: 1,
  },
];

/** A secret shown safely: its first 4 characters, an ellipsis and its length ("ghp_… (40 chars)"). */
export function redactedPreview(secret: string): string {
  const head = secret.length > 12 ? secret.slice(0, 4) : "";
  return `${head}… (${secret.length} chars)`;
}

/** "found GitHub Token(…)": secretlint's message without the (masked) value, for a label. */
function labelOf(message: string, ruleId: string): string {
  const m = /^found ([^(:]+?)\s*(?:\(|:|$)/i.exec(message);
  return m?.[1]?.trim() || ruleId.replace(/^@secretlint\/secretlint-rule-/, "");
}

/**
 * The secrets in `text` (the value of `field`): secretlint's recommended preset (@secretlint 13.x,
 * its profiler off) plus {@link EXTRA_RULES}; overlapping findings are merged (the
 * first, longest kept). Never returns the secret itself, only where it is and a redacted preview.
 */
export async function scanForSecrets(text: string, field: string): Promise<ContentFinding[]> {
  if (text.length < 8) return [];
  const found: ContentFinding[] = [];
  const result = await lintSource({
    source: { filePath: `/outgoing/${field}`, content: text, contentType: "text" },
    options: { config: { rules: [{ id: "@secretlint/secretlint-rule-preset-recommend", rule: secretlintRecommended }] }, maskSecrets: true },
  });
  for (const m of result.messages) {
    const [start, end] = m.range;
    found.push({
      kind: "secret",
      field,
      rule: m.ruleId,
      label: labelOf(m.message, m.ruleId),
      range: [start, end],
      preview: redactedPreview(text.slice(start, end)),
    });
  }
  for (const rule of EXTRA_RULES) {
    for (const match of text.matchAll(rule.pattern)) {
      const value = rule.group ? match[rule.group]! : match[0];
      const start = match.index + (rule.group ? match[0].lastIndexOf(value) : 0);
      found.push({ kind: "secret", field, rule: rule.id, label: rule.label, range: [start, start + value.length], preview: redactedPreview(value) });
    }
  }
  found.sort((a, b) => a.range[0] - b.range[0] || b.range[1] - a.range[1]);
  const merged: ContentFinding[] = [];
  for (const f of found) {
    const last = merged.at(-1);
    if (last && f.range[0] < last.range[1]) continue;
    merged.push(f);
  }
  return merged;
}

/** A workspace file the task read, with the text it got (read_file outputs; search_files' matched lines). */
export interface ReadContent {
  path: string;
  /** Byte offset of `content` in the file (read_file's `offset`). */
  offset: number;
  content: string;
  /** Where the text came from when not one read_file piece ("search_files lines 3–9"), for the finding's preview. */
  source?: string;
}

/**
 * Shortest run of verbatim file text (characters, whitespace collapsed runs included) that counts as
 * "the contents of a file the run read": about two lines of prose — long enough that names, licenses
 * and short quotes a report legitimately repeats stay below it, short enough that a key, a paragraph
 * or a config block does not.
 */
export const VERBATIM_MIN_CHARS = 120;
/** Shingle length of the index; with stride {@link SHINGLE} every run ≥ 2·SHINGLE−1 is found. */
const SHINGLE = 60;

/**
 * Long verbatim runs of `sources` inside `text`: every maximal common substring of at least
 * `minChars` characters (with at least a quarter of them not whitespace), found with a shingle
 * index (every SHINGLE-th window of each source; a common run of 2·SHINGLE−1 characters must contain
 * one), then extended both ways. Reports each source once per field, the longest run. O(text + sources).
 */
export function findVerbatimRuns(text: string, field: string, sources: readonly ReadContent[], minChars = VERBATIM_MIN_CHARS): ContentFinding[] {
  if (text.length < minChars || sources.length === 0) return [];
  const index = new Map<string, { source: number; at: number }[]>();
  sources.forEach((s, source) => {
    for (let at = 0; at + SHINGLE <= s.content.length; at += SHINGLE) {
      const key = s.content.slice(at, at + SHINGLE);
      const list = index.get(key);
      if (list) {
        if (list.length < 8) list.push({ source, at });
      } else index.set(key, [{ source, at }]);
    }
  });
  const best = new Map<number, { start: number; end: number; srcStart: number }>();
  for (let i = 0; i + SHINGLE <= text.length; i++) {
    const hits = index.get(text.slice(i, i + SHINGLE));
    if (!hits) continue;
    for (const { source, at } of hits) {
      const src = sources[source]!.content;
      let start = i;
      let srcStart = at;
      while (start > 0 && srcStart > 0 && text[start - 1] === src[srcStart - 1]) {
        start--;
        srcStart--;
      }
      let end = i + SHINGLE;
      let srcEnd = at + SHINGLE;
      while (end < text.length && srcEnd < src.length && text[end] === src[srcEnd]) {
        end++;
        srcEnd++;
      }
      const run = text.slice(start, end);
      if (run.length < minChars || run.replace(/\s/g, "").length < run.length / 4) continue;
      const prev = best.get(source);
      if (!prev || end - start > prev.end - prev.start) best.set(source, { start, end, srcStart });
    }
  }
  return [...best].map(([source, r]) => {
    const s = sources[source]!;
    return {
      kind: "workspace_content" as const,
      field,
      rule: "longhaul/workspace-file",
      label: `verbatim text of ${s.path}`,
      range: [r.start, r.end] as [number, number],
      preview: `${r.end - r.start} chars of ${s.path} (from character ${r.srcStart} of ${s.source ?? `the text read at byte ${s.offset}`})`,
    };
  });
}

/** `text` with each finding's range replaced by `[redacted: <label>]` (ranges sorted, non-overlapping). */
export function redactText(text: string, findings: readonly ContentFinding[]): string {
  let out = "";
  let at = 0;
  for (const f of [...findings].sort((a, b) => a.range[0] - b.range[0])) {
    if (f.range[0] < at) continue;
    out += text.slice(at, f.range[0]) + `[redacted: ${f.label}]`;
    at = f.range[1];
  }
  return out + text.slice(at);
}

/** Every string leaf of a JSON value with its field path ("body", "body.items[2].text"), keys too. */
export function stringLeaves(value: unknown, path = ""): { field: string; text: string }[] {
  if (typeof value === "string") return [{ field: path || "arguments", text: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringLeaves(v, `${path}[${i}]`));
  if (value && typeof value === "object") {
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => {
      const inner = path ? `${path}.${k}` : k;
      return [...(k.length >= 8 ? [{ field: `${inner} (key)`, text: k }] : []), ...stringLeaves(v, inner)];
    });
  }
  return [];
}

/**
 * A copy of `value` with every string leaf redacted by the findings of its field (keys are kept:
 * a key carrying a secret is reported, and the value under it replaced whole).
 */
export function redactValue(value: unknown, findings: readonly ContentFinding[], path = ""): unknown {
  if (typeof value === "string") {
    const mine = findings.filter((f) => f.field === (path || "arguments"));
    return mine.length ? redactText(value, mine) : value;
  }
  if (Array.isArray(value)) return value.map((v, i) => redactValue(v, findings, `${path}[${i}]`));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => {
        const inner = path ? `${path}.${k}` : k;
        const keyHit = findings.some((f) => f.field === `${inner} (key)`);
        return keyHit ? [`[redacted key]`, "[redacted]"] : [k, redactValue(v, findings, inner)];
      }),
    );
  }
  return value;
}
