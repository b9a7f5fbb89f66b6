import type { PrismaClient } from "./client.ts";

/**
 * Agent profiles by name, with the defaults a launch takes from them: `stepBudget`, `tokenBudget`
 * (null = no token ceiling), `costBudgetUsd` (USD as a number; null = no dollar ceiling) and
 * `requireApproval`.
 */
export async function listProfiles({ prisma }: { prisma: PrismaClient }) {
  const profiles = await prisma.agentProfile.findMany({
    orderBy: { name: "asc" },
    select: {
      id: true,
      name: true,
      description: true,
      model: true,
      baseUrl: true,
      tools: true,
      stepBudget: true,
      tokenBudget: true,
      costBudgetUsd: true,
      requireApproval: true,
    },
  });
  return profiles.map((p) => ({ ...p, costBudgetUsd: p.costBudgetUsd === null ? null : Number(p.costBudgetUsd) }));
}
