import { deploymentEgressPolicy } from "../../server/domain/egress-policy.ts";
import type { LaunchPorts } from "../../server/domain/launch-task.ts";

/** What a {@link fakeLaunchPorts} recorded. */
export interface FakeLaunch {
  ports: LaunchPorts;
  /** Every `createTaskWithRun` call's data, in order. */
  created: Parameters<LaunchPorts["createTaskWithRun"]>[0][];
  /** Every `sendRunStarted` event, in order. */
  sent: { taskId: string; runId: string }[];
  /** Every `failLaunch` call as `<taskId>: <error>`. */
  failed: string[];
}

/**
 * In-memory launch ports for unit tests of `launchTask` (no database): default workspace `/ws`; ids
 * `<prefix>_<n>` counting from 1; demo goal `audit <limit>`; launch keys looked up among the created
 * tasks; one profile, `scripted` (id p1, 400 steps, no token budget); directories `/ws` and `/outside…`;
 * allowed root `/ws` only (anything under `/outside` is refused). `overrides` replace single ports.
 */
export function fakeLaunchPorts(overrides: Partial<LaunchPorts> = {}): FakeLaunch {
  const created: FakeLaunch["created"] = [];
  const sent: FakeLaunch["sent"] = [];
  const failed: string[] = [];
  let n = 0;
  const ports: LaunchPorts = {
    defaultWorkspace: "/ws",
    deploymentEgress: deploymentEgressPolicy({}),
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
