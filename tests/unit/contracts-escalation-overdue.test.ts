import { describe, expect, it } from "vitest";
import { assigneeFilterOptions, assigneeUser, assigneeWords, inboxCounts, isEscalationOverdue, waitsOn } from "../../lib/contracts/escalation.ts";
import { isoUtc } from "../../lib/contracts/dates.ts";

const now = new Date("2026-12-02T05:14:00Z");
const past = new Date("2026-12-02T05:13:59Z");
const future = new Date("2026-12-02T06:14:00Z");

describe("isEscalationOverdue: the one overdue rule (inbox, card, API, CLI)", () => {
  it("is overdue once an open escalation's due time has passed", () => {
    expect(isEscalationOverdue({ status: "open", dueAt: past, notifications: 1 }, now)).toBe(true);
    expect(isEscalationOverdue({ status: "open", dueAt: future, notifications: 1 }, now)).toBe(false);
  });
  it("stays overdue after a reminder pushed dueAt forward (re-escalation along the chain)", () => {
    expect(isEscalationOverdue({ status: "open", dueAt: future, notifications: 2 }, now)).toBe(true);
  });
  it("is never overdue once decided or applied, whatever the clock", () => {
    for (const status of ["decided", "applying", "applied"]) expect(isEscalationOverdue({ status, dueAt: past, notifications: 3 }, now)).toBe(false);
  });
  it("accepts a serialised dueAt (the CLI reads JSON) and a missing notification count", () => {
    expect(isEscalationOverdue({ status: "open", dueAt: past.toISOString() }, now)).toBe(true);
    expect(isEscalationOverdue({ status: "open", dueAt: future.toISOString(), notifications: null }, now)).toBe(false);
  });
});

describe("isoUtc: one absolute-time format for messages and exports", () => {
  it("is ISO 8601 with the zone, to the second", () => {
    expect(isoUtc(new Date("2026-12-02T05:14:00.789Z"))).toBe("2026-12-02T05:14:00Z");
    expect(isoUtc("2026-12-02T05:14:00.000Z")).toBe("2026-12-02T05:14:00Z");
  });
  it("is empty for an invalid date", () => {
    expect(isoUtc(new Date(Number.NaN))).toBe("");
  });
});

describe("the nav's inbox badge counts what waits on the signed-in handler", () => {
  const me = { name: "hana", roles: ["handler"] };
  const row = (over: Partial<{ status: string; assigneeRole: string; claimedBy: string | null; dueAt: Date; notifications: number }>) => ({
    status: "open",
    assigneeRole: "handler",
    claimedBy: null,
    dueAt: future,
    notifications: 1,
    ...over,
  });
  it("counts unclaimed ones routed to a role they hold and ones they claimed, not others' claims or other roles", () => {
    expect(waitsOn(row({}), me)).toBe(true);
    expect(waitsOn(row({ assigneeRole: "admin", claimedBy: "hana" }), me)).toBe(true);
    expect(waitsOn(row({ claimedBy: "bo" }), me)).toBe(false);
    expect(waitsOn(row({ assigneeRole: "admin" }), me)).toBe(false);
    expect(waitsOn(row({ status: "decided" }), me)).toBe(false);
  });
  it("counts one routed to them by name (a chain's user:<display name>, case-insensitive), not to other holders of their roles", () => {
    expect(waitsOn(row({ assigneeRole: "user:Hana" }), me)).toBe(true);
    expect(waitsOn(row({ assigneeRole: "user:Dana" }), me)).toBe(false);
    expect(waitsOn(row({ assigneeRole: "user:Hana", claimedBy: "bo" }), me)).toBe(false);
    expect(assigneeUser("user:Dana Reyes")).toBe("Dana Reyes");
    expect(assigneeUser("handler")).toBeNull();
    expect(assigneeWords("handler")).toBe("role handler");
    expect(assigneeWords("user:Dana Reyes")).toBe("Dana Reyes");
  });
  it("says how many of those are overdue, by the same rule as the inbox", () => {
    const rows = [row({}), row({ dueAt: past }), row({ notifications: 2 }), row({ dueAt: past, claimedBy: "bo" }), row({ assigneeRole: "admin", dueAt: past })];
    expect(inboxCounts(rows, me, now)).toEqual({ open: 3, overdue: 2 });
    expect(inboxCounts(rows, { name: "ada", roles: ["handler", "admin"] }, now)).toEqual({ open: 4, overdue: 3 });
  });
});

describe("the inbox's assignee filter suggestions", () => {
  it('shows a person by name ("Ada (user)"), never as user:<name>, filtering by the name; roles apart', () => {
    const options = assigneeFilterOptions({
      me: "Hana",
      claimants: ["bo", null, "hana"],
      assignees: ["handler", "user:Ada", "operator", "user:ada", "handler"],
    });
    expect(options).toEqual([
      { value: "Hana", label: "Hana (user)" },
      { value: "Ada", label: "Ada (user)" },
      { value: "bo", label: "bo (user)" },
      { value: "handler", label: "handler (role)" },
      { value: "operator", label: "operator (role)" },
    ]);
    expect(options.some((o) => o.value.startsWith("user:") || o.label.includes("user:"))).toBe(false);
  });
});
