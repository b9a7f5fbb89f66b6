import { createTRPCRouter, readProcedure } from "../trpc.ts";

export const profileRouter = createTRPCRouter({
  /**
   * Agent profiles by name, with the defaults a launch takes from them: `stepBudget`, `tokenBudget`
   * (null = no token ceiling), `costBudgetUsd` (USD as a number; null = no dollar ceiling) and
   * `requireApproval`.
   */
  list: readProcedure.query(async ({ ctx }) => {
    const profiles = await ctx.prisma.agentProfile.findMany({
      orderBy: { name: "asc" },
      select: { id: true, name: true, description: true, model: true, baseUrl: true, tools: true, stepBudget: true, tokenBudget: true, costBudgetUsd: true, requireApproval: true },
    });
    return profiles.map((p) => ({ ...p, costBudgetUsd: p.costBudgetUsd === null ? null : Number(p.costBudgetUsd) }));
  }),
});
