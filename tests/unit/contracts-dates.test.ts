import { describe, expect, it } from "vitest";
import { calendarDayProblem, filterInstantProblem } from "../../lib/contracts/dates.ts";
import { costFiltersSchema } from "../../server/domain/cost-rollup.ts";
import { listTasksInputSchema } from "../../server/api/routers/task.ts";
import { parseSince } from "../../scripts/lib/cli-costs.ts";

describe("calendar days the filters accept", () => {
  it.each([
    ["2026-12-01", null],
    ["2024-02-29", null],
    ["1970-01-01", null],
    ["2026-02-30", "2026-02-30 is not a day of the calendar"],
    ["2025-02-29", "2025-02-29 is not a day of the calendar"],
    ["2026-13-01", "2026-13-01 is not a day of the calendar"],
    ["0000-01-01", "the year must be from 1970 to 9999, got 0000"],
    ["1969-12-31", "the year must be from 1970 to 9999, got 1969"],
    ["2026-1-01", "expected a date YYYY-MM-DD"],
  ])("%s → %s", (value, problem) => {
    expect(calendarDayProblem(value)).toBe(problem);
  });

  it("instants outside the years are refused, NaN too", () => {
    expect(filterInstantProblem(new Date("2026-12-01T08:00:00Z"))).toBeNull();
    expect(filterInstantProblem(new Date("0001-01-01T00:00:00Z"))).toMatch(/year must be from 1970/);
    expect(filterInstantProblem(new Date(Number.NaN))).toBe("not a date");
  });

  it("task.list's since takes an instant with its zone and names itself when refused", () => {
    expect(listTasksInputSchema.parse({ since: "2026-12-02T14:05:00.123Z" }).since).toEqual(new Date("2026-12-02T14:05:00.123Z"));
    expect(listTasksInputSchema.parse({ since: "2026-12-02T15:05:00+01:00" }).since).toEqual(new Date("2026-12-02T14:05:00Z"));
    for (const bad of ["yesterday", "2026-12-02", "2026-12-02T14:05:00", "2026-13-02T14:05:00Z"])
      expect(listTasksInputSchema.safeParse({ since: bad }).error?.issues[0]?.message, bad).toMatch(/^since: not an instant/);
    expect(listTasksInputSchema.safeParse({ since: "0001-01-01T00:00:00Z" }).error?.issues[0]?.message).toMatch(/^since: the year must be from 1970/);
  });

  it("task.list, cost.rollup and the CLI refuse the same impossible days naming the field", () => {
    const list = listTasksInputSchema.safeParse({ from: "0000-01-01" });
    expect(list.success).toBe(false);
    expect(list.error?.issues[0]?.message).toBe("from: the year must be from 1970 to 9999, got 0000");
    expect(listTasksInputSchema.safeParse({ to: "2026-02-30" }).error?.issues[0]?.message).toMatch(/^to: (not a date|2026-02-30 is not a day)/);
    expect(listTasksInputSchema.safeParse({ from: "0001-01-01T00:00:00Z" }).error?.issues[0]?.message).toMatch(/^from: the year must be from 1970/);
    expect(listTasksInputSchema.safeParse({ from: "2026-12-02", to: "2026-12-01" }).error?.issues[0]?.message).toBe("from: must be before to");
    expect(listTasksInputSchema.safeParse({ from: "2026-12-01", to: "2026-12-02" }).success).toBe(true);
    const costs = costFiltersSchema.safeParse({ from: "2026-02-30" });
    expect(costs.error?.issues[0]).toMatchObject({ path: ["from"], message: "2026-02-30 is not a day of the calendar" });
    expect(() => parseSince("2026-02-30")).toThrow(/--since: 2026-02-30 is not a day of the calendar/);
    expect(parseSince("2026-02-28")).toBe("2026-02-28");
  });
});
