import { describe, expect, it } from "vitest";
import { launchTask, launchTaskInputSchema } from "../../server/domain/launch-task.ts";
import { AppError } from "../../server/errors.ts";
import { fakeLaunchPorts } from "../support/fake-launch-ports.ts";

const parse = (v: unknown) => launchTaskInputSchema.parse(v);

describe("launchTask", () => {
  it("creates the task and its run and sends run.started once; a repeated launch key creates nothing", async () => {
    const { ports, created, sent } = fakeLaunchPorts();
    const input = parse({ demo: { kind: "license-audit", limit: 20 }, launchKey: "key-12345678" });
    const first = await launchTask({ input, actor: "op", ports });
    const second = await launchTask({ input, actor: "op", ports });
    expect(first.deduplicated).toBe(false);
    expect(second).toEqual({ taskId: first.taskId, runId: first.runId, deduplicated: true });
    expect(created).toHaveLength(1);
    expect(sent).toEqual([{ taskId: first.taskId, runId: first.runId }]);
    expect(created[0]!.goal).toBe("audit 20");
    expect(created[0]!.stepBudget).toBe(400);
  });

  it("gives a large demo enough steps by default", async () => {
    const { ports, created } = fakeLaunchPorts();
    await launchTask({ input: parse({ demo: { kind: "license-audit", limit: 500 } }), actor: "op", ports });
    expect(created[0]!.stepBudget).toBeGreaterThan(1000);
  });

  it("refuses an unknown profile and a workspace that is not a directory, naming the field", async () => {
    const { ports, created } = fakeLaunchPorts();
    await expect(launchTask({ input: parse({ goal: "g", profile: "nope" }), actor: "op", ports })).rejects.toThrow(/profile: no agent profile named "nope"/);
    await expect(launchTask({ input: parse({ goal: "g", workspace: "/elsewhere" }), actor: "op", ports })).rejects.toThrow(
      /workspace: "\/elsewhere" is not a directory/,
    );
    await expect(launchTask({ input: parse({ goal: "g", workspace: "/outside/x" }), actor: "op", ports })).rejects.toThrow(
      'workspace: "/outside/x" is outside the allowed roots (/ws); an administrator can add roots with LONGHAUL_WORKSPACE_ROOTS',
    );
    expect(created).toHaveLength(0);
  });

  it("marks the task failed with the reason when the event cannot be delivered, and reports UNAVAILABLE", async () => {
    const { ports, failed } = fakeLaunchPorts({
      sendRunStarted: async () => {
        throw new Error("ECONNREFUSED");
      },
    });
    const err = await launchTask({ input: parse({ goal: "g" }), actor: "op", ports }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("UNAVAILABLE");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatch(/ECONNREFUSED/);
  });

  it("validates input: goal xor demo, limits named", () => {
    expect(launchTaskInputSchema.safeParse({}).success).toBe(false);
    expect(launchTaskInputSchema.safeParse({ goal: "g", demo: { kind: "license-audit", limit: 1 } }).success).toBe(false);
    const tooMany = launchTaskInputSchema.safeParse({ demo: { kind: "license-audit", limit: 6000 } });
    expect(tooMany.success).toBe(false);
    expect(JSON.stringify(tooMany.error?.issues)).toContain("demo.limit: at most 5000");
  });
});

describe("launch facts limits", () => {
  it("accepts facts up to the limits and refuses past them, naming the field and the limit", () => {
    const ok = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, "x".repeat(16_000)]));
    expect(launchTaskInputSchema.safeParse({ goal: "g", facts: ok }).success).toBe(true);
    const tooMany = Object.fromEntries(Array.from({ length: 1_001 }, (_, i) => [`k${i}`, i]));
    expect(launchTaskInputSchema.safeParse({ goal: "g", facts: tooMany }).error?.issues.map((i) => i.message)).toEqual([
      "facts: at most 1000 facts per launch (got 1001)",
    ]);
    const tooBig = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`k${i}`, "x".repeat(16_000)]));
    expect(launchTaskInputSchema.safeParse({ goal: "g", facts: tooBig }).error?.issues.map((i) => i.message)).toEqual([
      expect.stringMatching(/^facts: at most 1048576 bytes of JSON in all \(got 112\d{4}\)/),
    ]);
    expect(launchTaskInputSchema.safeParse({ goal: "g", facts: { ["k".repeat(201)]: 1, nan: Number.NaN } }).error?.issues.map((i) => i.message)).toEqual([
      "facts: a fact key has at most 200 characters (got 201)",
      'facts: "nan": not plain JSON (NaN, Infinity or a non-JSON object)',
    ]);
  });
});
