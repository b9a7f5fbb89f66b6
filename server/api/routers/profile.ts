import { listProfiles } from "../../db/profile-queries.ts";
import { createTRPCRouter, readProcedure } from "../trpc.ts";

export const profileRouter = createTRPCRouter({
  /** Agent profiles by name with their launch defaults (see listProfiles). */
  list: readProcedure.query(({ ctx }) => listProfiles({ prisma: ctx.prisma })),
});
