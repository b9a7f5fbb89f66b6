import { describe, expect, it } from "vitest";
import { csvNumber, neutraliseFormula, toCsv } from "../../server/domain/cost-rollup.ts";

// CSV exports are data — a cell a spreadsheet would run as a formula is shown as text.
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

describe("CSV numbers are plain", () => {
  it.each([
    [0.5, 8, "0.5"],
    [0.01234567891, 8, "0.01234568"],
    [12, 4, "12"],
    [0, 8, "0"],
    [-0.000000001, 8, "0"],
    [1234567.5, 2, "1234567.5"],
    [null, 8, ""],
    [Number.NaN, 8, ""],
  ])("%s (%i places) → %j", (n, places, out) => expect(csvNumber(n, places)).toBe(out));
});
