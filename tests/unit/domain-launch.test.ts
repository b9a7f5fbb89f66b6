import { describe, expect, it } from "vitest";
import { launchTask, launchTaskInputSchema, type LaunchPorts } from "../../server/domain/launch-task.ts";
import { AppError } from "../../server/errors.ts";

function fakePorts(overrides: Partial<LaunchPorts> = {}) {
  const created: Parameters<LaunchPorts["createTaskWithRun"]>[0][] = [];
  const sent: { taskId: string; runId: string }[] = [];
  const failed: string[] = [];
  let n = 0;
  const ports: LaunchPorts = {
    defaultWorkspace: "/ws",
    newId: (prefix) => `${prefix}_${++n}`,
    demoGoal: (limit) => `audit ${limit}`,
    findTaskByLaunchKey: async (key) => {
      const t = created.find((c) => c.launchKey === key);
      return t ? { taskId: t.taskId, runId: t.runId } : null;
    },
    findProfile: async (name) => (name === "scripted" ? { id: "p1", stepBudget: 400, tokenBudget: null } : null),
    workspaceIsDirectory: async (p) => p === "/ws" || p.startsWith("/outside"),
    workspaceAllowed: async (p: string) => (p.startsWith("/outside") ? { ok: false as const, roots: ["/ws"] } : { ok: true as const }),
    createTaskWithRun: async (d) => {
      created.push(d);
    },
    sendRunStarted: async (e) => {
      sent.push(e);
    },
    failLaunch: async ({ taskId }, error) => {
      failed.push(`${taskId}: ${error}`);
    },
    ...overrides,
  };
  return { ports, created, sent, failed };
}

const parse = (v: unknown) => launchTaskInputSchema.parse(v);

describe("launchTask", () => {
  it("creates the task and its run and sends run.started once; a repeated launch key creates nothing", async () => {
    const { ports, created, sent } = fakePorts();
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
    const { ports, created } = fakePorts();
    await launchTask({ input: parse({ demo: { kind: "license-audit", limit: 500 } }), actor: "op", ports });
    expect(created[0]!.stepBudget).toBeGreaterThan(1000);
  });

  it("refuses an unknown profile and a workspace that is not a directory, naming the field", async () => {
    const { ports, created } = fakePorts();
    await expect(launchTask({ input: parse({ goal: "g", profile: "nope" }), actor: "op", ports })).rejects.toThrow(/profile: no agent profile named "nope"/);
    await expect(launchTask({ input: parse({ goal: "g", workspace: "/elsewhere" }), actor: "op", ports })).rejects.toThrow(/workspace: "\/elsewhere" is not a directory/);
    await expect(launchTask({ input: parse({ goal: "g", workspace: "/outside/x" }), actor: "op", ports })).rejects.toThrow(
      'workspace: "/outside/x" is outside the allowed roots (/ws); an administrator can add roots with LONGHAUL_WORKSPACE_ROOTS',
    );
    expect(created).toHaveLength(0);
  });

  it("marks the task failed with the reason when the event cannot be delivered, and reports UNAVAILABLE", async () => {
    const { ports, failed } = fakePorts({
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
