import { createHash } from "node:crypto";
import { z } from "zod";
import { performInternalEffect } from "./ledger.ts";
import { maxBytesString } from "./limits.ts";
import { defineTool } from "./types.ts";

export const SEND_EMAIL_MAX_BODY_BYTES = 65_536;

export const sendEmailArgsSchema = z.strictObject({
  to: z.email().max(320).describe("Recipient email address"),
  subject: z.string().min(1).max(200).describe("Subject line (at most 200 characters)"),
  body: maxBytesString(SEND_EMAIL_MAX_BODY_BYTES).describe("Plain-text body (at most 64 KiB)"),
});
export type SendEmailArgs = z.output<typeof sendEmailArgsSchema>;

export interface SendEmailOutput {
  [key: string]: string | boolean;
  messageId: string;
  deduplicated: boolean;
}

const sendEmailOutputSchema = z.object({ messageId: z.string(), deduplicated: z.boolean() });

/** Message id of the email sent under `idempotencyKey`: deterministic, so a key names one message. */
export function messageIdFor(idempotencyKey: string): string {
  return `${createHash("sha256").update(idempotencyKey).digest("hex").slice(0, 32)}@longhaul.local`;
}

/**
 * `send_email` (docs/CONTRACTS.md): a ledgered side effect that writes one OutboxMessage per idempotency
 * key, in the same transaction as its ledger row. The same key again returns the same messageId and
 * writes nothing; another run of the task sending the same email (same fingerprint) gets the
 * original messageId with `deduplicated: true`.
 */
export const sendEmailTool = defineTool({
  name: "send_email",
  description: "Send an email (side effect, at most once: repeating the same email returns the original messageId with deduplicated: true).",
  parameters: sendEmailArgsSchema,
  sideEffect: true,
  risky: true,
  egress: (args) => ({ email: [{ field: "to", address: args.to }] }),
  async execute(args, ctx): Promise<SendEmailOutput> {
    const { result } = await performInternalEffect<SendEmailOutput>({
      prisma: ctx.prisma,
      taskId: ctx.taskId,
      runId: ctx.runId,
      stepId: ctx.stepId,
      tool: "send_email",
      args,
      resultSchema: sendEmailOutputSchema,
      async perform(tx, { idempotencyKey }) {
        const messageId = messageIdFor(idempotencyKey);
        await tx.outboxMessage.create({
          data: {
            taskId: ctx.taskId,
            runId: ctx.runId,
            stepId: ctx.stepId,
            messageId,
            idempotencyKey,
            to: args.to,
            subject: args.subject,
            body: args.body,
          },
        });
        return { messageId, deduplicated: false };
      },
    });
    return result;
  },
});
