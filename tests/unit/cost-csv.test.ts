import { describe, expect, it } from "vitest";
import { neutraliseFormula, toCsv } from "../../server/domain/cost-rollup.ts";

// Issue 18: CSV exports are data — a cell a spreadsheet would run as a formula is shown as text.
describe("CSV cells against formula injection", () => {
  it.each([
    ['=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'],
    ["+1+2", "'+1+2"],
    ["-2+3", "'-2+3"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\tcmd", "'\tcmd"],
    ["\rcmd", "'\rcmd"],
    ["-0.5", "-0.5"],
    ["12", "12"],
    ["scripted", "scripted"],
  ])("%j → %j", (cell, out) => expect(neutraliseFormula(cell)).toBe(out));

  it("toCsv neutralises, then quotes", () => {
    expect(
      toCsv(
        ["profile", "cost"],
        [
          ["=1+1", "0.5"],
          ["a,b", "-1"],
        ],
      ),
    ).toBe('profile,cost\r\n\'=1+1,0.5\r\n"a,b",-1\r\n');
  });
});
