import { describe, expect, it } from "vitest";
import { parseTimeFlag, sinceUntilProblem } from "../../scripts/lib/cli-dates.ts";

const now = new Date("2026-12-03T12:00:00Z");

describe("parseTimeFlag, the CLI's one parser of --since / --until", () => {
  it("takes a day, an ISO date-time with its zone, and Nd the same way in every command", () => {
    expect(parseTimeFlag({ flag: "since", value: "30d", accept: "instant", now })).toEqual({ value: "2026-11-03T12:00:00Z" });
    expect(parseTimeFlag({ flag: "since", value: "30d", accept: "day", now })).toEqual({ value: "2026-11-03" });
    expect(parseTimeFlag({ flag: "since", value: "2026-12-01T14:05:00Z", accept: "instant", now })).toEqual({ value: "2026-12-01T14:05:00Z" });
    expect(parseTimeFlag({ flag: "until", value: "2026-12-01", accept: "instant", now })).toEqual({ value: "2026-12-01" });
  });

  it("refuses words, zone-less times (and times where days are meant), naming the flag", () => {
    expect(parseTimeFlag({ flag: "since", value: "2026-12-01T14:05:00", accept: "instant", now }).problem).toMatch(/^--since: an ISO date-time/);
    expect(parseTimeFlag({ flag: "since", value: "2026-12-01T14:05:00Z", accept: "day", now }).problem).toMatch(/^--since: a date YYYY-MM-DD or a duration/);
    expect(parseTimeFlag({ flag: "until", value: "2026-02-30T00:00:00Z", accept: "instant", now }).problem).toMatch(/^--until: 2026-02-30 is not a day/);
  });

  it("orders --since and --until as instants", () => {
    expect(sinceUntilProblem("2026-12-05", "2026-12-01")).toBe("--since must be on or before --until");
    expect(sinceUntilProblem("2026-12-01", "2026-12-01")).toBeNull();
    expect(sinceUntilProblem("2026-12-01", "2026-12-01", true)).toBe("--since must be before --until");
    expect(sinceUntilProblem(undefined, "2026-12-01")).toBeNull();
  });
});
