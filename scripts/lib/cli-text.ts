/**
 * Untrusted text (task goals, names, reasons, server messages) made safe for the CLI's
 * human-readable output on a terminal: the pages' rule (lib/contracts/safe-text.ts). Pure.
 */
import { escapeControls } from "../../lib/contracts/safe-text.ts";

/**
 * `text` with every control character and bidi control replaced by a visible escape: `\n`, `\r`,
 * `\t`, `\xHH` for the other C0 / DEL / C1 characters (ESC → `\x1b`, so ESC[2J cannot clear the
 * screen nor ESC]0;… BEL retitle the window), `\uHHHH` for bidi controls and U+2028/2029 (so
 * U+202E cannot reverse what follows). A single-line field (the default) also gets its newlines
 * escaped; `multiline: true` keeps "\n" (a whole message). JSON output needs none of this
 * (JSON.stringify escapes controls itself).
 */
export function terminalSafe(text: string, { multiline = false }: { multiline?: boolean } = {}): string {
  return escapeControls(text, { newlines: multiline });
}
