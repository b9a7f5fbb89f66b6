import { controlParts, escapeControls, type ControlOptions } from "@/lib/contracts/safe-text.ts";

/**
 * Text from people and agents — goals, reasons, guidance, facts, names, step summaries, tool
 * arguments and outputs, alerts, escalation messages — as every page shows it: isolated (`<bdi>`,
 * direction from its own first strong letter), each control character and bidi control shown as a
 * marked visible escape (`\u202e`, `\x1b`) instead of acting (lib/contracts/safe-text.ts, the CLI's
 * rule too). `multiline` keeps newlines and tabs (a whole message, pre-formatted output); a
 * one-line field (the default) shows them as `\n` / `\t`. Works in server and client components.
 */
export function SafeText({ text, multiline = false, className }: { text: string; multiline?: boolean; className?: string }) {
  const parts = controlParts(text, multiline ? { newlines: true, tabs: true } : {});
  return (
    <bdi className={className}>
      {parts.map((p, i) =>
        "text" in p ? (
          p.text
        ) : (
          <span
            key={i}
            className="mx-px rounded-sm bg-zinc-200 px-0.5 font-mono text-[0.85em] text-zinc-700"
            title={`control character U+${p.codePoint.toString(16).toUpperCase().padStart(4, "0")}, shown as an escape`}
            data-control-escape=""
          >
            {p.escape}
          </span>
        ),
      )}
    </bdi>
  );
}

/**
 * Text for an attribute (`title`, `aria-label`) or an `<option>`, which cannot hold markup: the
 * escapes as plain characters. Pure.
 */
export function safeAttr(text: string, options: ControlOptions = {}): string {
  return escapeControls(text, options);
}
