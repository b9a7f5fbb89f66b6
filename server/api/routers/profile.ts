import { listProfiles } from "../../db/profile-queries.ts";
import { createTRPCRouter, publicProcedure } from "../trpc.ts";

export const profileRouter = createTRPCRouter({
  /** Agent profiles by name with their launch defaults (see listProfiles). */
  list: publicProcedure.query(({ ctx }) => listProfiles({ prisma: ctx.prisma })),
});
