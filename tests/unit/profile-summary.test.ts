import { describe, expect, it } from "vitest";
import { profileOptionLabel } from "../../components/tasks/launch/profile-summary.ts";
import { seedProfiles } from "../../server/db/seed.ts";

// The launch form's profile picker says what each profile is before it is picked: the seeded offline
// profiles used to read "— offline scripted model" alike, eleven times.

describe("the profile picker's lines", () => {
  it("says what each seeded offline profile plays, each differently", () => {
    const labels = seedProfiles.map((p) => profileOptionLabel(p));
    expect(new Set(labels).size).toBe(seedProfiles.length);
    expect(labels).toContain("scripted — Offline: the competent demo agent, playing the license-audit demo and the scenarios' README goal");
    expect(labels).toContain("scripted-loop — Offline scenario: the loop agent, which calls the same tool with identical arguments, again and again");
    for (const l of labels) expect(l.length).toBeLessThanOrEqual(140);
  });

  it("falls back on the model without a description, and cuts a long sentence at a word", () => {
    expect(profileOptionLabel({ name: "team", description: "", model: "gpt-4.1-mini" })).toBe("team — gpt-4.1-mini");
    const long = profileOptionLabel({ name: "x", description: `${"word ".repeat(40)}end.`, model: "m" });
    expect(long.endsWith("word…")).toBe(true);
    expect(long.length).toBeLessThanOrEqual(115);
  });
});
