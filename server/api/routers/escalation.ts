import { z } from "zod";
import {
  getEscalationCardOrThrow,
  inboxCountsFor,
  listEscalations,
  prismaClaimPorts,
  prismaDecidePorts,
  claimEscalation,
  claimEscalationInputSchema,
  decideEscalation,
  decideEscalationInputSchema,
  releaseEscalation,
  undoEscalationDecision,
  undoEscalationInputSchema,
  applyDecisionNow,
  applyNowInputSchema,
} from "../../features/escalations/index.ts";
import { requestEscalation } from "../../db/run-requests.ts";
import { sendEscalationApplied, sendEscalationDecided, sendRunStarted } from "../../inngest/send.ts";
import { idField, inputObject, textField } from "../../domain/input-fields.ts";
import { onceByKey, requestKeyActor } from "../../db/request-keys.ts";
import { createTRPCRouter, handlerProcedure, ownTaskProcedure, readProcedure, type TRPCContext } from "../trpc.ts";
import { redactSecrets } from "../../tools/egress-redact.ts";
import { applyNowOutput, claimOutput, decideOutput, releaseOutput, undoOutput } from "../output-schemas.ts";
import { escalationCardOutput, escalationListOutput, inboxCountOutput } from "../output-schemas-escalation.ts";
import { runIdOutput } from "../output-schemas-shared.ts";

const idInput = inputObject({ escalationId: idField("escalationId") });

const decidePorts = (ctx: TRPCContext) =>
  prismaDecidePorts({ prisma: ctx.prisma, sendApplied: sendEscalationApplied, sendDecided: sendEscalationDecided, sendRunStarted });

export const escalationRouter = createTRPCRouter({
  list: readProcedure
    .input(
      inputObject({
        status: z.enum(["open", "closed", "decided"], "status: open, closed or decided").optional(),
        reason: textField("reason", 50).optional(),
        assignee: textField("assignee", 100).optional(),
      }).default({}),
    )
    .output(escalationListOutput)
    .query(({ ctx, input }) => listEscalations({ prisma: ctx.prisma, ...input })),
  /** The nav's inbox badge: open escalations waiting on the caller (claimed by them, or unclaimed and routed to a role they hold) and how many are overdue. */
  inboxCount: handlerProcedure.output(inboxCountOutput).query(({ ctx }) => inboxCountsFor({ prisma: ctx.prisma, name: ctx.actor, roles: ctx.principal.roles })),
  /** The context card; secrets in its stored step payloads and evidence are answered as [redacted: <rule name>] (server/tools/egress-redact.ts). */
  get: readProcedure
    .input(idInput)
    .output(escalationCardOutput)
    .query(async ({ ctx, input }) => {
      const card = await getEscalationCardOrThrow({ prisma: ctx.prisma, escalationId: input.escalationId });
      const { value } = await redactSecrets({
        lastSteps: card.lastSteps,
        evidence: card.evidence,
        unresolvedEffect: card.unresolvedEffect,
        message: card.message,
      });
      return { ...card, ...value };
    }),
  /** Records a decision; `undoSeconds` > 0 (the UI sends 10) leaves an undo window before it applies. */
  decide: handlerProcedure
    .input(decideEscalationInputSchema)
    .output(decideOutput)
    .mutation(({ ctx, input }) =>
      onceByKey({
        prisma: ctx.prisma,
        actor: requestKeyActor(ctx.principal),
        action: "escalation.decide",
        key: input.idempotencyKey,
        input,
        run: () => decideEscalation({ input, actor: ctx.actor, ports: decidePorts(ctx) }),
      }),
    ),
  /** Takes a decision back inside its undo window; CONFLICT once it is applied. */
  undo: handlerProcedure
    .input(undoEscalationInputSchema)
    .output(undoOutput)
    .mutation(({ ctx, input }) => undoEscalationDecision({ input, actor: ctx.actor, ports: decidePorts(ctx) })),
  /** "Apply now": the decider ends their decision's undo window and applies it in the request; a repeat changes nothing. */
  applyNow: handlerProcedure
    .input(applyNowInputSchema)
    .output(applyNowOutput)
    .mutation(({ ctx, input }) => applyDecisionNow({ input, actor: ctx.actor, ports: decidePorts(ctx) })),
  /** "<actor> is on this"; one claimed by someone else needs `takeOverFrom`. */
  claim: handlerProcedure
    .input(claimEscalationInputSchema)
    .output(claimOutput)
    .mutation(({ ctx, input }) => claimEscalation({ input, actor: ctx.actor, ports: prismaClaimPorts({ prisma: ctx.prisma }) })),
  release: handlerProcedure
    .input(idInput)
    .output(releaseOutput)
    .mutation(({ ctx, input }) => releaseEscalation({ input, actor: ctx.actor, ports: prismaClaimPorts({ prisma: ctx.prisma }) })),
  /** An operator escalates a running task by hand: it checkpoints and escalates after the turn in flight. */
  request: ownTaskProcedure
    .input(inputObject({ taskId: idField("taskId"), note: textField("note", 4_000).optional() }))
    .output(runIdOutput)
    .mutation(({ ctx, input }) => requestEscalation({ prisma: ctx.prisma, taskId: input.taskId, note: input.note || null, actor: ctx.actor })),
});
