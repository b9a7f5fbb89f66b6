import { z } from "zod";
import { getEscalationCardOrThrow, listEscalations, requestEscalation } from "../../db/escalation-queries.ts";
import { prismaDecidePorts } from "../../db/escalation-repository.ts";
import { decideEscalation, decideEscalationInputSchema } from "../../domain/decide-escalation.ts";
import { sendEscalationApplied, sendRunStarted } from "../../inngest/send.ts";
import { createTRPCRouter, publicProcedure } from "../trpc.ts";

export const escalationRouter = createTRPCRouter({
  list: publicProcedure
    .input(z.object({ status: z.enum(["open", "closed"]).optional() }).default({}))
    .query(({ ctx, input }) => listEscalations({ prisma: ctx.prisma, status: input.status })),
  get: publicProcedure.input(z.object({ escalationId: z.string().min(1).max(100) })).query(({ ctx, input }) => getEscalationCardOrThrow({ prisma: ctx.prisma, escalationId: input.escalationId })),
  decide: publicProcedure
    .input(decideEscalationInputSchema)
    .mutation(({ ctx, input }) => decideEscalation({ input, actor: ctx.actor, ports: prismaDecidePorts({ prisma: ctx.prisma, sendApplied: sendEscalationApplied, sendRunStarted }) })),
  /** An operator escalates a running task by hand: it checkpoints and escalates after the turn in flight. */
  request: publicProcedure
    .input(z.object({ taskId: z.string().min(1).max(100), note: z.string().trim().max(4_000).optional() }))
    .mutation(({ ctx, input }) => requestEscalation({ prisma: ctx.prisma, taskId: input.taskId, note: input.note || null })),
});
