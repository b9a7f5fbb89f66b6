/**
 * Untrusted text (task goals, names, reasons, server messages) made safe for the CLI's
 * human-readable output on a terminal. Pure.
 */

// C0 controls, DEL, C1 controls; the bidi marks, embeddings, overrides and isolates (U+061C,
// U+200E/F, U+202A–U+202E, U+2066–U+2069) and the Unicode line / paragraph separators.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const SHORT: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * `text` with every control character and bidi control replaced by a visible escape: `\n`, `\r`,
 * `\t`, `\xHH` for the other C0 / DEL / C1 characters (ESC → `\x1b`, so ESC[2J cannot clear the
 * screen nor ESC]0;… BEL retitle the window), `\uHHHH` for bidi controls and U+2028/2029 (so
 * U+202E cannot reverse what follows). A single-line field (the default) also gets its newlines
 * escaped; `multiline: true` keeps "\n" (a whole message). Backslashes are left as they are: the
 * point is that nothing reaches the terminal as a control, not a reversible encoding. JSON output
 * needs none of this (JSON.stringify escapes controls itself).
 */
export function terminalSafe(text: string, { multiline = false }: { multiline?: boolean } = {}): string {
  return text.replace(UNSAFE, (c) => {
    if (multiline && c === "\n") return c;
    const short = SHORT[c];
    if (short) return short;
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}
