import { describe, expect, it } from "vitest";
import { terminalSafe } from "../../scripts/lib/cli-text.ts";

describe("terminalSafe", () => {
  it("escapes terminal escape sequences, C0/C1 controls and newlines of a one-line field", () => {
    expect(terminalSafe("\u001b[2Jgone")).toBe("\\x1b[2Jgone");
    expect(terminalSafe("\u001b]0;pwned\u0007x")).toBe("\\x1b]0;pwned\\x07x");
    expect(terminalSafe("a\nb\r\tc\u0000\u007f\u009b")).toBe("a\\nb\\r\\tc\\x00\\x7f\\x9b");
  });

  it("escapes bidi controls and line separators, keeps other text", () => {
    expect(terminalSafe("invoice\u202egpj.exe")).toBe("invoice\\u202egpj.exe");
    expect(terminalSafe("\u2066\u2067\u2068\u2069\u200e\u200f\u202a\u2028")).toBe("\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u202a\\u2028");
    expect(terminalSafe("Zusammenfassung — 日本語 ✓ C:\\dir")).toBe("Zusammenfassung — 日本語 ✓ C:\\dir");
  });

  it("keeps newlines with multiline: true", () => {
    expect(terminalSafe("one\ntwo\u001b", { multiline: true })).toBe("one\ntwo\\x1b");
  });
});
