import { realpath, stat } from "node:fs/promises";
import { resolve, sep } from "node:path";
import { ulid } from "ulid";
import type { LaunchPorts } from "../domain/launch-task.ts";
import { env } from "../env.ts";
import { deploymentEgressPolicy } from "../domain/egress-policy.ts";
import type { PrismaClient } from "./client.ts";
import { failUndeliveredStart } from "./run-repository.ts";
import { currentProfileVersion } from "./task-profile.ts";
import { unresolvedLaunchReferences } from "./reference-checks.ts";
import type { McpSelection } from "../../lib/contracts/mcp.ts";
import type { McpToolSnapshot } from "../domain/mcp-tool-snapshot.ts";
import { taskBudgetBasisJson, taskInputJson, taskMcpToolsJson, taskSmokeJson } from "./json-columns.ts";

/**
 * What launching (and checking an eval cell) needs of the tools layer, passed in by the caller
 * (server/tools/launch-tools.ts `launchTools`), so the db layer imports no tools.
 */
export interface LaunchTools {
  /** The demo's goal text (tools/demo/license-audit.ts licenseAuditGoal). */
  demoGoal: LaunchPorts["demoGoal"];
  /** Starts the selected MCP servers and snapshots their tools (tools/mcp/discover-tools.ts). */
  discoverMcpToolSnapshot: (args: { prisma: PrismaClient; selections: readonly McpSelection[] }) => Promise<McpToolSnapshot | null>;
  /** The demo's exact CSV for a workspace and package limit (tools/demo/license-audit.ts). */
  expectedLicenseCsv: (workspace: string, limit: number) => Promise<string>;
}

/**
 * The launch's ports over Prisma, with `sendRunStarted` supplied by the caller (the Inngest client
 * in the web app; tests may pass their own) and the tools layer's part (`tools`).
 */
export function prismaLaunchPorts({
  prisma,
  sendRunStarted,
  tools,
  defaultWorkspace = env().LONGHAUL_WORKSPACE ?? process.cwd(),
  workspaceRoots = (env().LONGHAUL_WORKSPACE_ROOTS ?? "")
    .split(",")
    .map((r) => r.trim())
    .filter(Boolean),
  deploymentEgress = deploymentEgressPolicy(env()),
  variables,
}: {
  prisma: PrismaClient;
  sendRunStarted: LaunchPorts["sendRunStarted"];
  /** The tools layer's part (server/tools/launch-tools.ts `launchTools`). */
  tools: LaunchTools;
  defaultWorkspace?: string;
  /** Folders a launch's workspace must lie in (default: the default workspace alone). */
  workspaceRoots?: string[];
  /** The deployment's egress policy (default: from env()). */
  deploymentEgress?: LaunchPorts["deploymentEgress"];
  /** The variables a profile may name, to check that its references resolve (default: namedVariables(), read at each launch). */
  variables?: Readonly<Record<string, string | undefined>>;
}): LaunchPorts {
  const roots = (workspaceRoots.length ? workspaceRoots : [defaultWorkspace]).map((r) => resolve(r));
  return {
    defaultWorkspace: resolve(defaultWorkspace),
    deploymentEgress,
    newId: (prefix) => `${prefix}_${ulid().toLowerCase()}`,
    demoGoal: tools.demoGoal,
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
        model: p.model,
      };
    },
    async unresolvedReferences(name) {
      const found = await prisma.agentProfile.findUnique({ where: { name }, select: { id: true } });
      if (!found) return [];
      const { spec } = await currentProfileVersion({ prisma, profileId: found.id });
      return (await unresolvedLaunchReferences({ prisma, profile: spec, ...(variables ? { variables } : {}) })).map((r) => r.message);
    },
    discoverMcpTools: (selections) => tools.discoverMcpToolSnapshot({ prisma, selections: selections as McpSelection[] }),
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
            input: taskInputJson.encode(d.input),
            launchKey: d.launchKey,
            createdBy: d.createdBy,
            ...(d.mcpTools ? { mcpTools: taskMcpToolsJson.encode(d.mcpTools) } : {}),
            ...(d.templateId ? { templateId: d.templateId } : {}),
            ...(d.budgetBasis ? { budgetBasis: taskBudgetBasisJson.encode(d.budgetBasis) } : {}),
            ...(d.smoke ? { smoke: taskSmokeJson.encode(d.smoke) } : {}),
          },
        }),
        prisma.run.create({ data: { id: d.runId, taskId: d.taskId, cause: "initial", status: "running" } }),
      ]);
    },
    sendRunStarted,
    failLaunch: ({ taskId, runId }, error) => failUndeliveredStart({ prisma, taskId, runId, error }),
  };
}
