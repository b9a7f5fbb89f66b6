import { realpath, stat } from "node:fs/promises";
import { resolve, sep } from "node:path";
import { ulid } from "ulid";
import type { LaunchPorts } from "../domain/launch-task.ts";
import { licenseAuditGoal } from "../tools/demo/license-audit.ts";
import { env } from "../env.ts";
import type { PrismaClient } from "./client.ts";
import { failUndeliveredStart } from "./run-repository.ts";
import { discoverMcpToolSnapshot, parseProfileMcpSelections } from "../tools/mcp/discover-tools.ts";
import type { McpSelection } from "../../lib/contracts/mcp.ts";

/**
 * The launch's ports over Prisma, with `sendRunStarted` supplied by the caller (the Inngest client
 * in the web app; tests may pass their own).
 */
export function prismaLaunchPorts({
  prisma,
  sendRunStarted,
  defaultWorkspace = env().LONGHAUL_WORKSPACE ?? process.cwd(),
  workspaceRoots = (env().LONGHAUL_WORKSPACE_ROOTS ?? "")
    .split(",")
    .map((r) => r.trim())
    .filter(Boolean),
}: {
  prisma: PrismaClient;
  sendRunStarted: LaunchPorts["sendRunStarted"];
  defaultWorkspace?: string;
  /** Folders a launch's workspace must lie in (default: the default workspace alone). */
  workspaceRoots?: string[];
}): LaunchPorts {
  const roots = (workspaceRoots.length ? workspaceRoots : [defaultWorkspace]).map((r) => resolve(r));
  return {
    defaultWorkspace: resolve(defaultWorkspace),
    newId: (prefix) => `${prefix}_${ulid().toLowerCase()}`,
    demoGoal: licenseAuditGoal,
    async findTaskByLaunchKey(launchKey) {
      const task = await prisma.task.findUnique({ where: { launchKey }, include: { runs: { orderBy: { startedAt: "asc" }, take: 1 } } });
      return task ? { taskId: task.id, runId: task.runs[0]?.id ?? null, goal: task.goal } : null;
    },
    async findProfile(name) {
      const p = await prisma.agentProfile.findUnique({ where: { name } });
      return p
        ? {
            id: p.id,
            stepBudget: p.stepBudget,
            tokenBudget: p.tokenBudget,
            costBudgetUsd: p.costBudgetUsd === null ? null : Number(p.costBudgetUsd),
            requireApproval: p.requireApproval,
            egress: { egressEmailAllow: p.egressEmailAllow, egressHttpAllow: p.egressHttpAllow, egressOnBreach: p.egressOnBreach },
            // The one read of a profile's MCP selection (the profiles lane may move it to profile versions).
            mcpServers: parseProfileMcpSelections(p.mcpServers, p.name),
          }
        : null;
    },
    discoverMcpTools: (selections) => discoverMcpToolSnapshot({ prisma, selections: selections as McpSelection[] }),
    async workspaceAllowed(path) {
      const real = await realpath(resolve(path));
      for (const root of roots) {
        const realRoot = await realpath(root).catch(() => null);
        if (realRoot && (real === realRoot || real.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep))) return { ok: true };
      }
      return { ok: false, roots };
    },
    async workspaceIsDirectory(path) {
      try {
        return (await stat(path)).isDirectory();
      } catch {
        return false;
      }
    },
    async createTaskWithRun(d) {
      await prisma.$transaction([
        prisma.task.create({
          data: {
            id: d.taskId,
            goal: d.goal,
            profileId: d.profileId,
            stepBudget: d.stepBudget,
            tokenBudget: d.tokenBudget,
            costBudgetUsd: d.costBudgetUsd === null ? null : d.costBudgetUsd.toFixed(6),
            requireApproval: d.requireApproval,
            workspace: resolve(d.workspace),
            input: d.input as never,
            launchKey: d.launchKey,
            createdBy: d.createdBy,
            ...(d.mcpTools ? { mcpTools: d.mcpTools as never } : {}),
          },
        }),
        prisma.run.create({ data: { id: d.runId, taskId: d.taskId, cause: "initial", status: "running" } }),
      ]);
    },
    sendRunStarted,
    failLaunch: ({ taskId, runId }, error) => failUndeliveredStart({ prisma, taskId, runId, error }),
  };
}
