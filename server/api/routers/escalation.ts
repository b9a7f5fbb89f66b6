import { z } from "zod";
import { getEscalationCardOrThrow, listEscalations } from "../../db/escalation-queries.ts";
import { requestEscalation } from "../../db/run-requests.ts";
import { prismaClaimPorts, prismaDecidePorts } from "../../db/escalation-repository.ts";
import {
  claimEscalation,
  claimEscalationInputSchema,
  decideEscalation,
  decideEscalationInputSchema,
  releaseEscalation,
  undoEscalationDecision,
  undoEscalationInputSchema,
} from "../../domain/decide-escalation.ts";
import { sendEscalationApplied, sendEscalationDecided, sendRunStarted } from "../../inngest/send.ts";
import { createTRPCRouter, publicProcedure, type TRPCContext } from "../trpc.ts";

const idInput = z.object({ escalationId: z.string().min(1, "escalationId: must not be empty").max(100, "escalationId: at most 100 characters") });

const decidePorts = (ctx: TRPCContext) => prismaDecidePorts({ prisma: ctx.prisma, sendApplied: sendEscalationApplied, sendDecided: sendEscalationDecided, sendRunStarted });

export const escalationRouter = createTRPCRouter({
  list: publicProcedure
    .input(z.object({ status: z.enum(["open", "closed"]).optional() }).default({}))
    .query(({ ctx, input }) => listEscalations({ prisma: ctx.prisma, status: input.status })),
  get: publicProcedure.input(idInput).query(({ ctx, input }) => getEscalationCardOrThrow({ prisma: ctx.prisma, escalationId: input.escalationId })),
  /** Records a decision; `undoSeconds` > 0 (the UI sends 10) leaves an undo window before it applies. */
  decide: publicProcedure.input(decideEscalationInputSchema).mutation(({ ctx, input }) => decideEscalation({ input, actor: ctx.actor, ports: decidePorts(ctx) })),
  /** Takes a decision back inside its undo window; CONFLICT once it is applied. */
  undo: publicProcedure.input(undoEscalationInputSchema).mutation(({ ctx, input }) => undoEscalationDecision({ input, actor: ctx.actor, ports: decidePorts(ctx) })),
  /** "<actor> is on this"; one claimed by someone else needs `takeOverFrom`. */
  claim: publicProcedure.input(claimEscalationInputSchema).mutation(({ ctx, input }) => claimEscalation({ input, actor: ctx.actor, ports: prismaClaimPorts({ prisma: ctx.prisma }) })),
  release: publicProcedure.input(idInput).mutation(({ ctx, input }) => releaseEscalation({ input, actor: ctx.actor, ports: prismaClaimPorts({ prisma: ctx.prisma }) })),
  /** An operator escalates a running task by hand: it checkpoints and escalates after the turn in flight. */
  request: publicProcedure
    .input(z.object({ taskId: z.string().min(1).max(100), note: z.string().trim().max(4_000).optional() }))
    .mutation(({ ctx, input }) => requestEscalation({ prisma: ctx.prisma, taskId: input.taskId, note: input.note || null })),
});
