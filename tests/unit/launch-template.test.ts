import { describe, expect, it } from "vitest";
import { AppError } from "../../server/errors.ts";
import {
  evalCaseLaunchFromTemplate,
  launchFromTemplate,
  parseTemplateLaunch,
  templateHistory,
  templateLaunchFromEvalCase,
  templateLaunchFromTask,
  templateLaunchWithHistory,
  templateNameSchema,
} from "../../server/domain/launch-template.ts";

const task = {
  goal: "Summarise the README",
  profileName: "scripted",
  stepBudget: 40,
  tokenBudget: null,
  costBudgetUsd: 0.5,
  requireApproval: true,
  workspace: "/srv/ws",
  input: { facts: { owner: "ops" } },
};

describe("launch templates (pure)", () => {
  it("keeps a goal task's shape: goal, profile, budgets, approval, workspace, facts", () => {
    expect(templateLaunchFromTask(task)).toEqual({
      goal: "Summarise the README",
      profile: "scripted",
      stepBudget: 40,
      costBudgetUsd: 0.5,
      requireApproval: true,
      workspace: "/srv/ws",
      facts: { owner: "ops" },
    });
  });

  it("keeps a demo as its kind and limit, not its generated goal", () => {
    const t = templateLaunchFromTask({ ...task, goal: "Audit the licences of 7 packages …", input: { demo: "license-audit", limit: 7 } });
    expect(t.goal).toBeUndefined();
    expect(t.demo).toEqual({ kind: "license-audit", limit: 7 });
  });

  it("drops launchKey and refuses what a launch would refuse", () => {
    expect(parseTemplateLaunch({ goal: "g", launchKey: "abcdefgh-1" })).not.toHaveProperty("launchKey");
    expect(() => parseTemplateLaunch({ goal: "g", demo: { kind: "license-audit", limit: 1 } })).toThrow(AppError);
    expect(() => parseTemplateLaunch({ goal: "g", stepBudget: 0 })).toThrow(/stepBudget: at least 1/);
  });

  it("lays the launch's overrides over the template and validates the result", () => {
    const launch = parseTemplateLaunch({ goal: "g", profile: "p", stepBudget: 10 });
    expect(launchFromTemplate(launch, { stepBudget: 25, tokenBudget: undefined, launchKey: "key-12345" })).toMatchObject({
      goal: "g",
      profile: "p",
      stepBudget: 25,
      launchKey: "key-12345",
    });
    expect(() => launchFromTemplate(launch, { stepBudget: -1 })).toThrow(/stepBudget/);
  });

  it("turns an eval case's launch into a template's and back", () => {
    const caseLaunch = { demo: { kind: "license-audit", limit: 3 }, stepBudget: 30 };
    const t = templateLaunchFromEvalCase(caseLaunch, "scripted-sloppy");
    expect(t.profile).toBe("scripted-sloppy");
    expect(evalCaseLaunchFromTemplate(t)).toEqual({ ...caseLaunch });
  });

  it("names are kebab-case", () => {
    expect(templateNameSchema.safeParse("weekly-audit-2").success).toBe(true);
    expect(templateNameSchema.safeParse("Weekly audit").success).toBe(false);
    expect(templateNameSchema.safeParse("a--b").success).toBe(false);
  });
});

describe("budgets from a template's history", () => {
  const fallback = { stepBudget: 40, tokenBudget: null, costBudgetUsd: 0.5 };
  it("suggests ceil(p90 × 1.25) from 3+ completed tasks, with p50/p90 of steps and cost", () => {
    // steps [10, 20, 30, 40]: p50 25, p90 = 30 + 0.7·10 = 37 → ceil(46.25) = 47.
    // usd [0.01, 0.02, 0.03, 0.04]: p50 0.025, p90 0.037 → budget 0.04625.
    const h = templateHistory(
      [10, 20, 30, 40].map((s) => ({ steps: s, tokens: s * 100, costUsd: s / 1000 })),
      fallback,
    );
    expect(h).toMatchObject({ basis: "history", samples: 4, stepsP50: 25, stepsP90: 37, stepBudget: 47, tokenBudget: 4625, costBudgetUsd: 0.04625 });
    expect(h.costP50Usd).toBe(0.025);
    expect(h.costP90Usd).toBe(0.037);
    expect(h.note).toContain("4 completed tasks");
  });

  it("keeps the template's budgets with fewer than 3 completed tasks and says why", () => {
    const h = templateHistory([{ steps: 12, tokens: 100, costUsd: 0.01 }], fallback);
    expect(h).toMatchObject({ basis: "default", samples: 1, stepBudget: 40, costBudgetUsd: 0.5, costP50Usd: 0.01 });
    expect(h.note).toMatch(/no history yet \(1 completed task, 3 needed\)/);
  });

  it("has no figures at all without history", () => {
    expect(templateHistory([], fallback)).toMatchObject({ samples: 0, stepsP50: null, costP90Usd: null, stepBudget: 40 });
  });

  // steps [13, 14, 15, 17] as in a run of a template: p90 = 15 + 0.7·2 = 16.4 → ceil(20.5) = 21.
  const history = templateHistory(
    [13, 14, 15, 17].map((s) => ({ steps: s, tokens: s * 1000, costUsd: s / 1000 })),
    { stepBudget: 200, tokenBudget: null, costBudgetUsd: null },
  );
  const launch = { demo: { kind: "mcp-audit", limit: 2 }, profile: "mcp-audit", stepBudget: 200 };

  it("applies the history's budgets when the overrides hold untouched fields as undefined (as the form and the CLI send them)", () => {
    const untouched = { stepBudget: undefined, tokenBudget: undefined, costBudgetUsd: undefined, launchKey: "launch-key-1" };
    const { input, budgetBasis } = templateLaunchWithHistory({ name: "weekly", launch, history, overrides: untouched });
    expect([input.stepBudget, input.tokenBudget, input.costBudgetUsd, input.launchKey]).toEqual([21, 20500, 0.0205, "launch-key-1"]);
    expect(budgetBasis).toMatchObject({ source: "template", name: "weekly", samples: 4, stepsP90: 16.4, ceilings: ["steps", "tokens", "cost"] });
  });

  it("lets an explicit override win, and records only the ceilings that came from history", () => {
    const { input, budgetBasis } = templateLaunchWithHistory({ name: "weekly", launch, history, overrides: { stepBudget: 300, costBudgetUsd: undefined } });
    expect([input.stepBudget, input.tokenBudget, input.costBudgetUsd]).toEqual([300, 20500, 0.0205]);
    expect(budgetBasis?.ceilings).toEqual(["tokens", "cost"]);
  });

  it("keeps the template's budgets without enough history, and records no basis", () => {
    const few = templateHistory([{ steps: 5, tokens: 10, costUsd: 0.001 }], { stepBudget: 200, tokenBudget: null, costBudgetUsd: null });
    const { input, budgetBasis } = templateLaunchWithHistory({ name: "weekly", launch, history: few, overrides: { stepBudget: undefined } });
    expect(input.stepBudget).toBe(200);
    expect(budgetBasis).toBeNull();
  });
});
