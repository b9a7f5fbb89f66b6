import { createTRPCRouter, publicProcedure } from "../trpc.ts";

export const profileRouter = createTRPCRouter({
  list: publicProcedure.query(({ ctx }) =>
    ctx.prisma.agentProfile.findMany({
      orderBy: { name: "asc" },
      select: { id: true, name: true, description: true, model: true, baseUrl: true, tools: true, stepBudget: true },
    }),
  ),
});
