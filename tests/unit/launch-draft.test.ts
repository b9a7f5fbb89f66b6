import { describe, expect, it } from "vitest";
import { readLaunchDraft, type LaunchDraft } from "../../components/tasks/launch/use-launch-draft.ts";

const draft: LaunchDraft = {
  mode: "goal",
  demoKind: "license-audit",
  limit: "50",
  goal: "Summarise",
  profile: "scripted",
  budgets: { stepBudget: "37", tokenBudget: "", costBudget: "" },
  workspace: "",
  factsText: "",
  approvalChoice: null,
};

describe("the launch form's stored draft", () => {
  it("comes back as it was stored", () => {
    expect(readLaunchDraft(JSON.stringify(draft))).toEqual(draft);
  });
  it("is ignored when missing, not JSON, or not a draft this version wrote", () => {
    expect(readLaunchDraft(null)).toBeNull();
    expect(readLaunchDraft("{not json")).toBeNull();
    expect(readLaunchDraft(JSON.stringify({ ...draft, mode: "other" }))).toBeNull();
    expect(readLaunchDraft(JSON.stringify({ ...draft, goal: 3 }))).toBeNull();
    expect(readLaunchDraft(JSON.stringify({ ...draft, budgets: { stepBudget: 37 } }))).toBeNull();
    expect(readLaunchDraft(JSON.stringify({ ...draft, approvalChoice: "yes" }))).toBeNull();
    expect(readLaunchDraft("null")).toBeNull();
  });
});
