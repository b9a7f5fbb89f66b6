import { describe, expect, it } from "vitest";
import { launchTask, launchTaskInputSchema } from "../../server/domain/launch-task.ts";
import { fakeLaunchPorts } from "../support/fake-launch-ports.ts";

/** The fake launch ports with one profile (any name) whose requireApproval is `profileRequiresApproval` (absent when undefined). */
function ports(profileRequiresApproval: boolean | undefined) {
  const { ports: p, created } = fakeLaunchPorts({
    findProfile: async () => ({
      id: "p1",
      stepBudget: 10,
      tokenBudget: null,
      ...(profileRequiresApproval === undefined ? {} : { requireApproval: profileRequiresApproval }),
    }),
    workspaceIsDirectory: async () => true,
  });
  return { p, created };
}

describe("launch: requireApproval", () => {
  it("defaults to the profile's, and an explicit choice wins either way", async () => {
    for (const [profile, input, expected] of [
      [true, undefined, true],
      [false, undefined, false],
      [undefined, undefined, false],
      [true, false, false],
      [false, true, true],
    ] as const) {
      const { p, created } = ports(profile);
      await launchTask({
        input: launchTaskInputSchema.parse({ goal: "g", ...(input === undefined ? {} : { requireApproval: input }) }),
        actor: "op",
        ports: p,
      });
      expect({ profile, input, stored: created[0]!.requireApproval }).toEqual({ profile, input, stored: expected });
    }
  });

  it("keeps launch idempotency: a repeated key with another choice creates nothing", async () => {
    const { p, created } = ports(false);
    const first = await launchTask({
      input: launchTaskInputSchema.parse({ goal: "g", requireApproval: true, launchKey: "key-12345678" }),
      actor: "op",
      ports: p,
    });
    const again = await launchTask({
      input: launchTaskInputSchema.parse({ goal: "g", requireApproval: false, launchKey: "key-12345678" }),
      actor: "op",
      ports: p,
    });
    expect(again).toEqual({ taskId: first.taskId, runId: first.runId, deduplicated: true });
    expect(created.map((c) => c.requireApproval)).toEqual([true]);
  });

  it("refuses a non-boolean, naming the field", () => {
    expect(launchTaskInputSchema.safeParse({ goal: "g", requireApproval: "yes" }).error?.issues[0]?.message).toBe("requireApproval: true or false");
  });
});
