import { describe, expect, it } from "vitest";
import { isBudgetStepKind, stepsApartLabel } from "../../lib/contracts/step-count.ts";

describe("step counts (lib/contracts/step-count.ts)", () => {
  it("counts model and tool steps in the budget, not checkpoint or human steps", () => {
    expect(["model", "tool", "checkpoint", "human"].map(isBudgetStepKind)).toEqual([true, true, false, false]);
  });

  it("labels the steps counted apart, singular and plural, and says nothing when there are none", () => {
    expect(stepsApartLabel({ checkpoints: 0, human: 0 })).toBeNull();
    expect(stepsApartLabel({ checkpoints: 1, human: 0 })).toBe("+ 1 checkpoint, not in the budget");
    expect(stepsApartLabel({ checkpoints: 2, human: 1 })).toBe("+ 2 checkpoints · 1 human step, not in the budget");
    expect(stepsApartLabel({ checkpoints: 0, human: 3 })).toBe("+ 3 human steps, not in the budget");
  });
});
