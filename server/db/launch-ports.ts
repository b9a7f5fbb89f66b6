import { realpath, stat } from "node:fs/promises";
import { resolve, sep } from "node:path";
import { ulid } from "ulid";
import type { LaunchPorts } from "../domain/launch-task.ts";
import { licenseAuditGoal } from "../tools/demo/license-audit.ts";
import { env } from "../env.ts";
import { deploymentEgressPolicy } from "../domain/egress-policy.ts";
import type { PrismaClient } from "./client.ts";
import { failUndeliveredStart } from "./run-repository.ts";
import { currentProfileVersion } from "./task-profile.ts";
import { discoverMcpToolSnapshot } from "../tools/mcp/discover-tools.ts";
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
  deploymentEgress = deploymentEgressPolicy(env()),
}: {
  prisma: PrismaClient;
  sendRunStarted: LaunchPorts["sendRunStarted"];
  defaultWorkspace?: string;
  /** Folders a launch's workspace must lie in (default: the default workspace alone). */
  workspaceRoots?: string[];
  /** The deployment's egress policy (default: from env()). */
  deploymentEgress?: LaunchPorts["deploymentEgress"];
}): LaunchPorts {
  const roots = (workspaceRoots.length ? workspaceRoots : [defaultWorkspace]).map((r) => resolve(r));
  return {
    defaultWorkspace: resolve(defaultWorkspace),
    deploymentEgress,
    newId: (prefix) => `${prefix}_${ulid().toLowerCase()}`,
    demoGoal: licenseAuditGoal,
    async findTaskByLaunchKey(launchKey) {
      const task = await prisma.task.findUnique({ where: { launchKey }, include: { runs: { orderBy: { startedAt: "asc" }, take: 1 } } });
      return task ? { taskId: task.id, runId: task.runs[0]?.id ?? null, goal: task.goal } : null;
    },
    async findProfile(name) {
      // The defaults come from the profile's current version, and the task records that version.
      const found = await prisma.agentProfile.findUnique({ where: { name }, select: { id: true, archivedAt: true } });
      if (!found) return null;
      const v = await currentProfileVersion({ prisma, profileId: found.id });
      const p = v.spec;
      return {
        id: found.id,
        versionId: v.versionId,
        archived: found.archivedAt !== null,
        stepBudget: p.stepBudget,
        tokenBudget: p.tokenBudget,
        costBudgetUsd: p.costBudgetUsd,
        requireApproval: p.requireApproval,
        egress: { egressEmailAllow: p.egressEmailAllow, egressHttpAllow: p.egressHttpAllow, egressOnBreach: p.egressOnBreach },
        // The MCP servers and tools the version selects (validated by its snapshot schema).
        mcpServers: p.mcpServers,
      };
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
            profileVersionId: d.profileVersionId,
            stepBudget: d.stepBudget,
            tokenBudget: d.tokenBudget,
            costBudgetUsd: d.costBudgetUsd === null ? null : d.costBudgetUsd.toFixed(6),
            requireApproval: d.requireApproval,
            workspace: resolve(d.workspace),
            input: d.input as never,
            launchKey: d.launchKey,
            createdBy: d.createdBy,
            ...(d.mcpTools ? { mcpTools: d.mcpTools as never } : {}),
            ...(d.templateId ? { templateId: d.templateId } : {}),
          },
        }),
        prisma.run.create({ data: { id: d.runId, taskId: d.taskId, cause: "initial", status: "running" } }),
      ]);
    },
    sendRunStarted,
    failLaunch: ({ taskId, runId }, error) => failUndeliveredStart({ prisma, taskId, runId, error }),
  };
}
