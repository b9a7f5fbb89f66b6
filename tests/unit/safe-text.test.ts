import { describe, expect, it } from "vitest";
import { controlParts, escapeControls, hasControls } from "../../lib/contracts/safe-text.ts";
import { terminalSafe } from "../../scripts/lib/cli-text.ts";

describe("safe text: one rule for the pages and the CLI", () => {
  const hostile = "dead end: \u202eevil\u202c \u001b[2J\u0007 \u2066x\u2069\u2028y";

  it("replaces bidi controls, C0/C1 controls and line separators with visible escapes", () => {
    expect(escapeControls(hostile)).toBe("dead end: \\u202eevil\\u202c \\x1b[2J\\x07 \\u2066x\\u2069\\u2028y");
    expect(escapeControls("a\nb\tc", { newlines: true })).toBe("a\nb\\tc");
    expect(escapeControls("a\nb\tc", { newlines: true, tabs: true })).toBe("a\nb\tc");
    expect(escapeControls("Zusammenfassung — 日本語 ✓ مرحبا C:\\dir")).toBe("Zusammenfassung — 日本語 ✓ مرحبا C:\\dir");
  });

  it("cuts text into plain runs and marked escapes that join back to the escaped text", () => {
    const parts = controlParts("ab\u202ecd\u0007");
    expect(parts).toEqual([{ text: "ab" }, { escape: "\\u202e", codePoint: 0x202e }, { text: "cd" }, { escape: "\\x07", codePoint: 7 }]);
    for (const text of [hostile, "", "plain", "\u202e", "x\ny"]) {
      const joined = controlParts(text)
        .map((p) => ("text" in p ? p.text : p.escape))
        .join("");
      expect(joined).toBe(escapeControls(text));
    }
    expect(controlParts("a\nb", { newlines: true })).toEqual([{ text: "a\nb" }]);
  });

  it("says whether a text holds a control", () => {
    expect(hasControls("plain — 日本語")).toBe(false);
    expect(hasControls("x\u202e")).toBe(true);
    expect(hasControls("a\nb", { newlines: true })).toBe(false);
  });

  it("the CLI's terminalSafe is the same rule", () => {
    expect(terminalSafe(hostile)).toBe(escapeControls(hostile));
    expect(terminalSafe("one\ntwo\u001b", { multiline: true })).toBe(escapeControls("one\ntwo\u001b", { newlines: true }));
  });
});
