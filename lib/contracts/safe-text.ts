/**
 * Text from people and agents (goals, reasons, guidance, facts, names, step summaries, tool
 * arguments and outputs, alerts, escalation messages) made safe to show: one rule for every page
 * (components/ui/safe-text.tsx) and the CLI (scripts/lib/cli-text.ts `terminalSafe`). Client-safe,
 * no imports, pure.
 *
 * Why: a bidi override (U+202E) reverses everything after it up to the end of its paragraph, so
 * "evil" reads "live" and "invoice\u202egpj.exe" reads "invoiceexe.jpg"; ESC and BEL drive a
 * terminal and render as boxes in a browser. Isolating the text (`<bdi>`) keeps an override from
 * spilling onto the page around it, but not from reversing the text itself — so the controls are
 * replaced by visible escapes, and what an agent wrote reads in the order it was written.
 */

/**
 * C0 controls, DEL, C1 controls; the bidi marks, embeddings, overrides and isolates (U+061C,
 * U+200E/F, U+202A–U+202E, U+2066–U+2069: Unicode UAX #9 "Explicit Directional Formatting
 * Characters" and the implicit marks) and the Unicode line / paragraph separators (U+2028/2029).
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const SHORT: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** Which whitespace controls stay as they are: `newlines` for a whole message or a JSON view, `tabs` for pre-formatted text. */
export interface ControlOptions {
  newlines?: boolean;
  tabs?: boolean;
}

/** The visible escape of one control: `\n`, `\r`, `\t`, `\xHH` (C0, DEL, C1), `\uHHHH` (bidi controls, U+2028/2029). */
export function controlEscape(c: string): string {
  const short = SHORT[c];
  if (short) return short;
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

function kept(c: string, options: ControlOptions): boolean {
  return (c === "\n" && options.newlines === true) || (c === "\t" && options.tabs === true);
}

/**
 * `text` with every control character and bidi control replaced by its visible escape
 * ({@link controlEscape}), except the newlines / tabs `options` keep. Backslashes are left as they
 * are: the point is that nothing acts as a control, not a reversible encoding. Pure.
 */
export function escapeControls(text: string, options: ControlOptions = {}): string {
  return text.replace(UNSAFE, (c) => (kept(c, options) ? c : controlEscape(c)));
}

/** One piece of text cut by {@link controlParts}: plain text, or the escape of one control (shown apart from the text). */
export type ControlPart = { text: string } | { escape: string; codePoint: number };

/**
 * `text` cut into plain runs and escaped controls, so a page can show an escape as what it is (a
 * marked `\u202e`, not a literal backslash the author typed). Joining the parts' `text` / `escape`
 * gives {@link escapeControls}. Pure.
 */
export function controlParts(text: string, options: ControlOptions = {}): ControlPart[] {
  const parts: ControlPart[] = [];
  let last = 0;
  for (const m of text.matchAll(UNSAFE)) {
    const c = m[0];
    if (kept(c, options)) continue;
    if (m.index > last) parts.push({ text: text.slice(last, m.index) });
    parts.push({ escape: controlEscape(c), codePoint: c.charCodeAt(0) });
    last = m.index + 1;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return parts;
}

/** True when `text` holds a control {@link escapeControls} would replace. */
export function hasControls(text: string, options: ControlOptions = {}): boolean {
  for (const m of text.matchAll(UNSAFE)) if (!kept(m[0], options)) return true;
  return false;
}
